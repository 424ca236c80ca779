import { inspect } from "node:util";
import pg from "pg";
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { ContextViewError, InMemoryContextStore } from "@contextview/core";
import type { CompactionState } from "@contextview/core/store";
import { MIGRATIONS, MIGRATIONS_TABLE } from "../src/migrations.js";
import { PostgresContextStore, type PostgresContextStoreOptions } from "@contextview/postgres";
import { TOOL_ONLY, cursorOf, storeHistory } from "@contextview/test-support";
import { POSTGRES_URL, describePostgres, useSchema } from "./support/postgres.js";

// Real servers and graphs on a shared, loaded machine: well above the usual second, never a timing assertion.

const compaction: CompactionState = {
  version: 1,
  summary: { prefixN: 8, prefixHash: "f00d", text: "The user chose Postgres. Cut: \ud83d", createdAt: 1_700_000_000_000 },
  failures: 1,
  skipUntil: 1_700_000_300_000,
  calibration: { ratio: 0.93, samples: 4 },
};
const key = { userId: "user", conversationId: "conv" };

async function rejection(promise: Promise<unknown>): Promise<ContextViewError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (err: unknown) => err,
  );
  expect(ContextViewError.isInstance(error)).toBe(true);
  return error as ContextViewError;
}

describePostgres("PostgresContextStore", () => {
  const { schema, pool } = useSchema();
  const stores: PostgresContextStore[] = [];
  const open = (options: PostgresContextStoreOptions = {}, url = POSTGRES_URL) => {
    const store = PostgresContextStore.fromConnString(url, { schema: schema(), ...options });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.end()));
  });
  const sql = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => (await pool().query<R>(text, values)).rows;

  describe("set-up", () => {
    it("migrates lazily and idempotently, recording versions in its own table", async () => {
      const first = open();
      const second = open();
      await Promise.all([first.load("user", "conv"), second.load("user", "conv"), first.setup(), second.setup()]);
      const versions = await sql<{ v: number }>(`SELECT v FROM "${schema()}".${MIGRATIONS_TABLE} ORDER BY v`);
      expect(versions.map((row) => row.v)).toEqual(MIGRATIONS.map((_, v) => v));
      const tables = await sql<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [schema()]);
      expect(tables.map((row) => row.table_name)).toEqual(["contextview_compaction", "contextview_evidence", MIGRATIONS_TABLE, "contextview_view_inputs", "contextview_views"]);
    });

    it("refuses a schema newer than it knows", async () => {
      await open().setup();
      await sql(`INSERT INTO "${schema()}".${MIGRATIONS_TABLE} (v) VALUES ($1)`, [MIGRATIONS.length]);
      const error = await rejection(open().load("user", "conv"));
      expect(error.code).toBe("STORE_ERROR");
      expect(error.message).toMatch(/newer than this @contextview\/postgres knows/);
    });

    it.each([
      ['x"; DROP TABLE users; --'],
      ["public.evil"],
      ["9lives"],
      ["Robert'); DROP SCHEMA public CASCADE;--"],
      ["a".repeat(64)],
      [""],
    ])("refuses the hostile or invalid schema name %j before touching the server", (name) => {
      const pool = new pg.Pool({ connectionString: "postgresql://nobody@127.0.0.1:1/none" });
      try {
        expect(() => new PostgresContextStore(pool, { schema: name })).toThrow(/Expected `schema` to be a schema name of letters, digits and _/);
        expect(() => PostgresContextStore.fromConnString(POSTGRES_URL, { schema: name })).toThrow(ContextViewError);
        expect(() => PostgresContextStore.nextTo({ pool, options: { schema: name } })).toThrow(/`schema`/);
      } finally {
        void pool.end();
      }
    });

    it.each([
      [{ statementTimeoutMs: 0 }, "`statementTimeoutMs`"],
      [{ statementTimeoutMs: 1.5 }, "`statementTimeoutMs`"],
      [{ maxMessageBytes: 0 }, "`maxMessageBytes`"],
      [{ onCompactionError: "log" }, "`onCompactionError`"],
    ])("rejects options %j", (options, field) => {
      expect(() => PostgresContextStore.fromConnString(POSTGRES_URL, options as PostgresContextStoreOptions)).toThrow(field);
    });

    it("rejects what is not a pool or a saver", () => {
      expect(() => new PostgresContextStore({} as pg.Pool)).toThrow("Expected `pool` to be a node-postgres Pool");
      expect(() => PostgresContextStore.nextTo({ db: {} } as never)).toThrow("Expected `saver` to be a PostgresSaver");
      expect(() => PostgresContextStore.fromConnString("")).toThrow("`connString`");
    });

    it("sits beside a PostgresSaver: its pool and schema, never its tables", async () => {
      const saver = PostgresSaver.fromConnString(POSTGRES_URL, { schema: schema() });
      try {
        await saver.setup();
        const before = await sql<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [schema()]);
        const store = PostgresContextStore.nextTo(saver);
        expect(store.schema).toBe(schema());
        await store.update("user", "conv", storeHistory(3));
        const after = await sql<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name", [schema()]);
        expect(after.map((row) => row.table_name)).toEqual(
          [...before.map((row) => row.table_name), "contextview_compaction", "contextview_evidence", "contextview_view_inputs", "contextview_views", MIGRATIONS_TABLE].sort(),
        );
        await store.end(); // the saver's pool stays open
        expect((await store.load("user", "conv")).cursor).toBe(cursorOf(3));
      } finally {
        await saver.end();
      }
    });

    it("never exposes the pool", async () => {
      const injected = pool();
      const store = new PostgresContextStore(injected, { schema: schema() });
      expect(store.toJSON()).toEqual({ store: "PostgresContextStore", schema: schema() });
      expect(JSON.stringify({ configurable: { store } })).toBe(`{"configurable":{"store":{"store":"PostgresContextStore","schema":"${schema()}"}}}`);
      expect(Object.values(store)).not.toContain(injected);
      expect(inspect(store, { depth: 4 })).not.toMatch(/totalCount|connectionString/);
      await store.update("user", "conv", storeHistory(1));
      await store.end();
      expect((await injected.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    });
  });

  describe("evidence", () => {
    it("persists what update returns, equal to the in-memory store", async () => {
      const state = await open().update("user", "conv", storeHistory(5));
      expect(state.cursor).toBe(cursorOf(5));
      expect(JSON.stringify(state)).not.toContain(TOOL_ONLY);
      expect((await open().load("user", "conv")).toJSON()).toEqual(state.toJSON());
      expect(state.toJSON()).toEqual((await new InMemoryContextStore().update("user", "conv", storeHistory(5))).toJSON());
    });

    it("ignores repeated and stale snapshots", async () => {
      const store = open();
      const state = await store.update("user", "conv", storeHistory(6));
      expect((await store.update("user", "conv", storeHistory(6))).toJSON()).toEqual(state.toJSON());
      expect((await store.update("user", "conv", storeHistory(2))).toJSON()).toEqual(state.toJSON());
      const [row] = await sql<{ revision: number }>(`SELECT revision FROM "${schema()}".contextview_evidence`);
      expect(row?.revision).toBe(1);
    });

    it("throws PREFIX_CHANGED for a changed summarized prefix and keeps the stored state", async () => {
      const store = open();
      const state = await store.update("user", "conv", storeHistory(3));
      const forked = storeHistory(4);
      forked[0] = new HumanMessage({ id: "h0", content: "rewritten" });
      expect((await rejection(store.update("user", "conv", forked))).code).toBe("PREFIX_CHANGED");
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("serializes writers of one conversation in the database, while another conversation never waits", async () => {
      const store = open();
      await store.update("user", "a", storeHistory(1));
      await store.update("user", "b", storeHistory(1));
      const blocker = await pool().connect();
      try {
        await blocker.query("BEGIN");
        await blocker.query(`SELECT 1 FROM "${schema()}".contextview_evidence WHERE conversation_id = 'a' FOR UPDATE`);
        let aDone = false;
        const a = store.update("user", "a", storeHistory(3)).then((state) => {
          aDone = true;
          return state;
        });
        // Conversation b commits while a's row is held by another session.
        expect((await store.update("user", "b", storeHistory(3))).cursor).toBe(cursorOf(3));
        expect(aDone).toBe(false);
        await blocker.query("ROLLBACK");
        expect((await a).cursor).toBe(cursorOf(3));
      } finally {
        blocker.release();
      }
    });

    it("refuses a key PostgreSQL text cannot hold, naming the field", async () => {
      const error = await rejection(open().update("user\u0000x", "conv", storeHistory(1)));
      expect(error.code).toBe("INVALID_OPTION");
      expect(error.details["field"]).toBe("userId");
    });

    it("rolls back a failed write and reports STORE_ERROR with the server's code", async () => {
      const store = open();
      const state = await store.update("user", "conv", storeHistory(2));
      await sql(`CREATE FUNCTION "${schema()}".fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk on fire'; END $$`);
      await sql(`CREATE TRIGGER fail_update BEFORE UPDATE ON "${schema()}".contextview_evidence FOR EACH ROW EXECUTE FUNCTION "${schema()}".fail()`);
      const error = await rejection(store.update("user", "conv", storeHistory(4)));
      expect(error.code).toBe("STORE_ERROR");
      expect(error.message).toMatch(/could not write evidence: disk on fire/);
      expect(error.details).toEqual({ operation: "write evidence", pgCode: "P0001" });
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
      await sql(`DROP TRIGGER fail_update ON "${schema()}".contextview_evidence`);
      expect((await store.update("user", "conv", storeHistory(4))).cursor).toBe(cursorOf(4));
    });

    it("writes nothing when cancelled", async () => {
      const store = open();
      const state = await store.update("user", "conv", storeHistory(2));
      const controller = new AbortController();
      const pending = store.update("user", "conv", storeHistory(400, 20_000), { signal: controller.signal });
      setImmediate(() => controller.abort(new Error("request closed")));
      await expect(pending).rejects.toThrow("request closed");
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("reports unreadable stored evidence as STORE_ERROR", async () => {
      const store = open();
      await store.update("user", "conv", storeHistory(2));
      await sql(`UPDATE "${schema()}".contextview_evidence SET state = $1`, ["{not json"]);
      const error = await rejection(store.load("user", "conv"));
      expect(error.code).toBe("STORE_ERROR");
      expect(error.message).toMatch(/stored evidence of this conversation is unreadable/);
    });
  });

  describe("lost connections", () => {
    it("fails update with STORE_ERROR and serves no cache when the server is unreachable", async () => {
      const reported: ContextViewError[] = [];
      const store = open({ onCompactionError: (error) => reported.push(error) }, "postgresql://postgres@127.0.0.1:1/test");
      const error = await rejection(store.update("user", "conv", storeHistory(2)));
      expect(error.code).toBe("STORE_ERROR");
      expect(error.details["pgCode"]).toBe("ECONNREFUSED");
      await expect(store.getCompaction(key)).resolves.toBeNull();
      await expect(store.putCompaction(key, compaction)).resolves.toBeUndefined();
      expect(reported.map((e) => [e.code, e.details["pgCode"]])).toEqual([
        ["STORE_ERROR", "ECONNREFUSED"],
        ["STORE_ERROR", "ECONNREFUSED"],
      ]);
    });

    it("fails an update whose connection is killed mid-statement, leaves no lock, and reconnects on the next call", async () => {
      const application = `cv_kill_${schema()}`;
      const store = open({}, `${POSTGRES_URL}?application_name=${application}`);
      const state = await store.update("user", "conv", storeHistory(2));
      await store.putCompaction(key, compaction);

      // Another session holds the row, so the store's write waits inside the server.
      const blocker = await pool().connect();
      await blocker.query("BEGIN");
      await blocker.query(`SELECT 1 FROM "${schema()}".contextview_evidence FOR UPDATE`);
      const pending = rejection(store.update("user", "conv", storeHistory(5)));
      const waiting = async () =>
        (await sql("SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'", [application])).length > 0;
      while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20));
      // A server restart, as far as this connection can tell.
      await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [application]);
      const error = await pending;
      expect(error.code).toBe("STORE_ERROR");
      expect(error.details["operation"]).toBe("write evidence");
      await blocker.query("ROLLBACK");
      blocker.release();

      expect((await sql("SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = $1", [application])).length).toBe(0);
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
      expect(await store.getCompaction(key)).toEqual(compaction);
      expect((await store.update("user", "conv", storeHistory(5))).cursor).toBe(cursorOf(5));
    });

    it("applies the statement timeout on the server", async () => {
      const reported: ContextViewError[] = [];
      const store = open({ statementTimeoutMs: 200, onCompactionError: (error) => reported.push(error) });
      await store.update("user", "conv", storeHistory(2));
      await store.putCompaction(key, compaction);
      const blocker = await pool().connect();
      try {
        await blocker.query("BEGIN");
        await blocker.query(`LOCK TABLE "${schema()}".contextview_compaction IN ACCESS EXCLUSIVE MODE`);
        await expect(store.getCompaction(key)).resolves.toBeNull();
        expect(reported.map((e) => e.details["pgCode"])).toEqual(["57014"]); // query_canceled
      } finally {
        await blocker.query("ROLLBACK");
        blocker.release();
      }
      expect(await store.getCompaction(key)).toEqual(compaction);
    });
  });

  describe("compaction state", () => {
    it("round-trips through the server, lone surrogates included", async () => {
      const store = open();
      expect(await store.getCompaction(key)).toBeNull();
      await store.putCompaction(key, compaction);
      expect(await open().getCompaction(key)).toEqual(compaction);
    });

    it("treats an unreadable state as no cache and reports it", async () => {
      const reported: ContextViewError[] = [];
      const store = open({ onCompactionError: (error) => reported.push(error) });
      await store.putCompaction(key, compaction);
      await sql(`UPDATE "${schema()}".contextview_compaction SET state = $1`, ["[]"]);
      await expect(store.getCompaction(key)).resolves.toBeNull();
      expect(reported.map((error) => [error.code, error.details["operation"]])).toEqual([["STORE_ERROR", "read compaction state"]]);
    });

    it("still refuses an invalid state, which is a caller's bug", async () => {
      const error = await rejection(open().putCompaction(key, { ...compaction, failures: -1 }));
      expect(error.code).toBe("INVALID_OPTION");
      expect(error.message).toMatch(/`state.failures`/);
    });

    it("deletes compaction state alone, or everything with deleteConversation", async () => {
      const store = open();
      await store.update("user", "conv", storeHistory(2));
      await store.putCompaction(key, compaction);
      await store.deleteCompaction(key);
      expect(await store.getCompaction(key)).toBeNull();
      expect((await store.load("user", "conv")).cursor).toBe(cursorOf(2));
      await store.putCompaction(key, compaction);
      await store.deleteConversation("user", "conv");
      expect(await store.getCompaction(key)).toBeNull();
      expect((await store.load("user", "conv")).cursor).toBe(0);
      expect(await sql(`SELECT 1 FROM "${schema()}".contextview_evidence UNION ALL SELECT 1 FROM "${schema()}".contextview_compaction`)).toEqual([]);
    });
  });
});
