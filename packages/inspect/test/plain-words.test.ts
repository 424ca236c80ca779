// Issue 49, item 9: the inspector says in words why nothing was recalled and what a call's
// compaction did, and an unknown thread is answered with the threads that exist.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runInspectCli } from "../src/run-cli.js";
import { SqliteContextStore } from "@contextview/sqlite";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { HumanMessage } from "@langchain/core/messages";
import { MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

describe("contextview inspect --thread <unknown>", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "inspect-words-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names the threads the checkpoints hold", async () => {
    const path = join(dir, "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(path);
    const graph = new StateGraph(MessagesAnnotation).addNode("echo", () => ({ messages: [] })).addEdge(START, "echo").compile({ checkpointer: saver });
    await graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "real-thread" } });
    const store = SqliteContextStore.nextTo(saver);
    await store.load("u1", "real-thread");
    store.close();
    const lines: string[] = [];
    const code = await runInspectCli(["inspect", "--checkpoints", path, "--thread", "nope", "--out", join(dir, "page.html")], { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    expect(code).toBe(1);
    expect(lines.join("\n")).toContain('threads in the checkpoints: "real-thread"');
  });
});
