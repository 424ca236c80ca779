// Evidence follows the checkpoint it is given: LangGraph time travel (a fork from an
// earlier checkpoint) and concurrent invokes on one thread, in a real graph with
// SqliteSaver and SqliteContextStore.
import { join } from "node:path";
import { EVIDENCE_BUCKETS } from "@contextview/core/internal";
import type { EvidenceState } from "@contextview/core/store";
import { SqliteContextStore } from "@contextview/sqlite";
import { CONTEXT_REPORT_EVENT, createContextNode, type ContextLogRecord, type ContextReportEvent } from "@contextview/langgraph";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { RecordingChatModel } from "@contextview/test-support";
import { customGraph } from "./support/custom-graph.js";
import { configFor, expectedMessages, useTempDir, userTurn } from "./support/thread.js";

const BUDGET = { contextWindow: 32768, promptBudget: 12000 };

function setUp(dir: string, evidence: "update" | "background" = "update") {
  const saver = SqliteSaver.fromConnString(join(dir, "checkpoints.sqlite"));
  const store = SqliteContextStore.nextTo(saver);
  const model = new RecordingChatModel();
  const records: ContextLogRecord[] = [];
  const reports: ContextReportEvent["report"][] = [];
  const node = createContextNode({ store, evidence, budget: BUDGET, logger: { info: (r) => void records.push(r), warn: (r) => void records.push(r) } });
  const graph = customGraph(model, saver, node);
  const callbacks = [{ handleCustomEvent: (name: string, data: unknown) => void (name === CONTEXT_REPORT_EVENT && reports.push((data as ContextReportEvent).report)) }];
  const config = (extra: Record<string, unknown> = {}) => {
    const base = configFor("thread", "alice");
    return { ...base, configurable: { ...base.configurable, ...extra }, callbacks };
  };
  return { saver, store, model, records, reports, node, graph, config };
}

/** A user turn with its own ids, so one branch's messages are never confused with another's. */
const branchTurn = (branch: string, i: number) =>
  new HumanMessage({ id: `${branch}-user-${i}`, content: `Turn ${i} of ${branch}: we must keep the ${branch} budget. Let's decide to close ${branch}. [tools:1]` });

/** True when the stored state describes a prefix of these messages: cursor inside, every excerpt's id at its index. */
function describes(state: EvidenceState, messages: readonly BaseMessage[]): boolean {
  if (state.cursor > messages.length) return false;
  return EVIDENCE_BUCKETS.every((bucket) => state.buckets[bucket].every((entry) => messages[entry.index]?.id === entry.messageId));
}

/** Message ids the evidence message of a view quotes. */
function quotedIds(view: readonly BaseMessage[]): string[] {
  const evidence = view.find((m) => typeof m.id === "string" && m.id.startsWith("contextview-evidence-"));
  if (!evidence) return [];
  return [...String(evidence.content).matchAll(/"messageId":"([^"]+)"/g)].map((match) => match[1] as string);
}

describe("evidence on forks and concurrent runs (SqliteSaver, SqliteContextStore)", () => {
  const tempDir = useTempDir();

  it("rebuilds from the checkpoint after a time-travel fork and never fails for the thread again", async () => {
    const run = setUp(tempDir());
    for (let i = 0; i < 6; i++) await run.graph.invoke({ messages: [userTurn(i)] }, run.config());
    const before = await run.store.load("alice", "thread");
    expect(before.cursor).toBeGreaterThan(expectedMessages(3));

    // LangGraph time travel: the checkpoint where turn 2 had finished, then a new turn from it.
    const history = [];
    for await (const snapshot of run.graph.getStateHistory(run.config())) history.push(snapshot);
    const fork = history.find((s) => (s.values.messages as BaseMessage[]).length === expectedMessages(3) && s.next.length === 0);
    expect(fork).toBeDefined();
    const forkId = fork?.config.configurable?.["checkpoint_id"] as string;
    const callsBefore = run.model.calls.length;
    await run.graph.invoke({ messages: [branchTurn("fork", 3)] }, run.config({ checkpoint_id: forkId }));
    for (let i = 4; i < 7; i++) await run.graph.invoke({ messages: [branchTurn("fork", i)] }, run.config());

    const messages = (await run.graph.getState(run.config())).values.messages as BaseMessage[];
    expect(messages.some((m) => m.id === "user-4")).toBe(false);
    expect(messages.some((m) => m.id === "fork-user-3")).toBe(true);
    // No evidence error, ever; the store describes the fork the checkpoint holds.
    expect(run.records.filter((r) => r.event === "context_evidence_error")).toEqual([]);
    const after = await run.store.load("alice", "thread");
    expect(describes(after, messages)).toBe(true);
    expect(after.buckets.constraints.concat(after.buckets.decisions).some((entry) => entry.messageId.startsWith("fork-"))).toBe(true);
    // Every view after the fork quotes only messages of its own branch.
    const forkViews = run.model.calls.slice(callsBefore);
    const abandoned = new Set(["user-3", "user-4", "user-5"]);
    expect(forkViews.flatMap(quotedIds).filter((id) => abandoned.has(id))).toEqual([]);
    // The rebuild is counted in the report, and it read at most the snapshot it was given.
    const rebuilt = run.reports.filter((r) => r.evidence?.rebuilt);
    expect(rebuilt.length).toBeGreaterThanOrEqual(1);
    expect(rebuilt.every((r) => (r.evidence?.rebuiltMessages ?? 0) <= r.messages.inCheckpoint)).toBe(true);
    expect(run.records.some((r) => r.event === "context_budget" && r.evidenceRebuiltMessages > 0)).toBe(true);
    // Evidence came back: every message it quotes is in the last view, quoted by its evidence
    // or shown itself (evidence never repeats what the view shows).
    const last = run.model.calls[run.model.calls.length - 1] as BaseMessage[];
    const quoted = EVIDENCE_BUCKETS.flatMap((bucket) => after.buckets[bucket].map((entry) => entry.messageId));
    expect(quoted.length).toBeGreaterThan(0);
    const shownIds = new Set(last.map((m) => m.id));
    for (const id of quoted) expect({ id, seen: shownIds.has(id) !== quotedIds(last).includes(id) }).toEqual({ id, seen: true });
    run.store.close();
  });

  it("keeps evidence consistent with the checkpoint under concurrent invokes on one thread", async () => {
    const run = setUp(tempDir());
    for (let i = 0; i < 4; i++) await run.graph.invoke({ messages: [userTurn(i)] }, run.config());
    for (let round = 0; round < 3; round++) {
      // Two runs from the same checkpoint: the thread keeps one branch.
      await Promise.all(["a", "b"].map((branch) => run.graph.invoke({ messages: [branchTurn(`${branch}${round}`, 10 + round)] }, run.config())));
      const messages = (await run.graph.getState(run.config())).values.messages as BaseMessage[];
      // Once both runs are done, the next turn sees evidence of its own checkpoint only.
      const callsBefore = run.model.calls.length;
      await run.graph.invoke({ messages: [branchTurn(`next${round}`, 20 + round)] }, run.config());
      const latest = (await run.graph.getState(run.config())).values.messages as BaseMessage[];
      const held = new Set(latest.map((m) => m.id));
      expect(run.model.calls.slice(callsBefore).flatMap(quotedIds).filter((id) => !held.has(id))).toEqual([]);
      expect(describes(await run.store.load("alice", "thread"), latest)).toBe(true);
      expect(messages.length).toBeGreaterThan(0);
    }
    expect(run.records.filter((r) => r.event === "context_evidence_error")).toEqual([]);
    run.store.close();
  });

  it("in background mode, leaves stored evidence of another branch out of the view until it is rebuilt", async () => {
    const run = setUp(tempDir(), "background");
    for (let i = 0; i < 6; i++) {
      await run.graph.invoke({ messages: [userTurn(i)] }, run.config());
      await run.node.drain();
    }
    const history = [];
    for await (const snapshot of run.graph.getStateHistory(run.config())) history.push(snapshot);
    const fork = history.find((s) => (s.values.messages as BaseMessage[]).length === expectedMessages(3) && s.next.length === 0);
    const callsBefore = run.model.calls.length;
    await run.graph.invoke({ messages: [branchTurn("fork", 3)] }, run.config({ checkpoint_id: fork?.config.configurable?.["checkpoint_id"] }));
    await run.node.drain();
    await run.graph.invoke({ messages: [branchTurn("fork", 4)] }, run.config());
    await run.node.drain();
    const abandoned = new Set(["user-3", "user-4", "user-5"]);
    expect(run.model.calls.slice(callsBefore).flatMap(quotedIds).filter((id) => abandoned.has(id))).toEqual([]);
    expect(run.records.filter((r) => r.event === "context_evidence_error")).toEqual([]);
    const messages = (await run.graph.getState(run.config())).values.messages as BaseMessage[];
    expect(describes(await run.store.load("alice", "thread"), messages)).toBe(true);
    run.store.close();
  });
});
