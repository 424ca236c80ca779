import { existsSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ContextViewError } from "@contextview/core";
import { STORE_PATH_ENV, SqliteContextStore, sidecarPath } from "@contextview/sqlite";
import { useTempDir } from "./support/temp.js";

function tables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  } finally {
    db.close();
  }
}

function count(file: string, sql: string, ...params: string[]): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare(sql).pluck().get(...params) as number;
  } finally {
    db.close();
  }
}

describe("sidecarPath", () => {
  it.each([
    ["/data/checkpoints.sqlite", "/data/checkpoints.contextview.sqlite"],
    ["/data/graph.db", "/data/graph.contextview.sqlite"],
    ["/data/state", "/data/state.contextview.sqlite"],
  ])("puts the store for %s at %s", (checkpoint, sidecar) => {
    expect(sidecarPath(checkpoint)).toBe(sidecar);
  });
});

describe("SqliteContextStore.nextTo", () => {
  const tempDir = useTempDir();

  it("throws a typed error naming the store to use beside a MemorySaver", () => {
    let error: unknown;
    try {
      SqliteContextStore.nextTo(new MemorySaver() as never);
    } catch (caught) {
      error = caught;
    }
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field: "saver" } });
    expect((error as Error).message).toMatch(/got a MemorySaver; beside a MemorySaver use `new InMemoryContextStore\(\)`.*`SqliteContextStore.fromConnString\(path\)`/);
  });
  const FORMER_ENV = "CONVERSATION_SUMMARY_DB_PATH";
  const savedEnv = process.env[FORMER_ENV];
  afterEach(() => {
    if (savedEnv === undefined) delete process.env[FORMER_ENV];
    else process.env[FORMER_ENV] = savedEnv;
  });

  it("opens a sidecar file beside the checkpointer's", async () => {
    delete process.env[FORMER_ENV];
    const saver = SqliteSaver.fromConnString(join(tempDir(), "checkpoints.sqlite"));
    const store = SqliteContextStore.nextTo(saver);
    expect(store.file).toBe(join(tempDir(), "checkpoints.contextview.sqlite"));
    store.close();
    saver.db.close();
  });

  it("refuses the 0.x variable CONVERSATION_SUMMARY_DB_PATH alone, saying to rename it, and opens nothing", async () => {
    const saver = SqliteSaver.fromConnString(join(tempDir(), "checkpoints.sqlite"));
    process.env[FORMER_ENV] = join(tempDir(), "summaries.sqlite");
    try {
      let error: unknown;
      try {
        SqliteContextStore.nextTo(saver);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field: FORMER_ENV } });
      expect((error as Error).message).toContain(`rename it to \`CONTEXTVIEW_STORE_PATH\` (CONTEXTVIEW_STORE_PATH=${join(tempDir(), "summaries.sqlite")})`);
      expect(existsSync(join(tempDir(), "summaries.sqlite"))).toBe(false);
      expect(existsSync(join(tempDir(), "checkpoints.contextview.sqlite"))).toBe(false);
    } finally {
      delete process.env[FORMER_ENV];
      saver.db.close();
    }
  });

  it("follows CONTEXTVIEW_STORE_PATH (the 0.x name beside it is not read), and names it when its directory is missing", async () => {
    const saver = SqliteSaver.fromConnString(join(tempDir(), "checkpoints.sqlite"));
    process.env[FORMER_ENV] = join(tempDir(), "summaries.sqlite");
    process.env[STORE_PATH_ENV] = join(tempDir(), "store.sqlite");
    try {
      const store = SqliteContextStore.nextTo(saver);
      expect(store.file).toBe(join(tempDir(), "store.sqlite"));
      store.close();
      process.env[STORE_PATH_ENV] = join(tempDir(), "missing", "store.sqlite");
      expect(() => SqliteContextStore.nextTo(saver)).toThrow(/`CONTEXTVIEW_STORE_PATH` \(.*missing\) to exist/);
    } finally {
      delete process.env[STORE_PATH_ENV];
      delete process.env[FORMER_ENV];
      saver.db.close();
    }
  });

  it("gives an in-memory saver an in-memory store", async () => {
    delete process.env[FORMER_ENV];
    const saver = SqliteSaver.fromConnString(":memory:");
    const store = SqliteContextStore.nextTo(saver);
    expect(store.file).toBe(":memory:");
    expect((await store.update("u", "t", [new HumanMessage({ id: "a", content: "hi" }), new HumanMessage({ id: "b", content: "again" })])).cursor).toBe(1);
    store.close();
  });

  it("refuses something that is not a SqliteSaver", () => {
    expect(() => SqliteContextStore.nextTo({} as never)).toThrow("Expected `saver` to be a SqliteSaver");
  });

  it("works beside a real SqliteSaver, and deleting a thread through both leaves nothing of it", async () => {
    delete process.env[FORMER_ENV];
    const checkpointFile = join(tempDir(), "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(checkpointFile);
    const store = SqliteContextStore.nextTo(saver);
    let calls = 0;
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("model", async () => ({ messages: [new AIMessage(`We decided on plan ${++calls}.`)] }))
      .addEdge(START, "model")
      .addEdge("model", END)
      .compile({ checkpointer: saver });

    const turn = async (threadId: string, text: string) => {
      const config = { configurable: { thread_id: threadId } };
      const before = ((await saver.getTuple(config))?.checkpoint.channel_values["messages"] ?? []) as BaseMessage[];
      const request = new HumanMessage({ id: `${threadId}-${before.length}`, content: text });
      // The store sees the checkpoint plus the new request, before the model call.
      const state = await store.update("user", threadId, [...before, request]);
      await graph.invoke({ messages: [request] }, config);
      return state;
    };
    await turn("t1", "We must ship by Friday.");
    const second = await turn("t1", "And the budget?");
    await turn("t1", "Thanks.");
    await turn("t2", "Unrelated thread.");
    await turn("t2", "Still unrelated.");
    expect(second.cursor).toBe(2);
    expect((await store.load("user", "t1")).cursor).toBe(4);
    expect(second.asMessage()?.content).toContain("We must ship by Friday.");

    expect(tables(checkpointFile)).toEqual(["checkpoints", "writes"]);
    expect(tables(store.file)).toEqual(["contextview_compaction", "contextview_evidence", "contextview_migrations", "contextview_view_inputs", "contextview_views"]);

    await store.putCompaction({ userId: "user", conversationId: "t1" }, { version: 1, summary: null, failures: 1 });
    await saver.deleteThread("t1");
    await store.deleteConversation("user", "t1");
    for (const table of ["checkpoints", "writes"]) expect(count(checkpointFile, `SELECT COUNT(*) FROM ${table} WHERE thread_id = ?`, "t1")).toBe(0);
    for (const table of ["contextview_evidence", "contextview_compaction"]) {
      expect(count(store.file, `SELECT COUNT(*) FROM ${table} WHERE conversation_id = ?`, "t1")).toBe(0);
    }
    expect(count(checkpointFile, "SELECT COUNT(*) FROM checkpoints WHERE thread_id = ?", "t2")).toBeGreaterThan(0);
    expect((await store.load("user", "t2")).cursor).toBe(2);

    store.close();
    saver.db.close();
    expect(existsSync(join(tempDir(), "checkpoints.contextview.sqlite"))).toBe(true);
  });
});
