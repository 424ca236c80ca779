import { join } from "node:path";
import { SqliteContextStore } from "@contextview/sqlite";
import { ContextViewAnnotation, createContextNode, type ContextBudgetRecord, type ContextLogRecord } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import type { BaseMessage } from "@langchain/core/messages";
import { Annotation, MessagesAnnotation } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createAgent } from "langchain";
import { callProblems, RecordingChatModel, searchTool } from "@contextview/test-support";
import { blobsContaining, configFor, expectedMessages, useTempDir, userTurn } from "./support/thread.js";

const TURNS = 60;
const BUDGET = { contextWindow: 16384, promptBudget: 4000 };

interface Agent {
  invoke(input: { messages: BaseMessage[] }, config: Record<string, unknown>): Promise<{ messages: BaseMessage[] }>;
}

/**
 * 60 turns (the views show evidence for turns they leave out from the 8th turn on), then one
 * with a narrower per-request budget; the same checks for every path.
 */
async function exercise(agent: Agent, model: RecordingChatModel, records: ContextLogRecord[], file: string) {
  let state: { messages: BaseMessage[] } = { messages: [] };
  for (let i = 0; i < TURNS; i++) state = await agent.invoke({ messages: [userTurn(i)] }, { ...configFor("thread", "alice"), durability: "exit" });
  expect(callProblems({ limit: BUDGET.promptBudget, tools: [searchTool(8)], requireUserMessage: true }, model.calls)).toEqual([]);
  expect(model.calls).toHaveLength(2 * TURNS);
  expect(state.messages).toHaveLength(expectedMessages(TURNS));
  expect(state.messages.filter((m) => m.type === "human").map((m) => m.id)).toEqual(Array.from({ length: TURNS }, (_, i) => `user-${i}`));
  expect(blobsContaining(file, "thread", "contextview_evidence")).toBe(0);
  expect(model.calls.some((view) => view.some((m) => String(m.content).includes("contextview_evidence")))).toBe(true);

  const before = model.calls.length;
  await agent.invoke({ messages: [userTurn(TURNS)] }, { ...configFor("thread", "alice", { budget: { promptBudget: 1500 } }), durability: "exit" });
  expect(callProblems({ limit: 1500, tools: [searchTool(8)], requireUserMessage: true }, model.calls.slice(before))).toEqual([]);
  expect(model.calls[before]?.length).toBeLessThan(model.calls[before - 2]?.length ?? 0);
  const budgets = records.filter((r): r is ContextBudgetRecord => r.event === "context_budget");
  expect(budgets.slice(-2).every((r) => r.limit <= 1500)).toBe(true);
}

describe("other LangGraph.js paths, same checks", () => {
  const tempDir = useTempDir();

  function setUp() {
    const file = join(tempDir(), "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    const store = SqliteContextStore.nextTo(saver);
    const records: ContextLogRecord[] = [];
    const logger = { info: (r: ContextLogRecord) => void records.push(r), warn: (r: ContextLogRecord) => void records.push(r) };
    return { file, saver, store, records, logger, model: new RecordingChatModel() };
  }

  it("createReactAgent with the node as preModelHook", async () => {
    const { file, saver, store, records, logger, model } = setUp();
    const agent = createReactAgent({
      llm: model,
      tools: [searchTool(8)],
      checkpointer: saver,
      // Declaring the untracked channel keeps the prebuilt's checkpointed one out.
      stateSchema: Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }),
      preModelHook: createContextNode({ store, budget: BUDGET, logger, tools: [searchTool(8)] }),
    });
    await exercise(agent as unknown as Agent, model, records, file);
    store.close();
  });

  it("createAgent with contextMiddleware", async () => {
    const { file, saver, store, records, logger, model } = setUp();
    const agent = createAgent({ model, tools: [searchTool(8)], checkpointer: saver, middleware: [contextMiddleware({ store, budget: BUDGET, logger })] });
    await exercise(agent as unknown as Agent, model, records, file);
    store.close();
  });
});
