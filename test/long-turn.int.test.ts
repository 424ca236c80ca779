import { join } from "node:path";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { SqliteContextStore } from "@contextview/sqlite";
import { createContextNode } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { callProblems, RecordingChatModel, searchTool } from "@contextview/test-support";
import { customGraph } from "./support/custom-graph.js";
import { configFor, useTempDir } from "./support/thread.js";

// One user request answered with 150 tool calls at an 8,000-token budget: the run goes
// to its end, every model input is within budget, and the checkpoint keeps every message.
const CALLS = 150;
const BUDGET = { contextWindow: 32768, promptBudget: 8000 };
const ROWS = 40;

/** A model that calls the search tool CALLS times, each call reusing the query the previous result named, then answers. */
function toolLoopModel(): RecordingChatModel {
  let made = 0;
  return new RecordingChatModel({
    answer: (messages) => {
      const last = messages.at(-1);
      if (last?.type !== "human" && last?.type !== "tool") return undefined;
      if (made >= CALLS) return "All 150 lookups are done.";
      made++;
      return new AIMessage({ content: made % 10 === 0 ? `Step ${made}: still looking.` : "", tool_calls: [{ id: `loop-call-${made}`, name: "search_transactions", args: { query: `lookup-${made}`, limit: made }, type: "tool_call" }] });
    },
  });
}

function checkRun(model: RecordingChatModel, messages: BaseMessage[]) {
  expect(model.calls).toHaveLength(CALLS + 1);
  expect(callProblems({ limit: BUDGET.promptBudget, tools: [searchTool(ROWS)], requireUserMessage: true }, model.calls)).toEqual([]);
  // The checkpoint is whole: the request, every call with its result, the answer.
  expect(messages).toHaveLength(1 + 2 * CALLS + 1);
  expect(messages.filter((m) => m.type === "tool")).toHaveLength(CALLS);
  expect(String(messages.at(-1)?.content)).toBe("All 150 lookups are done.");
  // The last call was decided from a view that showed the request and the newest result whole.
  const lastView = model.calls.at(-1) as BaseMessage[];
  expect(lastView.some((m) => m.id === "long-request")).toBe(true);
  expect(lastView.at(-1)?.type).toBe("tool");
  expect(String(lastView.at(-1)?.content)).toContain(`lookup-${CALLS}`);
}

describe("one request answered with 150 tool calls at an 8,000-token budget", () => {
  const tempDir = useTempDir();

  it("runs to the end in a StateGraph with the context node and SqliteSaver", async () => {
    const saver = SqliteSaver.fromConnString(join(tempDir(), "checkpoints.sqlite"));
    const store = SqliteContextStore.nextTo(saver);
    const model = toolLoopModel();
    const node = createContextNode({ store, budget: BUDGET, tools: [searchTool(ROWS)] });
    const graph = customGraph(model, saver, node, undefined, ROWS);
    const state = await graph.invoke({ messages: [new HumanMessage({ id: "long-request", content: "Look up every transaction, one query at a time." })] }, { ...configFor("long", "alice"), recursionLimit: 1000, durability: "exit" });
    await node.drain();
    checkRun(model, state.messages);
    store.close();
  });

  it("runs to the end in createAgent with contextMiddleware", async () => {
    const saver = SqliteSaver.fromConnString(join(tempDir(), "agent.sqlite"));
    const store = SqliteContextStore.nextTo(saver);
    const model = toolLoopModel();
    const agent = createAgent({ model, tools: [searchTool(ROWS)], checkpointer: saver, middleware: [contextMiddleware({ store, budget: BUDGET })] });
    const state = await agent.invoke({ messages: [new HumanMessage({ id: "long-request", content: "Look up every transaction, one query at a time." })] }, { ...configFor("long", "alice"), recursionLimit: 1000, durability: "exit" });
    checkRun(model, state.messages);
    store.close();
  });
});
