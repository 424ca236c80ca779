import pg from "pg";
import { PostgresContextStore } from "@contextview/postgres";
import { viewRecordEntry } from "@contextview/test-support";
import { POSTGRES_URL, describePostgres, useSchema } from "./support/postgres.js";

// Faults are injected into the store's own connections, on a real server: a statement that fails
// as one on a connection the server ended would (SQLSTATE 57P01), before it runs or after it ran.
// Ending real backends mid-transaction is tested in dropped-connections.int.test.ts (child processes).

const key = { userId: "user", conversationId: "conv" };

type Fault = { when: "before" | "after"; code: string } | undefined;

/**
 * A pool whose clients pass every statement to `fault` first: a fault `before` fails the
 * statement without sending it, `after` sends it, then fails as if its reply was lost.
 */
function faultyPool(fault: (sql: string) => Fault): pg.Pool {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL });
  pool.on("error", () => undefined);
  const wrapped = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as (callback: (error: Error | undefined, client: pg.PoolClient | undefined, done: () => void) => void) => void;
  const patched = (callback: (error: Error | undefined, client: pg.PoolClient | undefined, done: () => void) => void) =>
    connect((error, client, done) => {
      if (client && !wrapped.has(client)) {
        wrapped.add(client);
        const query = client.query.bind(client) as (sql: string, values?: unknown, callback?: unknown) => Promise<pg.QueryResult>;
        (client as unknown as { query: typeof query }).query = async (sql, values, callback) => {
          // pool.query (one statement outside a transaction) calls back instead: passed through as it is.
          if (typeof values === "function" || typeof callback === "function") return query(sql, values, callback);
          const planned = fault(sql);
          const failure = () => Object.assign(new Error(`injected: terminating connection (${planned?.code})`), { code: planned?.code });
          if (planned?.when === "before") throw failure();
          const result = await query(sql, values);
          if (planned?.when === "after") throw failure();
          return result;
        };
      }
      callback(error, client, done);
    });
  (pool as unknown as { connect: typeof patched }).connect = patched;
  return pool;
}

describePostgres("PostgresContextStore.recordView when its connection is lost", () => {
  const { schema } = useSchema();
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
  });

  /** A store on a faulty pool, set up, with `plan` consulted for each statement once `armed`. */
  async function storeWith(plan: (sql: string, seen: { begins: number }) => Fault) {
    const seen = { begins: 0 };
    let armed = false;
    const pool = faultyPool((sql) => {
      if (!armed) return undefined;
      if (sql.startsWith("BEGIN")) seen.begins++;
      return plan(sql, seen);
    });
    pools.push(pool);
    const store = new PostgresContextStore(pool, { schema: schema() });
    await store.setup();
    armed = true;
    return { store, seen };
  }

  it("retries a record whose COMMIT went through but whose reply was lost, and keeps it once", async () => {
    const { store, seen } = await storeWith((sql, s) => (sql === "COMMIT" && s.begins === 1 ? { when: "after", code: "57P01" } : undefined));
    const recorded = await store.recordView(key, await viewRecordEntry(1, key));
    expect(recorded.sequence).toBe(1);
    expect(seen.begins).toBe(2);
    expect((await store.recordView(key, await viewRecordEntry(2, key))).sequence).toBe(2);
    expect((await store.listViews(key)).map((view) => [view.record.sequence, view.record.recordedAt])).toEqual([
      [1, 1_700_000_000_001],
      [2, 1_700_000_000_002],
    ]);
  });

  it("retries a record whose transaction failed before it committed", async () => {
    const insertsRecord = (sql: string) => sql.includes("INSERT INTO") && sql.includes("contextview_views");
    const { store, seen } = await storeWith((sql, s) => (insertsRecord(sql) && s.begins < 3 ? { when: "before", code: "08006" } : undefined));
    expect((await store.recordView(key, await viewRecordEntry(1, key))).sequence).toBe(1);
    expect(seen.begins).toBe(3);
    expect((await store.listViews(key)).map((view) => view.record.sequence)).toEqual([1]);
  });

  it("gives up with STORE_ERROR after 5 attempts, and at once on a failure a new connection cannot fix", async () => {
    const lost = await storeWith((sql) => (sql.includes("contextview_views") ? { when: "before", code: "57P01" } : undefined));
    await expect(lost.store.recordView(key, await viewRecordEntry(1, key))).rejects.toMatchObject({
      code: "STORE_ERROR",
      details: { operation: "record a view", pgCode: "57P01", attempts: 5 },
    });
    expect(lost.seen.begins).toBe(5);
    const timeout = await storeWith((sql) => (sql.includes("contextview_views") ? { when: "before", code: "57014" } : undefined));
    await expect(timeout.store.recordView(key, await viewRecordEntry(1, key))).rejects.toMatchObject({
      code: "STORE_ERROR",
      details: { operation: "record a view", pgCode: "57014", attempts: 1 },
    });
    expect(timeout.seen.begins).toBe(1);
    expect(await timeout.store.listViews(key)).toEqual([]);
  });
});
