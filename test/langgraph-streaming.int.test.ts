import { chatModelSummarizer, type Summarizer } from "@contextview/core";
import { createContextNode, withContext } from "@contextview/langgraph";
import type { AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ContextViewAnnotation } from "@contextview/langgraph";
import { RecordingChatModel } from "@contextview/test-support";
import { configFor, userTurn } from "./support/thread.js";

const SUMMARY = "SUMMARYTOKEN alpha SUMMARYTOKEN beta";
const BUDGET = { contextWindow: 16384, promptBudget: 1200 };
// The 300-token opening request, pinned, would leave the evidence no room in 1,200 tokens, and
// the manager does not summarize when the evidence does not fit: these tests need the summarizer.
const NO_PIN = { view: { pinOpeningRequest: false } };
const State = Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec });

function counting(): { summarizer: Summarizer; calls: () => number } {
  let calls = 0;
  const inner = chatModelSummarizer(new FakeListChatModel({ responses: [SUMMARY] }));
  return { summarizer: async (t, c) => (calls++, inner(t, c)), calls: () => calls };
}

/** Long text-only turns (no tools), so the summarizer must run. */
function turn(i: number) {
  const message = userTurn(i);
  message.content = `${String(message.content).replace(/\[tools:\d\]/, "")} ${"detail ".repeat(120)}`;
  return message;
}

/** Text of the streamed message events, per emitting node; and whether any came from a summarizer run. */
async function streamed(graph: { stream: (input: unknown, config: RunnableConfig & { streamMode: "messages" }) => Promise<AsyncIterable<[AIMessageChunk, Record<string, unknown>]>> }) {
  const byNode: Record<string, string> = {};
  let summarizerEvents = 0;
  for (let i = 0; i < 14; i++) {
    for await (const [chunk, metadata] of await graph.stream({ messages: [turn(i)] }, { ...configFor("thread", "alice"), streamMode: "messages" })) {
      const node = String(metadata["langgraph_node"]);
      byNode[node] = (byNode[node] ?? "") + String(chunk.content);
      if ((metadata["tags"] as string[] | undefined)?.includes("contextview:summarizer")) summarizerEvents++;
    }
  }
  return { byNode, summarizerEvents };
}

describe('streamMode: "messages"', () => {
  it("emits the model's tokens and never the summarizer's (pre-model node)", async () => {
    const { summarizer, calls } = counting();
    const model = new RecordingChatModel({ answerWords: 200 });
    const graph = new StateGraph(State)
      .addNode("context", createContextNode({ budget: BUDGET, summarizer, ...NO_PIN }))
      .addNode("model", async (state, config) => ({ messages: [await model.invoke(state.llmInputMessages, config)] }))
      .addEdge(START, "context")
      .addEdge("context", "model")
      .addEdge("model", END)
      .compile({ checkpointer: new MemorySaver() });
    const { byNode, summarizerEvents } = await streamed(graph as never);
    expect(calls()).toBeGreaterThan(0);
    expect(summarizerEvents).toBe(0);
    expect(byNode["model"]).toContain("Answer 14: word0 word1");
    expect(byNode["model"]).not.toContain("SUMMARYTOKEN");
    // LangGraph streams every message a node returns: the context node's view (with the summary
    // message) appears under langgraph_node "context", never as tokens of the model.
    expect(Object.keys(byNode).sort()).toEqual(["context", "model"]);
  });

  it("emits the model's tokens and never the summarizer's (withContext in the model node)", async () => {
    const { summarizer, calls } = counting();
    const model = withContext(new RecordingChatModel({ answerWords: 200 }), { budget: BUDGET, summarizer, ...NO_PIN });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("model", async (state, config) => ({ messages: [(await model.invoke(state.messages, config)) as BaseMessage] }))
      .addEdge(START, "model")
      .addEdge("model", END)
      .compile({ checkpointer: new MemorySaver() });
    const { byNode, summarizerEvents } = await streamed(graph as never);
    expect(calls()).toBeGreaterThan(0);
    expect(summarizerEvents).toBe(0);
    expect(Object.keys(byNode)).toEqual(["model"]);
    expect(byNode["model"]).toContain("Answer 14: word0 word1");
    expect(byNode["model"]).not.toContain("SUMMARYTOKEN");
  });
});
