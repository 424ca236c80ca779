// Child of store-postgres.bench.ts: one process updating conversations in a shared schema.
//   store-postgres-worker.ts <url> <schema> <worker> <mode: spread|contended> <conversations> <steps> <startAt>
// Prints one JSON line: { latencies: number[] } (milliseconds per update).
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { PostgresContextStore } from "@contextview/postgres";

function snapshot(turns: number, tag: string): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage({ id: `${tag}-h0`, content: "We must keep the ledger in UTC. Let's start." })];
  for (let t = 0; t < turns; t++) {
    out.push(
      new AIMessage({ id: `${tag}-c${t}`, content: "", tool_calls: [{ id: `${tag}-k${t}`, name: "query_ledger", args: { batch: t } }] }),
      new ToolMessage({ id: `${tag}-t${t}`, tool_call_id: `${tag}-k${t}`, content: JSON.stringify({ batch: t, rows: "r".repeat(600) }) }),
      new AIMessage({ id: `${tag}-a${t}`, content: `Batch ${t} has 3 changed rows. Next step: reconcile them with the bank export.` }),
      new HumanMessage({ id: `${tag}-h${t + 1}`, content: `Question ${t + 1}: what changed in batch ${t + 1}? We decided to round only totals.` }),
    );
  }
  return out;
}

async function main(): Promise<void> {
  const [url, schema, workerArg, mode, conversationsArg, stepsArg, startAtArg] = process.argv.slice(2) as string[];
  const worker = Number(workerArg);
  const conversations = Number(conversationsArg);
  const steps = Number(stepsArg);
  const store = PostgresContextStore.fromConnString(url as string, { schema: schema as string });
  await store.setup();
  // Snapshots built before the clock starts: the benchmark times the store, not the fixture.
  const snapshots = Array.from({ length: steps }, (_, step) => snapshot(step + 1, "conv"));
  const ids = Array.from({ length: conversations }, (_, c) => (mode === "contended" ? "shared" : `w${worker}-c${c}`));
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAtArg) - Date.now())));
  const latencies: number[] = [];
  const started = performance.now();
  for (let step = 0; step < steps; step++) {
    await Promise.all(
      ids.map(async (id) => {
        const start = performance.now();
        await store.update("bench-user", id, snapshots[step] as BaseMessage[]);
        latencies.push(performance.now() - start);
      }),
    );
  }
  const elapsedMs = performance.now() - started;
  await store.end();
  process.stdout.write(`${JSON.stringify({ latencies, elapsedMs })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
