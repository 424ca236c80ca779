// Child process of dropped-connections.int.test.ts: a fixed amount of work while the
// parent ends this process's connections every few seconds.
//   reliability-worker.ts <url> <schema> <userId> <workers> <conversations> <steps> <statementTimeoutMs>
// For each worker index in <workers> (comma-separated) and each of its <conversations>
// conversations, <steps> evidence updates of a growing history, each followed by the
// record of a view (as the LangGraph node keeps one per model call), all conversations
// at once. An update that fails with STORE_ERROR (a connection ended under it) is retried
// here; a view record is not (the store retries it itself), and one that fails anyway is
// counted as lost. Any other failure ends the process with exit code 1. <statementTimeoutMs> 0 means none:
// statements then go through pool.query, and only view records through a transaction.
// Prints one JSON line: {"updates": n, "records": n, "lostRecords": n, "retries": n, "pgCodes": {...}}.
import { PostgresContextStore } from "@contextview/postgres";
import { storeHistory, viewRecordEntry } from "@contextview/test-support";
import { reliabilityConversations } from "../support/reliability.js";

async function main(): Promise<void> {
  const [url, schema, userId, workersArg, conversationsArg, stepsArg, timeoutArg] = process.argv.slice(2);
  if (!url || !schema || !userId || !workersArg) throw new Error("usage: reliability-worker.ts <url> <schema> <userId> <workers> <conversations> <steps> <statementTimeoutMs>");
  const timeout = Number(timeoutArg);
  const store = PostgresContextStore.fromConnString(url, { schema, ...(timeout > 0 ? { statementTimeoutMs: timeout } : {}) });
  const counts = { updates: 0, records: 0, lostRecords: 0, retries: 0, pgCodes: {} as Record<string, number> };

  /** `call` until it does not fail with STORE_ERROR; bounded, so a store that never recovers fails the run. */
  const retrying = async <T>(call: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const { code, details } = error as { code?: unknown; details?: { pgCode?: unknown } };
        if (code !== "STORE_ERROR" || attempt >= 50) throw error;
        counts.retries++;
        const pgCode = String(details?.pgCode ?? "none");
        counts.pgCodes[pgCode] = (counts.pgCodes[pgCode] ?? 0) + 1;
        await new Promise((resolve) => setTimeout(resolve, 20 * Math.min(attempt, 10)));
      }
    }
  };

  const conversations = reliabilityConversations(workersArg.split(",").map(Number), Number(conversationsArg), Number(stepsArg));
  await Promise.all(
    conversations.map(async ({ conversationId, turns }) => {
      const key = { userId, conversationId };
      for (const [step, n] of turns.entries()) {
        await retrying(() => store.update(userId, conversationId, storeHistory(n, 200)));
        counts.updates++;
        const entry = await viewRecordEntry(step + 1, key);
        try {
          await store.recordView(key, entry);
          counts.records++;
        } catch (error) {
          if ((error as { code?: unknown }).code !== "STORE_ERROR") throw error;
          counts.lostRecords++;
        }
      }
    }),
  );
  await store.end();
  process.stdout.write(`${JSON.stringify(counts)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
