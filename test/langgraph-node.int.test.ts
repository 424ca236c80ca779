import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { chatModelSummarizer, type Summarizer } from "@contextview/core";
import { SqliteContextStore } from "@contextview/sqlite";
import { createContextNode, deleteConversation, type ContextBudgetRecord, type ContextLogRecord } from "@contextview/langgraph";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { callProblems, RecordingChatModel, searchTool } from "@contextview/test-support";
import { customGraph } from "./support/custom-graph.js";
import { blobsContaining, checkpointBytes, configFor, expectedMessages, useTempDir, userTurn } from "./support/thread.js";

const ROOT = resolve(__dirname, "..");
const TURNS = 100;
const BUDGET = { contextWindow: 16384, promptBudget: 4000 };
const LIMIT = 4000;

/** Alice's 100-turn thread through the custom StateGraph; returns what the test inspects. */
async function runThread(dir: string) {
  const file = join(dir, "checkpoints.sqlite");
  const saver = SqliteSaver.fromConnString(file);
  const store = SqliteContextStore.nextTo(saver);
  const model = new RecordingChatModel();
  const records: ContextLogRecord[] = [];
  let summarizerCalls = 0;
  const inner = chatModelSummarizer(new FakeListChatModel({ responses: ["Goal: keep rent under 900. Decisions: cut dining out."] }));
  const summarizer: Summarizer = async (transcript, context) => {
    summarizerCalls++;
    return inner(transcript, context);
  };
  const node = createContextNode({ store, budget: BUDGET, summarizer, tools: [searchTool(8)], logger: { info: (r) => void records.push(r), warn: (r) => void records.push(r) } });
  const graph = customGraph(model, saver, node);
  // "exit" durability: one checkpoint per invoke keeps 100 turns fast; the view channel is tested all the same.
  for (let i = 0; i < TURNS; i++) await graph.invoke({ messages: [userTurn(i)] }, { ...configFor("thread", "alice"), durability: "exit" });
  return { file, saver, store, model, records, graph, node, summarizerCalls: () => summarizerCalls };
}

describe("createContextNode in a StateGraph with SqliteSaver and SqliteContextStore.nextTo", () => {
  const tempDir = useTempDir();

  it("bounds every view over 100 turns with parallel tool calls, keeps the checkpoint whole, and survives a new process", async () => {
    const run = await runThread(tempDir());

    // The model never received a view over budget or with a broken exchange.
    expect(run.model.calls.length).toBe(2 * TURNS);
    expect(callProblems({ limit: LIMIT, tools: [searchTool(8)], requireUserMessage: true }, run.model.calls)).toEqual([]);
    const budgets = run.records.filter((r): r is ContextBudgetRecord => r.event === "context_budget");
    expect(budgets).toHaveLength(2 * TURNS);
    expect(budgets.every((r) => r.estimatedTokens <= r.limit)).toBe(true);
    expect(budgets.some((r) => r.compaction === "summary")).toBe(true);
    expect(run.summarizerCalls()).toBeGreaterThan(0);

    // The checkpoint keeps every message, whole: every user turn and every tool result as the tool returned it.
    const state = await run.graph.getState(configFor("thread", "alice"));
    const messages = state.values.messages as BaseMessage[];
    expect(messages).toHaveLength(expectedMessages(TURNS));
    expect(messages.filter((m) => m.type === "human").map((m) => m.id)).toEqual(Array.from({ length: TURNS }, (_, i) => `user-${i}`));
    expect(messages.filter((m) => m.type === "tool").every((m) => (JSON.parse(String(m.content)) as { rows: unknown[] }).rows.length === 8)).toBe(true);

    // The view is never persisted: its evidence envelope and summary are in no checkpoint blob nor write
    // (test/support/measure-checkpoints.ts measures the bytes with and without the node).
    expect(run.model.calls.some((view) => view.some((m) => String(m.content).includes("contextview_evidence")))).toBe(true);
    expect(blobsContaining(run.file, "thread", "contextview_evidence")).toBe(0);
    expect(blobsContaining(run.file, "thread", "rent under 900. Decisions")).toBe(0);

    // A per-request override changes the view; an invalid one fails before any model call.
    const calls = run.model.calls.length;
    await run.graph.invoke({ messages: [userTurn(TURNS)] }, { ...configFor("thread", "alice", { budget: { promptBudget: 1500 } }), durability: "exit" });
    const narrow = budgets.length;
    const overridden = run.records.filter((r): r is ContextBudgetRecord => r.event === "context_budget").slice(narrow);
    expect(overridden.length).toBe(2);
    expect(overridden.every((r) => r.limit <= 1500 && r.estimatedTokens <= r.limit)).toBe(true);
    // Smaller than the same call of the turn before at the factory's budget. Measured in tokens, not
    // messages: the count moves with the evidence text, which quotes random message ids.
    expect(overridden[0]!.estimatedTokens).toBeLessThan(budgets[budgets.length - 2]!.estimatedTokens);
    expect(budgets[budgets.length - 2]!.limit).toBeGreaterThan(1500);
    await expect(
      run.graph.invoke({ messages: [new HumanMessage("more")] }, { ...configFor("thread", "alice", { budget: { promptBudget: -1 } }), durability: "exit" }),
    ).rejects.toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: "context.budget.promptBudget" });
    expect(run.model.calls.length).toBe(calls + 2);

    // A new process on the same files continues with the same evidence and summary cache.
    const evidence = (await run.store.load("alice", "thread")).toJSON();
    const compaction = await run.store.getCompaction({ userId: "alice", conversationId: "thread" });
    const before = (await run.graph.getState(configFor("thread", "alice"))).values.messages.length;
    const child = await runChild([run.file, "thread", "alice", String(TURNS + 1)]);
    expect(child.evidenceBefore).toEqual(evidence);
    expect(child.compactionBefore).toEqual(compaction);
    expect(child.firstBudget).toMatchObject({ summaryCacheHit: true, summarizerCalls: 0, historyIncluded: true, historySummary: true });
    expect(child.messagesAfter).toBe(before + expectedMessages(1, TURNS + 1));
    expect(child.cursorAfter).toBeGreaterThan(evidence.cursor);

    // Deleting the conversation removes checkpoints and context state together.
    await deleteConversation({ checkpointer: run.saver, store: run.store }, { userId: "alice", threadId: "thread" });
    expect(checkpointBytes(run.file, "thread").checkpoints).toBe(0);
    expect((await run.store.load("alice", "thread")).cursor).toBe(0);
    expect(await run.store.getCompaction({ userId: "alice", conversationId: "thread" })).toBeNull();
    run.store.close();
  });

  // All the evidence that fits (evidenceShare 1): at 1,500 tokens a tenth holds no excerpt, and whose evidence each view shows is what is checked.
  it("keeps two users on the same thread id apart", async () => {
    const store = SqliteContextStore.fromConnString(join(tempDir(), "context.sqlite"));
    const graphs = ["alice", "bob"].map((user) => {
      const model = new RecordingChatModel();
      const saver = SqliteSaver.fromConnString(join(tempDir(), `${user}.sqlite`));
      return { user, model, graph: customGraph(model, saver, createContextNode({ store, budget: { contextWindow: 16384, promptBudget: 1500 }, view: { evidenceShare: 1 } })) };
    });
    for (let i = 0; i < 12; i++) {
      for (const { user, graph } of graphs) {
        const turn = userTurn(i);
        turn.content = `${String(turn.content)} secret-of-${user}`;
        await graph.invoke({ messages: [turn] }, { ...configFor("shared", user), durability: "exit" });
      }
    }
    for (const { user, model } of graphs) {
      const other = user === "alice" ? "bob" : "alice";
      const seen = JSON.stringify(model.calls.map((view) => view.map((m) => m.content)));
      expect(seen).toContain("contextview_evidence");
      expect(seen).not.toContain(`secret-of-${other}`);
      expect(JSON.stringify(await store.load(user, "shared"))).not.toContain(`secret-of-${other}`);
    }
    store.close();
  });
});

function runChild(args: string[]): Promise<{
  evidenceBefore: unknown;
  compactionBefore: unknown;
  firstBudget: ContextBudgetRecord;
  messagesAfter: number;
  cursorAfter: number;
}> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(join(ROOT, "node_modules/.bin/tsx"), [join(__dirname, "children/continue-thread.ts"), ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => (code === 0 ? resolveRun(JSON.parse(stdout.trim().split("\n").pop() ?? "{}")) : reject(new Error(`child exited ${code}: ${stderr}`))));
  });
}
