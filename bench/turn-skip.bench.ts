// Skipping an older turn that cannot fit: `pnpm bench turn-skip`
//
// One older turn of 1,200 or 120,000 messages (tool exchanges), then the current
// request; the view keeps 3 messages either way. Medians of several buildContext
// calls in one run; printed: the ratio of the two. Target: the view costs what it
// keeps, not what the skipped turn holds (the issue measured 5 s for 120k messages).
import { buildContext } from "@contextview/core";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

function longTurn(messages: number): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage({ id: "h0", content: "Start a long job" })];
  for (let i = 0; i < messages / 2; i++) {
    out.push(new AIMessage({ id: `c${i}`, content: "", tool_calls: [{ id: `k${i}`, name: "step", args: { i } }] }));
    out.push(new ToolMessage({ id: `t${i}`, tool_call_id: `k${i}`, content: `result ${i} `.repeat(20) }));
  }
  out.push(new AIMessage({ id: "done", content: "All done." }), new HumanMessage({ id: "now", content: "What next?" }));
  return out;
}

function median(messages: BaseMessage[], runs: number): { ms: number; kept: number } {
  const samples: number[] = [];
  let kept = 0;
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    kept = buildContext({ messages, budget: { promptBudget: 2000 } }).messages.length;
    samples.push(performance.now() - start);
  }
  return { ms: samples.sort((a, b) => a - b)[Math.floor(runs / 2)] as number, kept };
}

const small = median(longTurn(1200), 9);
const large = median(longTurn(120_000), 5);
console.log(`older turn of   1,200 messages: ${small.ms.toFixed(1).padStart(8)} ms, ${small.kept} messages kept`);
console.log(`older turn of 120,000 messages: ${large.ms.toFixed(1).padStart(8)} ms, ${large.kept} messages kept`);
console.log(`ratio 120k / 1.2k: ${(large.ms / small.ms).toFixed(1)}× for 100× the messages (the role scan that finds the turn's start for its excerpt remains linear)`);
