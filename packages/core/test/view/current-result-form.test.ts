// A large current result that would push older turns out of the view is shown in the
// form it keeps once its turn ends, when that keeps the older turns in place: the head
// of the view then moves neither on this call nor on the next.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { EVERY_TOOL_RESULT } from "@contextview/core/internal";

const estimator = createEstimator();

/** A search result of `rows` transaction rows, as JSON. */
function rowsResult(id: string, rows: number): ToolMessage {
  const items = Array.from({ length: rows }, (_, i) => ({ id: `tx-${id}-${i}`, date: `2026-0${1 + (i % 9)}-1${i % 10}`, amount: 10 + i * 1.25, merchant: `Shop ${i % 17}`, category: "groceries" }));
  return new ToolMessage({ id: `t-${id}`, tool_call_id: `call-${id}`, name: "search", content: JSON.stringify({ query: id, count: rows, total: rows * 11, items }) });
}

function turn(i: number, rows: number): BaseMessage[] {
  return [
    new HumanMessage({ id: `h${i}`, content: `Turn ${i}: what did I spend on groceries in week ${i}?` }),
    new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `call-${i}`, name: "search", args: { week: i }, type: "tool_call" }] }),
    rowsResult(String(i), rows),
    new AIMessage({ id: `f${i}`, content: `You spent ${i * 3}.50 in week ${i}.` }),
  ];
}

const older = [0, 1, 2, 3, 4, 5].flatMap((i) => turn(i, 8));
const current = turn(6, 120).slice(0, 3);
const next = [...older, ...current, new AIMessage({ id: "f6", content: "You spent 80.50." }), new HumanMessage({ id: "h7", content: "And in total?" })];

const resultText = (messages: BaseMessage[]) => String(messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "call-6")?.content);
const budget = { promptBudget: 5500 };
const compacted = (text: string) => text.includes('"$compacted"');

describe("a large current result in the form it keeps", () => {
  it("is compacted now, as it will be once its turn ends, when that keeps the older turns in place", () => {
    const now = buildContext({ messages: [...older, ...current], budget });
    const later = buildContext({ messages: next, budget });
    // Every older turn stays, on this call and the next.
    for (const view of [now, later]) expect(view.report.turns.dropped).toBe(0);
    // The result has one form on both calls, at most maxToolResultTokens.
    expect(resultText(now.messages)).toBe(resultText(later.messages));
    expect(estimator.estimateText(resultText(now.messages))).toBeLessThanOrEqual(2000);
    expect(now.report.toolResults.compacted).toBeGreaterThanOrEqual(1);
    // So the next call's prompt starts with this call's whole prompt.
    const text = JSON.stringify(now.messages.map((m) => [m.type, m.content]));
    expect(JSON.stringify(later.messages.map((m) => [m.type, m.content])).startsWith(text.slice(0, -1))).toBe(true);
  });

  it("is shown whole when older results wait for their summary: a context manager summarizes the turns it drops", () => {
    const now = buildContext({ messages: [...older, ...current], budget, keepRecentToolResults: EVERY_TOOL_RESULT });
    expect(compacted(resultText(now.messages))).toBe(false);
    expect(now.report.turns.dropped).toBeGreaterThan(0);
  });

  it("is shown whole when that form would keep no more older turns", () => {
    // Room for the whole result and every older turn: nothing to win.
    const roomy = buildContext({ messages: [...older, ...current], budget: { promptBudget: 9000 } });
    expect(compacted(resultText(roomy.messages))).toBe(false);
    expect(roomy.report.turns.dropped).toBe(0);
    // A result just over maxToolResultTokens: compacting it frees less than an older turn needs.
    const slightly = [...older, ...turn(6, 62).slice(0, 3)];
    expect(estimator.estimateMessage(slightly.at(-1)!)).toBeGreaterThan(2000);
    const view = buildContext({ messages: slightly, budget: { promptBudget: 3000 }, excerptBudget: 0 });
    // Older turns do not all fit whole: some are left out or shown with their results cleared.
    expect(view.report.turns.dropped + view.report.toolResults.cleared).toBeGreaterThan(0);
    expect(compacted(resultText(view.messages))).toBe(false);
  });

  it("is compacted only when that keeps more history as the view counts it: more older turns whole, else more with their results cleared", () => {
    // Older results are small, so a huge maxToolResultTokens changes only how the current result is shown.
    const history = Array.from({ length: 14 }, (_, i) => turn(i, 8)).flat();
    let compactedViews = 0;
    let clearedGains = 0;
    let wholeViews = 0;
    for (const rows of [90, 150, 200]) {
      const messages = [...history, ...turn(20, rows).slice(0, 3)];
      const original = String(messages.at(-1)!.content);
      const text = (view: { messages: BaseMessage[] }) => String(view.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "call-20")?.content);
      for (let promptBudget = 3000; promptBudget <= 12000; promptBudget += 500) {
        const view = buildContext({ messages, budget: { promptBudget } });
        const whole = buildContext({ messages, budget: { promptBudget }, maxToolResultTokens: 1_000_000 });
        // Only where the result fits whole: otherwise it shares the room (the section above).
        if (text(whole) !== original) continue;
        // Older turns kept whole: kept, less those shown with their results cleared (one result each here).
        const cleared = (v: typeof view) => v.report.toolResults.cleared;
        const keptWhole = (v: typeof view) => v.report.turns.kept - 1 - cleared(v);
        if (text(view) !== original) {
          compactedViews++;
          if (keptWhole(view) === keptWhole(whole)) {
            clearedGains++;
            expect(cleared(view)).toBeGreaterThan(cleared(whole));
          } else expect(keptWhole(view)).toBeGreaterThan(keptWhole(whole));
        } else if (view.report.turns.dropped + view.report.toolResults.cleared > 0) {
          wholeViews++;
          expect([keptWhole(view), cleared(view)]).toEqual([keptWhole(whole), cleared(whole)]);
        }
      }
    }
    // Both outcomes occur in the sweep, and a view compacts the result for turns kept cleared alone.
    expect(compactedViews).toBeGreaterThan(0);
    expect(clearedGains).toBeGreaterThan(0);
    expect(wholeViews).toBeGreaterThan(0);
  });

  it("is compacted when that keeps the same turns whole but more with their results cleared, instead of leaving them out", () => {
    const history = Array.from({ length: 14 }, (_, i) => turn(i, 8)).flat();
    const messages = [...history, ...turn(20, 150).slice(0, 3)];
    const view = buildContext({ messages, budget: { promptBudget: 6500 } });
    const whole = buildContext({ messages, budget: { promptBudget: 6500 }, maxToolResultTokens: 1_000_000 });
    const original = String(messages.at(-1)!.content);
    const text = (v: typeof view) => String(v.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === "call-20")?.content);
    // Shown whole, the result pushes turns out; in the form it keeps once its turn ends, none go.
    expect(text(whole)).toBe(original);
    expect(whole.report.turns.dropped).toBeGreaterThan(0);
    expect(view.report.currentTurn.form).toBe("olderForm");
    expect(compacted(text(view))).toBe(true);
    expect(view.report.turns.dropped).toBe(0);
    // The same older turns whole: the turns it keeps more are shown with their results cleared.
    const keptWhole = (v: typeof view) => v.report.turns.kept - 1 - v.report.toolResults.cleared;
    expect(keptWhole(view)).toBe(keptWhole(whole));
  });

  it("leaves whole a result its turn would clear once older, and compacts the one it keeps to the text it will show", () => {
    const call = new AIMessage({ id: "a6", content: "", tool_calls: ["6a", "6b"].map((id) => ({ id: `call-${id}`, name: "search", args: { id }, type: "tool_call" as const })) });
    const parallel = [new HumanMessage({ id: "h6", content: "Both weeks, please." }), call, rowsResult("6a", 120), rowsResult("6b", 120)];
    const options = { budget: { promptBudget: 9000 }, keepRecentToolResults: 1, clearStep: 1 };
    const now = buildContext({ messages: [...older, ...parallel], ...options });
    const later = buildContext({ messages: [...older, ...parallel, new AIMessage({ id: "f6", content: "Done." }), new HumanMessage({ id: "h7", content: "Thanks." })], ...options });
    const text = (view: { messages: BaseMessage[] }, id: string) => String(view.messages.find((m) => ToolMessage.isInstance(m) && m.tool_call_id === id)?.content);
    expect(text(now, "call-6a")).toBe(String(parallel[2]!.content));
    expect(text(now, "call-6b")).not.toBe(String(parallel[3]!.content));
    expect(text(later, "call-6b")).toBe(text(now, "call-6b"));
    expect(text(later, "call-6a")).toContain("cleared");
  });
});

