// Child process of dropped-connections.int.test.ts: the server ends one of the store's
// connections, and an unhandled 'error' event would kill this process, so each scenario
// runs here and the test asserts the exit code.
//   dropped-connection-worker.ts <scenario> <baseUrl> <schema> <application>
// The store connects as <application>; one control connection (<application>_ctl) holds the
// lock the store's statement waits on, another watches and ends the store's backends, and
// only those (matched by application_name). Prints one JSON line: what the failing and the next call gave.
import pg from "pg";
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createContextNode } from "@contextview/langgraph";
import { PostgresContextStore } from "@contextview/postgres";
import { storeHistory, viewRecordEntry } from "@contextview/test-support";

const key = { userId: "user", conversationId: "conv" };

function withApplication(url: string, application: string): string {
  return `${url}${url.includes("?") ? "&" : "?"}application_name=${application}`;
}

/** The code of a failure and, for a `STORE_ERROR`, its operation and the SQLSTATE or socket code it carries. */
const failureOf = (error: unknown) => {
  const { code, details } = (error ?? {}) as { code?: unknown; details?: { operation?: unknown; pgCode?: unknown } };
  return { code: code ?? String(error), operation: details?.operation ?? null, pgCode: details?.pgCode ?? null };
};

async function main(): Promise<void> {
  const [scenario, baseUrl, schema, application] = process.argv.slice(2);
  if (!scenario || !baseUrl || !schema || !application) throw new Error("usage: dropped-connection-worker.ts <scenario> <baseUrl> <schema> <application>");
  const url = withApplication(baseUrl, application);
  // Two: pg_stat_activity is a snapshot per transaction, so the watcher stays out of the locker's.
  const [locker, control] = [0, 1].map(() => new pg.Client({ connectionString: withApplication(baseUrl, `${application}_ctl`) })) as [pg.Client, pg.Client];
  await Promise.all([locker.connect(), control.connect()]);

  /** Ends every backend of `application` (the store's); `where` narrows it. Returns how many. */
  const terminate = async (where = "") =>
    (
      await control.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = $1 ${where}`,
        [application],
      )
    ).rowCount ?? 0;

  /** Waits until a backend of `application` waits on a lock: its transaction is checked out and mid-statement. */
  const blocked = async () => {
    for (const until = Date.now() + 20_000; Date.now() < until; ) {
      const { rowCount } = await control.query("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [application]);
      if ((rowCount ?? 0) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error("the store's statement never waited on the lock");
  };

  /** Ends the store's backend while `call` waits on the lock `lockSql` takes in the locker's session. */
  const dropDuring = async (lockSql: string, values: unknown[], call: () => Promise<unknown>) => {
    await locker.query("BEGIN");
    await locker.query(lockSql, values);
    const pending = call().then(
      () => "resolved",
      (error: unknown) => failureOf(error),
    );
    await blocked();
    const terminated = await terminate("AND wait_event_type = 'Lock'");
    await locker.query("ROLLBACK");
    return { failed: await pending, terminated };
  };

  const viewLock = ["SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", [`contextview_views:${schema}`, JSON.stringify([key.userId, key.conversationId])]] as const;
  let result: Record<string, unknown>;

  if (scenario === "record") {
    // View records on: recordView is one transaction on a checked-out client.
    const store = PostgresContextStore.fromConnString(url, { schema });
    await store.setup();
    const dropped = await dropDuring(viewLock[0], [...viewLock[1]], async () => store.recordView(key, await viewRecordEntry(1, key)));
    const next = await store.recordView(key, await viewRecordEntry(2, key));
    result = { ...dropped, next: next.sequence, views: (await store.listViews(key)).length };
    await store.end();
  } else if (scenario === "timeout") {
    // statementTimeoutMs: every statement, the evidence write too, runs in a transaction of its own.
    const store = PostgresContextStore.fromConnString(url, { schema, statementTimeoutMs: 30_000 });
    await store.update(key.userId, key.conversationId, storeHistory(1));
    const dropped = await dropDuring(
      `SELECT 1 FROM "${schema}".contextview_evidence WHERE user_id = $1 AND conversation_id = $2 FOR UPDATE`,
      [key.userId, key.conversationId],
      () => store.update(key.userId, key.conversationId, storeHistory(2)),
    );
    result = { ...dropped, next: (await store.update(key.userId, key.conversationId, storeHistory(3))).cursor };
    await store.end();
  } else if (scenario === "setup") {
    // First use: the migration transaction is dropped; the next call sets up again.
    const store = PostgresContextStore.fromConnString(url, { schema });
    const dropped = await dropDuring("SELECT pg_advisory_xact_lock(hashtext($1))", [`contextview_migrations:${schema}`], () => store.load(key.userId, key.conversationId));
    result = { ...dropped, next: (await store.update(key.userId, key.conversationId, storeHistory(1))).cursor };
    await store.end();
  } else if (scenario === "node") {
    // The documented integration: createContextNode records each view (the default) through the store.
    const store = PostgresContextStore.fromConnString(url, { schema });
    await store.setup();
    const logged: unknown[] = [];
    const node = createContextNode({ store, logger: { info: () => undefined, warn: (record) => void logged.push([record.event, (record as { code?: unknown }).code]) } });
    const config = { configurable: { thread_id: key.conversationId, user_id: key.userId } };
    const messages = [new HumanMessage({ id: "h1", content: "question 1" })];
    const dropped = await dropDuring(viewLock[0], [...viewLock[1]], () => node.invoke({ messages }, config));
    const next = await node.invoke({ messages: [...messages, new HumanMessage({ id: "h2", content: "question 2" })] }, config);
    result = { ...dropped, logged, next: next.llmInputMessages.length, views: (await store.listViews(key)).length };
    await store.end();
  } else if (scenario === "saver-idle") {
    // nextTo a saver whose pool has no 'error' listener: its idle connections are ended.
    const saver = PostgresSaver.fromConnString(url, { schema });
    await saver.setup();
    const pool = (saver as unknown as { pool: pg.Pool }).pool;
    const before = pool.listenerCount("error");
    const store = PostgresContextStore.nextTo(saver);
    const again = PostgresContextStore.nextTo(saver);
    const listeners = pool.listenerCount("error");
    // Several calls at once leave several idle connections in the pool.
    await Promise.all(["a", "b", "c"].map((conversationId) => store.update(key.userId, conversationId, storeHistory(1))));
    const idle = pool.idleCount;
    const terminated = await terminate();
    for (let i = 0; i < 500 && pool.totalCount > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    const discarded = pool.totalCount === 0;
    const next = (await again.update(key.userId, "a", storeHistory(2))).cursor;
    const tuple = await saver.getTuple({ configurable: { thread_id: "none" } });
    result = { before, listeners, idle, terminated, discarded, next, tuple: tuple ?? null };
    await saver.end();
  } else {
    throw new Error(`unknown scenario ${scenario}`);
  }
  await Promise.all([locker.end(), control.end()]);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
