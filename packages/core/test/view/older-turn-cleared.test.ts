// Issue 25, item 3, and issue 48: an older turn that does not fit whole is kept with its tool
// results cleared (ids kept) before it is dropped — with dropStep 0 and with steps (the
// default), where the turns so kept form a band on its own stable anchor (see clearedBand).
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";

const estimator = createEstimator();

/** A turn whose bulk is one search result of `rows` rows. */
function searchTurn(i: number, rows: number): BaseMessage[] {
  const result = JSON.stringify({ rows: Array.from({ length: rows }, (_, r) => ({ id: `tx-${i}-${r}`, merchant: `Shop ${r}`, amount: 10 + r })) });
  return [
    new HumanMessage({ id: `h${i}`, content: `Question ${i}: what did I spend at the shops?` }),
    new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `call-${i}`, name: "search", args: { query: `shops ${i}` }, type: "tool_call" }] }),
    new ToolMessage({ id: `t${i}`, tool_call_id: `call-${i}`, name: "search", content: result }),
    new AIMessage({ id: `f${i}`, content: `Answer ${i}: about ${rows * 12} euros.` }),
  ];
}

/** Three small chat turns after the search turn, then the request. */
function conversation(): BaseMessage[] {
  const chat = (i: number) => [new HumanMessage({ id: `h${i}`, content: `Note ${i}: ${"words ".repeat(60)}` }), new AIMessage({ id: `f${i}`, content: `Noted ${i}. ${"more ".repeat(60)}` })];
  return [...searchTurn(0, 40), ...chat(1), ...chat(2), ...chat(3), new HumanMessage({ id: "q", content: "And now?" })];
}

const ids = (view: { messages: BaseMessage[] }) => view.messages.map((m) => m.id);

describe("an older turn before it goes (dropStep 0)", () => {
  const messages = conversation();
  const whole = buildContext({ messages, budget: { promptBudget: 100_000 }, dropStep: 0 });
  const searchTokens = estimator.estimateMessages(messages.slice(0, 4));
  const cleared = buildContext({ messages: messages.slice(0, 4), budget: { promptBudget: 100_000 }, dropStep: 0, keepRecentToolResults: 0 });

  it("is kept with its result cleared when that fits and whole does not", () => {
    // A limit with room for the three chat turns and the search turn cleared, not whole.
    const room = whole.report.tokens.total - searchTokens + estimator.estimateMessages(cleared.messages.filter((m) => m.id !== undefined && m.id !== "q")) + 40;
    const view = buildContext({ messages, budget: { promptBudget: room }, dropStep: 0 });
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    expect(ids(view)).toEqual(expect.arrayContaining(["h0", "a0", "t0", "f0", "h1", "h2", "h3", "q"]));
    const result = view.messages.find((m) => m.id === "t0") as ToolMessage;
    expect(compactionMarkerOf(result)?.form).toBe("cleared");
    expect(result.tool_call_id).toBe("call-0");
    // The call keeps its arguments and its result follows it.
    const call = view.messages.findIndex((m) => m.id === "a0");
    expect((view.messages[call] as AIMessage).tool_calls?.[0]?.args).toEqual({ query: "shops 0" });
    expect(view.messages[call + 1]?.id).toBe("t0");
    expect(view.report.turns.dropped).toBe(0);
    expect(view.report.toolResults.cleared).toBe(1);
  });

  it("counts a result compacted before its turn was cleared once, as cleared", () => {
    // A result the view first compacts with its turn (to maxToolResultTokens), then clears with it at tighter limits.
    const rows = Array.from({ length: 60 }, (_, r) => ({ id: `tx-${r}`, merchant: `Shop ${r}`, amount: 10 + r, memo: "groceries and more ".repeat(3) }));
    const big = [...conversation()];
    big[2] = new ToolMessage({ id: "t0", tool_call_id: "call-0", name: "search", content: JSON.stringify({ rows }) });
    const options = { dropStep: 0, maxToolResultTokens: 1000 };
    expect(estimator.estimateText(String(big[2].content))).toBeGreaterThan(options.maxToolResultTokens);
    const top = buildContext({ messages: big, budget: { promptBudget: 100_000 }, ...options }).report.tokens.total;
    let clearedViews = 0;
    for (let promptBudget = 600; promptBudget < top; promptBudget += 20) {
      const view = buildContext({ messages: big, budget: { promptBudget }, ...options });
      const form = compactionMarkerOf(view.messages.find((m) => m.id === "t0") ?? new HumanMessage("-"))?.form;
      const shown = { cleared: form === "cleared" ? 1 : 0, compacted: form === "json" ? 1 : 0, narrowed: 0 };
      expect({ promptBudget, ...view.report.toolResults }).toEqual({ promptBudget, ...shown });
      if (form === "cleared") clearedViews++;
    }
    expect(clearedViews).toBeGreaterThan(0);
  });

  it("goes whole when even cleared it does not fit", () => {
    const tight = whole.report.tokens.total - searchTokens + 5;
    // Recall off: once a turn goes, its reserve would take another (the chat turns call no tool).
    const view = buildContext({ messages, budget: { promptBudget: tight }, dropStep: 0, excerptBudget: 0, recallBudget: 0 });
    expect(ids(view)).not.toContain("t0");
    expect(view.report.turns.dropped).toBe(1);
  });

  it("is kept cleared with steps (the default) too, where whole it does not fit", () => {
    const room = whole.report.tokens.total - searchTokens + estimator.estimateMessages(cleared.messages.filter((m) => m.id !== undefined && m.id !== "q")) + 40;
    const stepped = buildContext({ messages, budget: { promptBudget: room }, excerptBudget: 0 });
    expect(ids(stepped)).toEqual(expect.arrayContaining(["h0", "a0", "t0", "f0", "h1", "h2", "h3", "q"]));
    expect(compactionMarkerOf(stepped.messages.find((m) => m.id === "t0") as ToolMessage)?.form).toBe("cleared");
    expect(stepped.report.turns.dropped).toBe(0);
  });
});

describe("an older turn before it goes, with steps (the default)", () => {
  /** One request answered by 40 tool calls and a final answer, then a question about it. */
  function fortyCalls(): BaseMessage[] {
    const messages: BaseMessage[] = [new HumanMessage({ id: "r0", content: "Reconcile every account for March." })];
    for (let i = 0; i < 40; i++) {
      messages.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "account_rows", args: { account: `ACC-${i}` }, type: "tool_call" }] }));
      const rows = Array.from({ length: 12 }, (_, r) => ({ id: `tx-${i}-${r}`, date: `2024-03-${String(r + 1).padStart(2, "0")}`, amount: -(r * 7.5 + i), payee: `Payee ${r}` }));
      messages.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, name: "account_rows", content: JSON.stringify({ account: `ACC-${i}`, rows }) }));
    }
    messages.push(new AIMessage({ id: "ans", content: "All 40 accounts are reconciled; ACC-17 has a duplicate charge of 127.50." }));
    messages.push(new HumanMessage({ id: "q", content: "Which account had the duplicate charge?" }));
    return messages;
  }

  it("keeps the previous turn with its results cleared when the kept turns would fill less than their window", () => {
    const messages = fortyCalls();
    const view = buildContext({ messages, budget: { promptBudget: 8000 } });
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    expect(view.report.turns.dropped).toBe(0);
    // Before: the turn went whole and the view used about 5% of its room.
    expect(view.report.tokens.total).toBeGreaterThan(view.report.limit / 4);
    expect(ids(view)).toEqual(expect.arrayContaining(["r0", "a0", "t0", "a39", "t39", "ans", "q"]));
    expect(view.messages.filter((m) => m.type === "tool").every((m) => compactionMarkerOf(m)?.form === "cleared")).toBe(true);
    expect((view.messages.find((m) => m.id === "a17") as AIMessage).tool_calls?.[0]?.args).toEqual({ account: "ACC-17" });
  });

  it("leaves the turn out when even cleared it does not fit", () => {
    const view = buildContext({ messages: fortyCalls(), budget: { promptBudget: 3000 } });
    expect(view.report.turns.dropped).toBe(1);
    expect(ids(view)).not.toContain("t0");
  });
});
