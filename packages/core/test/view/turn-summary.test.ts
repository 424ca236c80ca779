import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { deepFreeze, snapshot, thrownBy, viewProblems } from "@contextview/test-support";

const estimator = createEstimator();
const noEnv = { contextWindow: 32768, responseReserve: 4096 };

/** One request answered with `n` tool exchanges of about 300 tokens each. */
function longTurn(n: number): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are a booking agent."), new HumanMessage({ id: "req", content: "Find and book the cheapest of three flights." })];
  for (let i = 0; i < n; i++) {
    const id = `call-${i}`;
    messages.push(new AIMessage({ id: `ai-${i}`, content: "", tool_calls: [{ id, name: "search_flights", args: { leg: i, reservation_id: `RES-${i}` }, type: "tool_call" }] }));
    const rows = Array.from({ length: 8 }, (_, r) => ({ id: `F${i}-${r}`, price: 100 + r, note: "window seat near the wing ".repeat(3) }));
    messages.push(new ToolMessage({ id: `tool-${i}`, tool_call_id: id, name: "search_flights", content: JSON.stringify({ leg: i, rows }) }));
  }
  return messages;
}

const callIds = (view: { messages: readonly BaseMessage[] }) => new Set(view.messages.flatMap((m) => (m.type === "ai" ? ((m as AIMessage).tool_calls ?? []).map((c) => c.id) : m.type === "tool" ? [(m as ToolMessage).tool_call_id] : [])));

describe("a summary of a long turn's first exchanges", () => {
  it.each([
    [30, 3000],
    [80, 5000],
  ])("stands for them in one marked message (%i exchanges at %i tokens): counted, within budget, every law kept", (n, promptBudget) => {
    const messages = deepFreeze(longTurn(n));
    const budget = { ...noEnv, promptBudget };
    const plain = buildContext({ messages, budget });
    expect(plain.report.currentTurn.excerpted).toBeGreaterThan(0);
    const steps = plain.report.currentTurn.excerpted + 2;
    const text = "- searched legs 0 onwards; cheapest so far F3-0 at 100 EUR (RES-3)";
    const before = snapshot(messages);
    const input = { messages, budget, turnSummary: { steps, text } };
    const view = buildContext(input);
    expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => buildContext(input).messages }, view)).toEqual([]);
    const { currentTurn } = view.report;
    expect(currentTurn.summarized).toBe(steps);
    expect(currentTurn.kept + currentTurn.compacted + currentTurn.cleared + currentTurn.excerpted + currentTurn.summarized).toBe(n);
    const standIn = view.messages.filter((m) => m.type === "ai" && typeof m.content === "string" && m.content.includes(text));
    expect(standIn).toHaveLength(1);
    expect(standIn[0]!.content as string).toMatch(/^Summary of the earlier steps of this turn/);
    // The summarized exchanges are not shown, not even one of their calls or results.
    const shown = callIds(view);
    for (let i = 0; i < steps; i++) expect(shown.has(`call-${i}`)).toBe(false);
    expect(shown.has(`call-${n - 1}`)).toBe(true);
    // It takes the excerpt's place: no more exchanges are left out than without it.
    expect(currentTurn.excerpted + currentTurn.summarized).toBeGreaterThanOrEqual(plain.report.currentTurn.excerpted);
  });

  it("is not used when it would take more than half the room, nor when it covers the newest exchange; a malformed one names its field", () => {
    const messages = longTurn(30);
    const budget = { ...noEnv, promptBudget: 3000 };
    const huge = buildContext({ messages, budget, turnSummary: { steps: 5, text: "lots of detail ".repeat(400) } });
    expect(huge.report.currentTurn.summarized).toBe(0);
    expect(huge.report.tokens.total).toBeLessThanOrEqual(huge.report.limit);
    const all = buildContext({ messages, budget, turnSummary: { steps: 30, text: "everything" } });
    expect(all.report.currentTurn.summarized).toBe(0);
    expect(thrownBy(() => buildContext({ messages, budget, turnSummary: { steps: 0, text: "x" } }))).toMatchObject({ code: "INVALID_OPTION", details: { field: "turnSummary.steps" } });
    expect(thrownBy(() => buildContext({ messages, budget, turnSummary: { steps: 2, text: 5 as never } }))).toMatchObject({ code: "INVALID_OPTION", details: { field: "turnSummary.text" } });
  });

  it("changes nothing for a turn that fits whole", () => {
    const messages = longTurn(3);
    const budget = { ...noEnv, promptBudget: 8000 };
    expect(buildContext({ messages, budget, turnSummary: { steps: 1, text: "first search" } }).messages).toEqual(buildContext({ messages, budget }).messages);
  });
});
