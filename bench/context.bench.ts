// buildContext against trimMessages and against the serialization floor.
// Run: pnpm bench context (or pnpm bench for all)
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { messageMarks } from "../packages/core/src/view/message-marks.js";
import { agentConversation, medianMs, table } from "./fixtures";

const budget = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096, safetyReserve: 2048 };
const sizes = [1000, 4000, 10000, 50000];

/** One request answered with `n` tool exchanges of 12-row JSON results. */
function longTurn(n: number): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are a booking agent."), new HumanMessage({ id: "req", content: "Find and book three options." })];
  for (let i = 0; i < n; i++) {
    messages.push(new AIMessage({ id: `ai-${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "get_reservation", args: { reservation_id: `RES-${i - 1}` } }] }));
    const rows = Array.from({ length: 12 }, (_, r) => ({ id: `F${i}-${r}`, price: 100 + r, text: "seat ".repeat(20) }));
    messages.push(new ToolMessage({ tool_call_id: `c${i}`, content: JSON.stringify({ reservation_id: `RES-${i}`, count: 12, rows }) }));
  }
  return messages;
}

/**
 * A current turn of 300 exchanges against one of 30, at an 8,000-token budget: both
 * warmed up, then measured in alternating rounds (as the sizes above), so that the
 * machine's drift and the JIT's warm-up hit both alike.
 */
async function longTurns(): Promise<void> {
  const sizes = [30, 300];
  const turns = new Map(sizes.map((n) => [n, longTurn(n)]));
  const build = (n: number) => buildContext({ messages: turns.get(n) ?? [], budget: { ...budget, promptBudget: 8000 }, estimator: createEstimator() });
  const ms = alternatingMedians(sizes, build, 3, 15);
  const rows: Record<string, string | number>[] = [];
  for (const n of sizes) {
    const view = build(n);
    const t = view.report.currentTurn;
    rows.push({ exchanges: n, "buildContext ms": (ms.get(n) as number).toFixed(2), kept: t.kept, compacted: t.compacted, cleared: t.cleared, excerpted: t.excerpted, tokens: view.report.tokens.total });
  }
  console.log("a long current turn: one request, N tool exchanges, promptBudget 8000");
  console.log(`target: 300 exchanges ≤ 2× 30 exchanges; measured ${((ms.get(300) as number) / (ms.get(30) as number)).toFixed(2)}×`);
  console.log(table(rows));
}

/**
 * The median ms of `build(n)` for each size: every size warmed up `warmups` times, then
 * measured in `rounds` rounds of one call each, so that drift hits all sizes alike.
 */
function alternatingMedians(sizes: readonly number[], build: (n: number) => unknown, warmups: number, rounds: number): Map<number, number> {
  for (let i = 0; i < warmups; i++) for (const n of sizes) build(n);
  const samples = new Map<number, number[]>(sizes.map((n) => [n, []]));
  for (let round = 0; round < rounds; round++) {
    for (const n of sizes) {
      const start = performance.now();
      build(n);
      samples.get(n)?.push(performance.now() - start);
    }
  }
  return new Map(sizes.map((n) => {
    const sorted = [...(samples.get(n) ?? [])].sort((a, b) => a - b);
    return [n, sorted[Math.floor(sorted.length / 2)] as number];
  }));
}

async function main(): Promise<void> {
  const conversations = new Map(sizes.map((n) => [n, agentConversation(n)]));
  // A fresh estimator each run, so no estimate is cached from the previous run.
  const build = (n: number) => buildContext({ messages: conversations.get(n) ?? [], budget, estimator: createEstimator() });

  // Warm every size up first, then measure in rounds so that drift hits all sizes alike.
  const medians = alternatingMedians(sizes, build, 5, 21);
  const median = (n: number) => medians.get(n) as number;
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
    // The scan for pins and a provider compaction reads a few fields of every message, whatever the view keeps;
    // remembered per conversation, it is paid whole on the first call that sees these objects (a new first message here).
    const scanMs = await medianMs(() => messageMarks([new HumanMessage("new first message"), ...messages]), 7);
    const trimMs =
      n <= 4000
        ? await medianMs(() => trimMessages(messages, { maxTokens: 16000, tokenCounter: (msgs) => counter.estimateMessages(msgs), strategy: "last", startOn: "human" }), 3)
        : Number.NaN;
    rows.push({
      messages: n,
      MB: mb.toFixed(1),
      "buildContext ms": ms.toFixed(3),
      "÷ at 1k": (ms / base).toFixed(2),
      "cold scan ms": scanMs.toFixed(3),
      "floor ms": Number.isNaN(floorMs) ? "-" : floorMs.toFixed(2),
      "÷ floor": Number.isNaN(floorMs) ? "-" : (ms / floorMs).toFixed(3),
      "trimMessages ms": Number.isNaN(trimMs) ? "-" : trimMs.toFixed(1),
      "trim ÷ ours": Number.isNaN(trimMs) ? "-" : (trimMs / ms).toFixed(0),
    });
  }
  console.log("buildContext vs trimMessages (same budget 16000, same counter) and the serialization floor (JSON.stringify of every content)");
  console.log("targets: 50k ≤ 2× 1k; 10k ≤ 3× floor; trimMessages ≥ 100× slower at 4k; cold scan: the first look at new message objects for pins and a provider compaction (remembered after)");
  console.log(table(rows));
  await longTurns();
}

void main();
