import { InMemoryContextStore } from "@contextview/core";
import { createContextNode } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { anthropicOrderProblems, RecordingChatModel, searchTool } from "@contextview/test-support";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { loopRelation } from "../packages/core/test/support/reasoning-loops";
import { customGraph } from "./support/custom-graph.js";

// Issue 50, item 2, on real graphs: a scripted Anthropic model whose every reply carries a
// signed thinking block works through long tool loops. Within a loop each call sends what
// the previous call sent, with the loop's new messages appended; once the loop outgrows its
// first call's room, whole messages leave from the front, and no message is ever edited.

/** Turn t asks for this many searches. */
const STEPS = [2, 3, 2, 9];

/** The loop's step in what the model receives: its replies since the request (the last user message). */
function stepOf(messages: readonly BaseMessage[]): number {
  let request = messages.length - 1;
  while (request >= 0 && messages[request]?.type !== "human") request--;
  return messages.slice(request + 1).filter((m) => m.type === "ai").length;
}

function thinkingModel() {
  let turn = 0;
  return new RecordingChatModel({
    answer: (messages, { index }) => {
      const step = stepOf(messages);
      const steps = STEPS[turn] ?? 1;
      const thinking = { type: "thinking", thinking: `THOUGHT-${index}: which rows are left to check?`, signature: `SIG-${index}-EqQB` };
      if (step >= steps) {
        turn++;
        return new AIMessage({ id: `ai_${index}`, content: [thinking, { type: "text", text: `Answer ${turn}: the ledger balances.` }] as never });
      }
      const id = `call_${index}`;
      const input = { query: `q${index}`, limit: 20 };
      const content = [thinking, { type: "text", text: `Step ${step}: searching.` }, { type: "tool_use", id, name: "search_transactions", input }];
      return new AIMessage({ id: `ai_${index}`, content: content as never, tool_calls: [{ id, name: "search_transactions", args: input, type: "tool_call" }] });
    },
  });
}

/** The calls of the last turn's loop, checked pairwise: the loop appended, whole messages left only from the front. */
function checkLoop(calls: readonly BaseMessage[][]): { appended: number; leftFromFront: number } {
  const loop = calls.slice(calls.length - (STEPS.at(-1) as number) - 1);
  const seen = { appended: 0, front: 0, other: 0 };
  loop.forEach((call, k) => {
    expect(anthropicOrderProblems(call)).toEqual([]);
    // Every reply of the loop so far goes back with its signed thinking.
    const replies = call.slice(call.length - 2 * k);
    expect(replies.filter((m) => m.type === "ai").every((m) => JSON.stringify(m.content).includes("SIG-"))).toBe(true);
    // The previous call's messages (or them with whole messages gone from the front), then the new step.
    if (k > 0) seen[loopRelation(call, loop[k - 1] as BaseMessage[])]++;
  });
  expect(seen.other).toBe(0);
  return { appended: seen.appended, leftFromFront: seen.front };
}

describe("a tool loop whose replies carry signed thinking, on real graphs", () => {
  it("createAgent with contextMiddleware: each call of the loop is the previous one with the loop appended, or it with whole messages gone from the front", async () => {
    const model = thinkingModel();
    const agent = createAgent({ model, tools: [searchTool(20)], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ budget: { promptBudget: 5000 }, store: new InMemoryContextStore() })] });
    const config = { configurable: { thread_id: "t1" } };
    for (let t = 0; t < STEPS.length; t++) await agent.invoke({ messages: [new HumanMessage({ id: `req_${t}`, content: `Reconcile the ledger of month ${t + 1}, please.` })] }, config);
    const { appended, leftFromFront } = checkLoop(model.calls);
    expect(appended).toBeGreaterThan(0);
    expect(leftFromFront).toBeGreaterThan(0);
    // The checkpoint keeps every message: the view changed what was sent, not what was stored.
    const state = await agent.graph.getState(config);
    expect((state.values.messages as BaseMessage[]).filter((m) => m.type === "human")).toHaveLength(STEPS.length);
  });

  it("createContextNode in a StateGraph: the same", async () => {
    const model = thinkingModel();
    const node = createContextNode({ budget: { promptBudget: 5000 }, store: new InMemoryContextStore(), tools: [searchTool(20)] });
    const graph = customGraph(model, new MemorySaver(), node, undefined, 20);
    const config = { configurable: { thread_id: "t2", user_id: "u" }, recursionLimit: 60 };
    for (let t = 0; t < STEPS.length; t++) await graph.invoke({ messages: [new HumanMessage({ id: `req_${t}`, content: `Reconcile the ledger of month ${t + 1}, please.` })] }, config);
    const { appended, leftFromFront } = checkLoop(model.calls);
    expect(appended + leftFromFront).toBe(STEPS.at(-1));
  });
});
