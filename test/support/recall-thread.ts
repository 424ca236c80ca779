// A 300-turn thread with one fact in turn 3, asked about in turn 300, on a real graph:
// shared by recall-graph.int.test.ts and its child process (test/children/recall-replica.ts).
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import type { ContextStore, ManagedReport } from "@contextview/core";
import { RECALL_LABEL } from "../../packages/core/src/view/recall.js";
import { createContextNode } from "@contextview/langgraph";
import { RecordingChatModel } from "@contextview/test-support";
import { customGraph } from "./custom-graph.js";
import { configFor } from "./thread.js";

export const TURNS = 300;
export const THREAD = "recall-300";
export const USER = "alice";
export const FACT = "My sister Ingrid's birthday is on the 14th of March, and she loves orchids.";
export const QUESTION = "When is my sister Ingrid's birthday again?";
/** The answer only turn 3 holds. */
export const NEEDLE = "14th of March";
/** At 4,000 tokens the view holds a few dozen of the 300 turns: turn 3 is far outside it. */
export const BUDGET = { contextWindow: 16384, promptBudget: 4000 };
/**
 * `recallBudget` 1000 is the default, given here explicitly: the question's turn and the three
 * before it call no tool, so the relevance stage runs.
 * Calibration off: it learns from the model's usage in process memory, so a cold replica
 * would estimate differently from a warm one for a reason that is not the index.
 */
export const RECALL_OPTIONS = { budget: BUDGET, view: { recallBudget: 1000 }, advanced: { calibrate: false } } as const;

const TOPICS = ["the garden shed", "a sourdough starter", "the quarterly budget", "a bike repair", "the kitchen tiles", "a chess opening", "the water heater", "a podcast episode", "the tax return", "a hiking trail"];

/** Turn `t` (1-based) of the history: small talk on rotating topics; every tenth a search call; turn 3 holds the fact. */
function turn(t: number): BaseMessage[] {
  const topic = TOPICS[t % TOPICS.length] as string;
  const user = new HumanMessage({ id: `u-${t}`, content: t === 3 ? `Something to remember: ${FACT}` : `Turn ${t}: tell me one more thing about ${topic}, item ${t * 7}.` });
  const answer = new AIMessage({ id: `a-${t}`, content: t === 3 ? "Noted." : `About ${topic} (item ${t * 7}): check it once a week and write down what changed.` });
  if (t % 10 !== 0) return [user, answer];
  const id = `call-${t}`;
  const call = new AIMessage({ id: `c-${t}`, content: "", tool_calls: [{ id, name: "search_transactions", args: { query: topic, limit: 3 }, type: "tool_call" }] });
  const result = new ToolMessage({ id: `r-${t}`, tool_call_id: id, name: "search_transactions", content: JSON.stringify({ query: topic, rows: [{ id: `row-${t}`, amount: t * 1.5, memo: `payment for ${topic}` }] }) });
  return [user, call, result, answer];
}

/** Turns 1 to `last` of the history, in order. */
export function history(last: number): BaseMessage[] {
  return Array.from({ length: last }, (_, i) => turn(i + 1)).flat();
}

/** One replica: its own model, context node and graph on `saver` and `store`. */
export function recallReplica(saver: BaseCheckpointSaver, store: ContextStore) {
  const model = new RecordingChatModel();
  const reports: ManagedReport[] = [];
  const node = createContextNode({ store, ...RECALL_OPTIONS, onReport: (report) => void reports.push(report) });
  const graph = customGraph(model, saver, node);
  return { model, node, graph, reports };
}

export const recallConfig = () => ({ ...configFor(THREAD, USER), durability: "exit" as const });

/** Runs the question's view and model call again from its checkpoint (a fork), with request settings `context`. */
export async function replayQuestion(replica: ReturnType<typeof recallReplica>, checkpointId: string, context?: Record<string, unknown>): Promise<void> {
  const config = { ...configFor(THREAD, USER, context), durability: "exit" as const };
  await replica.graph.invoke(null, { ...config, configurable: { ...config.configurable, checkpoint_id: checkpointId } });
  await replica.node.drain();
}

/**
 * Writes turns 1–298 with one `updateState` (LangGraph serializes the whole message list
 * at every checkpoint, so 300 graph turns would cost O(n²)), runs turn 299 through the
 * graph (the index then grows by appending) and asks the question as turn 300.
 * Returns the id of the checkpoint the question's model call was made from.
 */
export async function writeThreadAndAsk(replica: ReturnType<typeof recallReplica>): Promise<string> {
  const { graph } = replica;
  await graph.updateState(recallConfig(), { messages: history(TURNS - 2) }, "model");
  await graph.invoke({ messages: [new HumanMessage({ id: `u-${TURNS - 1}`, content: `Turn ${TURNS - 1}: anything else about ${TOPICS[0]}?` })] }, recallConfig());
  // Every step checkpointed: the cold replica replays the one before the question's view.
  await graph.invoke({ messages: [new HumanMessage({ id: "question", content: QUESTION })] }, { ...recallConfig(), durability: "sync" });
  await replica.node.drain();
  return questionCheckpoint(graph);
}

/** The checkpoint whose next node is the context node and whose newest message is the question. */
async function questionCheckpoint(graph: ReturnType<typeof recallReplica>["graph"]): Promise<string> {
  for await (const snapshot of graph.getStateHistory(recallConfig())) {
    const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
    if (snapshot.next.includes("context") && messages.at(-1)?.id === "question") return snapshot.config.configurable?.["checkpoint_id"] as string;
  }
  throw new Error("no checkpoint before the question's view");
}

/** What a test compares of one view: each message's type, id and text. */
export function viewOf(messages: readonly BaseMessage[]): { type: string; id: string | undefined; text: string }[] {
  return messages.map((m) => ({ type: m.type, id: m.id, text: typeof m.content === "string" ? m.content : JSON.stringify(m.content) }));
}

/** The recalled block of a view (the message after the recall label), or undefined. */
export function recalledText(view: readonly { text: string }[]): string | undefined {
  const at = view.findIndex((m) => m.text.includes(RECALL_LABEL));
  return at < 0 ? undefined : view[at + 1]?.text;
}
