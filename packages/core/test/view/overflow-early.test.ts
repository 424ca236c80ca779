// Issue 47, item 7: one assistant message with thousands of tiny parallel calls that cannot
// fit took seconds to fail, fitting every result before finding that the newest exchange
// alone is over the limit. The view now knows it first, from the least that exchange can take.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextBudgetError, createEstimator } from "@contextview/core";
import * as compaction from "../../src/compact/compact-tool-result";

function parallel(n: number, prose = "", resultChars = 40): BaseMessage[] {
  const calls = Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: "lookup", args: { id: i }, type: "tool_call" as const }));
  return [
    new HumanMessage({ id: "q", content: "Look everything up." }),
    new AIMessage({ id: "a", content: prose, tool_calls: calls }),
    ...calls.map((c) => new ToolMessage({ tool_call_id: c.id, name: "lookup", content: `value ${c.id} ${"x ".repeat(resultChars / 2)}` })),
  ];
}

describe("a newest exchange that cannot fit", () => {
  it("is refused before any result is compacted, the error naming the request and the newest exchange", () => {
    const compact = jest.spyOn(compaction, "compactOrNarrow");
    try {
      const error = (() => {
        try {
          buildContext({ messages: parallel(2000), budget: { promptBudget: 16000 } });
        } catch (thrown) {
          return thrown;
        }
        return undefined;
      })();
      expect(ContextBudgetError.isInstance(error)).toBe(true);
      const budgetError = error as ContextBudgetError;
      expect(budgetError.required).toBeGreaterThan(budgetError.limit);
      expect(budgetError.parts["newestExchange"]).toBeGreaterThan(budgetError.limit);
      expect(budgetError.parts["request"]).toBeLessThan(50);
      expect(compact).not.toHaveBeenCalled();
    } finally {
      compact.mockRestore();
    }
  });

  it("is not refused early when compacting its results makes it fit", () => {
    const estimator = createEstimator();
    const messages = parallel(20, "Checking every id. ".repeat(200), 4000);
    const whole = estimator.estimateMessages(messages);
    const view = buildContext({ messages, budget: { promptBudget: Math.floor(whole * 0.8) }, estimator });
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    expect(view.messages.filter((m) => m.type === "tool")).toHaveLength(20);
  });
});
