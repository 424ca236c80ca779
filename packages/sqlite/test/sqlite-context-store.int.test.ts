import { inspect } from "node:util";
import { join } from "node:path";
import Database from "better-sqlite3";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ContextViewError, InMemoryContextStore } from "@contextview/core";
import type { CompactionState } from "@contextview/core/store";
import { MIGRATIONS, MIGRATIONS_TABLE } from "../src/migrations.js";
import { SqliteContextStore } from "@contextview/sqlite";
import { TOOL_ONLY, cursorOf, storeHistory } from "@contextview/test-support";
import { useTempDir } from "./support/temp.js";

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

describe("SqliteContextStore", () => {
  const tempDir = useTempDir();
  const stores: SqliteContextStore[] = [];
  const open = (file = join(tempDir(), "evidence.sqlite"), options = {}) => {
    const store = SqliteContextStore.fromConnString(file, options);
    stores.push(store);
    return store;
  };
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
  });

  describe("set-up", () => {
    it("migrates lazily and idempotently, in WAL mode with a busy timeout", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      const first = open(file, { busyTimeoutMs: 1234 });
      await first.load("user", "conv");
      await open(file).load("user", "conv");
      const db = new Database(file, { readonly: true });
      expect(db.prepare(`SELECT v FROM ${MIGRATIONS_TABLE} ORDER BY v`).pluck().all()).toEqual(MIGRATIONS.map((_, v) => v));
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      db.close();
    });

    it("refuses a schema newer than it knows", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      await open(file).load("user", "conv");
      const db = new Database(file);
      db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (v) VALUES (?)`).run(MIGRATIONS.length);
      db.close();
      const error = await rejection(open(file).load("user", "conv"));
      expect(error.code).toBe("STORE_ERROR");
      expect(error.message).toMatch(/newer than this @contextview\/sqlite knows/);
    });

    it("names the missing parent directory", () => {
      const missing = join(tempDir(), "no-such-dir", "evidence.sqlite");
      expect(() => SqliteContextStore.fromConnString(missing)).toThrow(/parent directory of `path` \(.*no-such-dir\) to exist/);
    });

    it.each([
      [{ busyTimeoutMs: -1 }, "`busyTimeoutMs`"],
      [{ maxMessageBytes: 0 }, "`maxMessageBytes`"],
    ])("rejects options %j", (options, field) => {
      expect(() => SqliteContextStore.fromConnString(":memory:", options)).toThrow(field);
    });

    it("never exposes the database handle", () => {
      const db = new Database(":memory:");
      const store = new SqliteContextStore(db);
      expect(store.toJSON()).toEqual({ store: "SqliteContextStore", file: ":memory:" });
      expect(JSON.stringify({ configurable: { store } })).toBe('{"configurable":{"store":{"store":"SqliteContextStore","file":":memory:"}}}');
      expect(Object.values(store)).not.toContain(db);
      expect(inspect(store, { depth: 4 })).not.toMatch(/inTransaction/);
      expect(inspect(db)).toMatch(/inTransaction/);
      store.close();
      expect(db.open).toBe(true);
      db.close();
    });
  });

  describe("evidence", () => {
    it("persists what update returns", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      const state = await open(file).update("user", "conv", storeHistory(5));
      expect(state.cursor).toBe(cursorOf(5));
      expect(JSON.stringify(state)).not.toContain(TOOL_ONLY);
      expect((await open(file).load("user", "conv")).toJSON()).toEqual(state.toJSON());
      expect(state.toJSON()).toEqual((await new InMemoryContextStore().update("user", "conv", storeHistory(5))).toJSON());
    });

    it("ignores repeated and stale snapshots", async () => {
      const store = open();
      const state = await store.update("user", "conv", storeHistory(6));
      expect((await store.update("user", "conv", storeHistory(6))).toJSON()).toEqual(state.toJSON());
      expect((await store.update("user", "conv", storeHistory(2))).toJSON()).toEqual(state.toJSON());
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("throws PREFIX_CHANGED for a changed summarized prefix and keeps the stored state", async () => {
      const store = open();
      const state = await store.update("user", "conv", storeHistory(3));
      const forked = storeHistory(4);
      forked[0] = new HumanMessage({ id: "h0", content: "rewritten" });
      expect((await rejection(store.update("user", "conv", forked))).code).toBe("PREFIX_CHANGED");
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("rebuilds a changed prefix from the snapshot when asked (onPrefixChange: rebuild), as a fresh store would", async () => {
      const store = open();
      await store.update("user", "conv", storeHistory(3));
      const forked = storeHistory(4);
      forked[0] = new HumanMessage({ id: "h0", content: "rewritten: we must keep it short" });
      let rebuilds = 0;
      const state = await store.update("user", "conv", forked, { onPrefixChange: "rebuild", onRebuild: () => void rebuilds++ });
      expect(rebuilds).toBe(1);
      expect(state.toJSON()).toEqual((await open().update("fresh", "conv", forked)).toJSON());
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("keeps tenants apart", async () => {
      const store = open();
      const alice = await store.update("alice", "conv", storeHistory(4));
      expect((await store.load("bob", "conv")).cursor).toBe(0);
      const changed = storeHistory(5);
      changed[0] = new HumanMessage({ id: "h0", content: "bob's own history" });
      await store.update("bob", "conv", changed);
      await store.putCompaction({ userId: "bob", conversationId: "conv" }, compaction);
      await store.deleteConversation("bob", "conv");
      expect((await store.load("alice", "conv")).toJSON()).toEqual(alice.toJSON());
      expect(await store.getCompaction({ userId: "alice", conversationId: "conv" })).toBeNull();
    });

    it.each([
      ["not an array", () => "messages", /`messages` to be an array/],
      ["an id that is not a string", () => [...storeHistory(3), { type: "human", content: "odd id", id: 7 }], /`messages\[13\]\.id`/],
      ["a lone surrogate", () => [...storeHistory(3), new HumanMessage({ id: "s", content: "\udfff" })], /`messages\[13\]\.content` to be well-formed/],
    ])("refuses %s with INVALID_MESSAGES and keeps the state", async (_, input, message) => {
      const store = open(undefined, { maxMessageBytes: 2048 });
      const state = await store.update("user", "conv", storeHistory(3));
      const error = await rejection(store.update("user", "conv", input() as never));
      expect(error.code).toBe("INVALID_MESSAGES");
      expect(error.message).toMatch(message);
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("keys messages without ids by their position and content, the same from one call to the next", async () => {
      const store = open(undefined);
      const idless = () => [...storeHistory(3), { type: "human", content: "no id, but a question" }, { type: "ai", content: "an answer without an id" }, { type: "human", content: "next" }];
      const first = await store.update("user", "idless", idless());
      expect(JSON.stringify(first.toJSON())).toContain("contextview:position:13:");
      expect((await store.update("user", "idless", idless())).toJSON()).toEqual(first.toJSON());
    });

    it("keeps evidence going past a 16 MiB tool result, which it never reads", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      const store = open(file);
      await store.update("user", "conv", storeHistory(1));
      const withHugeResult = (turns: number) => {
        const history = storeHistory(turns);
        history[6] = new ToolMessage({ id: "t1", tool_call_id: "k1", content: `${TOOL_ONLY} ${"r".repeat(16 * 1024 * 1024)}` });
        return history;
      };
      expect((await store.update("user", "conv", withHugeResult(2))).cursor).toBe(cursorOf(2));
      const state = await store.update("user", "conv", withHugeResult(4));
      expect(state.cursor).toBe(cursorOf(4));
      const ids = Object.values(state.buckets).flatMap((entries) => entries.map((entry) => entry.messageId));
      expect(ids).toEqual(expect.arrayContaining(["h2", "a2", "h3", "a3"]));
      expect(state.unreadable).toBe(0);
      expect(JSON.stringify(state)).not.toContain(TOOL_ONLY);
      const reopened = open(file);
      expect((await reopened.load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("counts a user message over maxMessageBytes as unreadable, stores the count and reads on", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      const store = open(file, { maxMessageBytes: 2048 });
      await store.update("user", "conv", storeHistory(1));
      const history = storeHistory(3);
      history[4] = new HumanMessage({ id: "h1", content: `We must ${"x".repeat(4096)}` });
      const state = await store.update("user", "conv", history);
      expect(state.cursor).toBe(cursorOf(3));
      expect(state.unreadable).toBe(1);
      expect(state.buckets.constraints.map((entry) => entry.messageId)).not.toContain("h1");
      expect((await open(file, { maxMessageBytes: 2048 }).load("user", "conv")).toJSON()).toEqual(state.toJSON());
    });

    it("rolls back a failed transaction", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      const store = open(file);
      const state = await store.update("user", "conv", storeHistory(2));
      const db = new Database(file);
      db.exec("CREATE TRIGGER fail_update BEFORE UPDATE ON contextview_evidence BEGIN SELECT RAISE(ABORT, 'disk on fire'); END");
      const error = await rejection(store.update("user", "conv", storeHistory(4)));
      expect(error.code).toBe("STORE_ERROR");
      expect(error.message).toMatch(/could not write evidence: disk on fire/);
      expect((await store.load("user", "conv")).toJSON()).toEqual(state.toJSON());
      db.exec("DROP TRIGGER fail_update");
      db.close();
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
      const file = join(tempDir(), "evidence.sqlite");
      const store = open(file);
      await store.update("user", "conv", storeHistory(2));
      const db = new Database(file);
      db.prepare("UPDATE contextview_evidence SET state = ? WHERE user_id = ?").run("{not json", "user");
      db.close();
      const error = await rejection(store.load("user", "conv"));
      expect(error.code).toBe("STORE_ERROR");
      expect(error.message).toMatch(/stored evidence of this conversation is unreadable/);
    });
  });

  describe("compaction state", () => {
    it("round-trips through the file, lone surrogates included", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      const store = open(file);
      expect(await store.getCompaction(key)).toBeNull();
      await store.putCompaction(key, compaction);
      store.close();
      expect(await open(file).getCompaction(key)).toEqual(compaction);
    });

    it("treats a store error as no cache and reports it", async () => {
      const file = join(tempDir(), "evidence.sqlite");
      const reported: ContextViewError[] = [];
      const store = open(file, { onCompactionError: (error: ContextViewError) => reported.push(error) });
      await store.putCompaction(key, compaction);
      const db = new Database(file);
      db.prepare("UPDATE contextview_compaction SET state = ?").run("[]");
      db.exec("CREATE TRIGGER fail_put BEFORE UPDATE ON contextview_compaction BEGIN SELECT RAISE(ABORT, 'read-only volume'); END");
      db.close();
      await expect(store.getCompaction(key)).resolves.toBeNull();
      await expect(store.putCompaction(key, compaction)).resolves.toBeUndefined();
      expect(reported.map((error) => [error.code, error.details["operation"]])).toEqual([
        ["STORE_ERROR", "read compaction state"],
        ["STORE_ERROR", "write compaction state"],
      ]);
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
    });
  });
});
