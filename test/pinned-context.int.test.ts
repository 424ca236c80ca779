import { join } from "node:path";
import { chatModelSummarizer, pinMessage } from "@contextview/core";
import { OPENING_REQUEST_LABEL, PINNED_LABEL } from "../packages/core/src/view/pinned.js";
import { PIN_FIELD } from "../packages/core/src/view/pin-message.js";
import { SqliteContextStore } from "@contextview/sqlite";
import { createContextNode, type ContextBudgetRecord, type ContextLogRecord } from "@contextview/langgraph";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { callProblems, RecordingChatModel, searchTool } from "@contextview/test-support";
import { customGraph } from "./support/custom-graph.js";
import { configFor, useTempDir, userTurn } from "./support/thread.js";

// 120 turns: the goal's turn leaves the view by turn 20 and the change's before the last ten
// turns, with summaries on the way (asserted below). 200 turns took 23 s alone and 126–147 s in
// `pnpm test:all`, the longest suite, for the same assertions.
const TURNS = 120;
const CHANGE_AT = 90;
const BUDGET = { contextWindow: 16384, promptBudget: 4000 };
const GOAL = "Goal: keep my monthly spending under 2,000 euros and report savings every Friday.";
const CHANGE = "Change of plan: report savings every Monday instead of Friday.";

const goalTurn = () => new HumanMessage({ id: "goal", content: GOAL });
const changeTurn = () => pinMessage(new HumanMessage({ id: "change", content: CHANGE }));

const indexOf = (view: readonly BaseMessage[], text: string) => view.findIndex((m) => m.content === text);

describe("pinned context in a StateGraph with SqliteSaver over 120 turns", () => {
  const tempDir = useTempDir();

  it("keeps the opening request and the pinned turn-90 change in every later view, in order, within budget", async () => {
    const saver = SqliteSaver.fromConnString(join(tempDir(), "checkpoints.sqlite"));
    const store = SqliteContextStore.nextTo(saver);
    const model = new RecordingChatModel();
    const records: ContextLogRecord[] = [];
    const summarizer = chatModelSummarizer(new FakeListChatModel({ responses: ["The user tracks spending by category."] }));
    const node = createContextNode({ store, budget: BUDGET, summarizer, tools: [searchTool(8)], logger: { info: (r) => void records.push(r), warn: (r) => void records.push(r) } });
    const graph = customGraph(model, saver, node);
    const config = { ...configFor("thread", "alice"), durability: "exit" as const };

    const firstCallOf: number[] = [];
    for (let i = 0; i < TURNS; i++) {
      firstCallOf.push(model.calls.length);
      const message = i === 0 ? goalTurn() : i === CHANGE_AT ? changeTurn() : userTurn(i);
      await graph.invoke({ messages: [message] }, config);
    }

    expect(callProblems({ limit: BUDGET.promptBudget, tools: [searchTool(8)], requireUserMessage: true }, model.calls)).toEqual([]);
    const budgets = records.filter((r): r is ContextBudgetRecord => r.event === "context_budget");
    expect(budgets.every((r) => r.estimatedTokens <= r.limit)).toBe(true);
    expect(budgets.some((r) => r.compaction === "summary")).toBe(true);

    // Every view from turn 20 on holds the goal right after the system message (or first), labelled.
    for (const view of model.calls.slice(firstCallOf[20])) {
      const goal = indexOf(view, GOAL);
      expect(goal).toBeGreaterThan(0);
      expect(view[goal - 1]?.content).toBe(OPENING_REQUEST_LABEL);
    }
    // Every view after turn 90 holds both, the goal first, the change after it (in its turn, then
    // pinned once its turn has left the view), both before the current request.
    for (const view of model.calls.slice(firstCallOf[CHANGE_AT + 1])) {
      const goal = indexOf(view, GOAL);
      const change = indexOf(view, CHANGE);
      expect(goal).toBeGreaterThan(0);
      expect(change).toBeGreaterThan(goal);
      expect(change).toBeLessThan(view.map((m) => m.type).lastIndexOf("human"));
    }
    // The change's turn left the view well before the end: its last ten turns show it pinned.
    for (const view of model.calls.slice(firstCallOf[TURNS - 10])) expect(view[indexOf(view, CHANGE) - 1]?.content).toBe(PINNED_LABEL);
    const last = model.calls.at(-1) as BaseMessage[];
    expect(last.filter((m) => m.content === GOAL)).toHaveLength(1);
    expect(last.filter((m) => m.content === CHANGE)).toHaveLength(1);
    expect(last[indexOf(last, CHANGE) - 1]?.content).toBe(PINNED_LABEL);

    // The checkpoint holds every message as it was written, the pin field included; the view's labels never.
    const state = await graph.getState(configFor("thread", "alice"));
    const messages = state.values.messages as BaseMessage[];
    expect(messages.filter((m) => m.type === "human")).toHaveLength(TURNS);
    expect(messages.find((m) => m.id === "goal")?.content).toBe(GOAL);
    expect(messages.find((m) => m.id === "change")?.additional_kwargs[PIN_FIELD]).toBe(true);
    expect(messages.some((m) => m.content === OPENING_REQUEST_LABEL || m.content === PINNED_LABEL)).toBe(false);

    // A request may turn the opening request off and leave no room for pins.
    const calls = model.calls.length;
    await graph.invoke({ messages: [userTurn(TURNS)] }, { ...configFor("thread", "alice", { pinOpeningRequest: false, pinnedBudget: 0 }), durability: "exit" });
    for (const view of model.calls.slice(calls)) {
      expect(indexOf(view, GOAL)).toBe(-1);
      expect(indexOf(view, CHANGE)).toBe(-1);
    }
    expect(model.calls.length).toBeGreaterThan(calls);
  });
});
