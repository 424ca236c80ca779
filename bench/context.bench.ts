// buildContext against trimMessages and against the serialization floor.
// Run: pnpm bench context (or pnpm bench for all)
import { trimMessages } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { agentConversation, medianMs, table } from "./fixtures";

const budget = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096, safetyReserve: 2048 };
const sizes = [1000, 4000, 10000, 50000];

async function main(): Promise<void> {
  const conversations = new Map(sizes.map((n) => [n, agentConversation(n)]));
  // A fresh estimator each run, so no estimate is cached from the previous run.
  const build = (n: number) => buildContext({ messages: conversations.get(n) ?? [], budget, estimator: createEstimator() });

  // Warm every size up first, then measure in rounds so that drift hits all sizes alike.
  for (let i = 0; i < 5; i++) for (const n of sizes) build(n);
  const samples = new Map<number, number[]>(sizes.map((n) => [n, []]));
  for (let round = 0; round < 21; round++) {
    for (const n of sizes) {
      const start = performance.now();
      build(n);
      samples.get(n)?.push(performance.now() - start);
    }
  }
  const median = (n: number) => {
    const list = [...(samples.get(n) ?? [])].sort((a, b) => a - b);
    return list[Math.floor(list.length / 2)] as number;
  };
  const base = median(1000);

  const counter = createEstimator();
  const rows: Record<string, string | number>[] = [];
  for (const n of sizes) {
    const messages = conversations.get(n) ?? [];
    const mb = messages.reduce((sum, m) => sum + JSON.stringify(m).length, 0) / 1e6;
    const ms = median(n);
    const floorMs =
      n <= 10000
        ? await medianMs(() => {
            for (const m of messages) JSON.stringify(m.content);
          }, 7)
        : Number.NaN;
    const trimMs =
      n <= 4000
        ? await medianMs(() => trimMessages(messages, { maxTokens: 16000, tokenCounter: (msgs) => counter.estimateMessages(msgs), strategy: "last", startOn: "human" }), 3)
        : Number.NaN;
    rows.push({
      messages: n,
      MB: mb.toFixed(1),
      "buildContext ms": ms.toFixed(3),
      "÷ at 1k": (ms / base).toFixed(2),
      "floor ms": Number.isNaN(floorMs) ? "-" : floorMs.toFixed(2),
      "÷ floor": Number.isNaN(floorMs) ? "-" : (ms / floorMs).toFixed(3),
      "trimMessages ms": Number.isNaN(trimMs) ? "-" : trimMs.toFixed(1),
      "trim ÷ ours": Number.isNaN(trimMs) ? "-" : (trimMs / ms).toFixed(0),
    });
  }
  console.log("buildContext vs trimMessages (same budget 16000, same counter) and the serialization floor (JSON.stringify of every content)");
  console.log("targets: 50k ≤ 2× 1k; 10k ≤ 3× floor; trimMessages ≥ 100× slower at 4k");
  console.log(table(rows));
}

void main();
