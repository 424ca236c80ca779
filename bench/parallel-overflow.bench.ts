// One assistant message with N tiny parallel calls at a 16,000-token budget (issue 47, item 7):
// the time to the ContextBudgetError when they cannot fit, against the time to build the view
// of the same calls at a budget they fit. Target: failing costs at most a few times what fitting does (≤ 5×).
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextBudgetError } from "@contextview/core";

function parallel(n: number): BaseMessage[] {
  const calls = Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: "lookup", args: { id: i }, type: "tool_call" as const }));
  return [new HumanMessage({ id: "q", content: "Look everything up." }), new AIMessage({ id: "a", content: "", tool_calls: calls }), ...calls.map((c) => new ToolMessage({ tool_call_id: c.id, name: "lookup", content: `value ${c.id}` }))];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(run: () => void): number {
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const rows: Array<Record<string, string>> = [];
for (const n of [1000, 4000, 10_000]) {
  const messages = parallel(n);
  const failing = time(() => {
    try {
      buildContext({ messages, budget: { promptBudget: 16_000 } });
      throw new Error("expected a ContextBudgetError");
    } catch (error) {
      if (!ContextBudgetError.isInstance(error)) throw error;
    }
  });
  const fitting = time(() => buildContext({ messages, budget: { contextWindow: 1_000_000, promptBudget: 900_000 } }));
  rows.push({ calls: String(n), "fail at 16k, ms": failing.toFixed(1), "fit, ms": fitting.toFixed(1), "fail ÷ fit": (failing / fitting).toFixed(2) });
}
console.table(rows);
console.log("target: fail ÷ fit ≤ 5 at every size");
