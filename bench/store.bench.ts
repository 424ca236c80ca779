// Evidence store benchmark: `npx tsx bench/store.bench.ts`
//
// A 10k-message thread lives in a real SqliteSaver; the evidence store sits beside it.
// Measured in one run, medians of several repetitions:
//   - SqliteSaver.getTuple of the thread (a cost every LangGraph request already pays)
//   - the first SqliteContextStore.update of the full history
//   - an incremental update (one new turn), which still re-hashes the whole prefix
// Target: incremental update <= 25% of getTuple.
// Then the worst event-loop delay (perf_hooks monitorEventLoopDelay) during updates of a
// 10 MB history, after a forced GC promotes the freshly built fixture. Target: < 20 ms.
// Last, the same first and incremental updates with node:crypto (core's SHA-256 on Node) and
// with core's pure-JS SHA-256 (@noble/hashes, what browsers run) swapped in, alternating.
// Target: pure JS at most 2x node:crypto.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SqliteContextStore } from "@contextview/sqlite";
import { Sha256 } from "../packages/core/src/sha256.js";

const TARGET_MESSAGES = 10_000;

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

function turn(t: number, toolBytes: number): BaseMessage[] {
  return [
    new HumanMessage({ id: `h${t}`, content: `Question ${t}: we must keep the ledger in UTC and never round before totals. What changed in batch ${t}?` }),
    new AIMessage({ id: `c${t}`, content: "", tool_calls: [{ id: `k${t}`, name: "query_ledger", args: { batch: t, fields: ["amount", "currency"] } }] }),
    new ToolMessage({ id: `t${t}`, tool_call_id: `k${t}`, content: JSON.stringify({ batch: t, rows: "r".repeat(toolBytes) }) }),
    new AIMessage({ id: `a${t}`, content: `Batch ${t} has 3 changed rows. Next step: reconcile them with the bank export. ${"detail ".repeat(20)}` }),
  ];
}

function history(turns: number, toolBytes: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let t = 0; t < turns; t++) out.push(...turn(t, toolBytes));
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function worstDelay(work: () => Promise<unknown>): Promise<number> {
  // The history was just allocated: promote it first so that copying it is not billed to the update.
  collectGarbage();
  collectGarbage();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await work();
  histogram.disable();
  return histogram.max / 1e6;
}

/** Swaps core's pure-JS SHA-256 (what browsers and edge runtimes run) in for node:crypto, Node's default, while `work` runs (same digests). */
async function withPureJsHash<T>(work: () => Promise<T>): Promise<T> {
  const native = Sha256.create;
  Sha256.create = Sha256.portable;
  try {
    return await work();
  } finally {
    Sha256.create = native;
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "contextview-bench-"));
  try {
    const saver = SqliteSaver.fromConnString(join(dir, "checkpoints.sqlite"));
    const store = SqliteContextStore.nextTo(saver);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("model", async () => ({}))
      .addEdge(START, "model")
      .addEdge("model", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "bench" } };
    const turns = TARGET_MESSAGES / 4;
    await graph.invoke({ messages: [...history(turns, 600), new HumanMessage({ id: `h${turns}`, content: "Current request" })] }, config);

    const read = async () => ((await saver.getTuple(config))?.checkpoint.channel_values["messages"] ?? []) as BaseMessage[];
    const messages = await read();
    const getTuple: number[] = [];
    for (let i = 0; i < 7; i++) getTuple.push(await time(read));

    const first: number[] = [];
    for (let i = 0; i < 3; i++) first.push(await time(() => store.update("user", `first-${i}`, messages)));

    await store.update("user", "bench", messages);
    let snapshot = messages;
    const incremental: number[] = [];
    for (let i = 0; i < 9; i++) {
      const t = turns + 1 + i;
      snapshot = [...snapshot, ...turn(t - 1, 600).slice(1), new HumanMessage({ id: `next-${i}`, content: `Follow-up ${i}` })];
      incremental.push(await time(() => store.update("user", "bench", snapshot)));
    }
    const cursor = (await store.load("user", "bench")).cursor;
    const bytes = snapshot.reduce((sum, m) => sum + Buffer.byteLength(String(m.content)), 0);

    const large = history(2000, 5000);
    large.push(new HumanMessage({ id: "now", content: "Current request" }));
    const largeBytes = large.reduce((sum, m) => sum + Buffer.byteLength(String(m.content)), 0);
    const delayFirst = await worstDelay(() => store.update("user", "large", large));
    // Built before measuring, without rebuilding the history, so its garbage is not collected during the update.
    const grown = [...large.slice(0, -1), ...turn(2000, 5000), new HumanMessage({ id: "now2", content: "Next request" })];
    const delayIncremental = await worstDelay(() => store.update("user", "large", grown));

    const g = median(getTuple);
    const f = median(first);
    const inc = median(incremental);
    const row = (name: string, ms: number) => console.log(`${name.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms`);
    console.log(`history: ${snapshot.length} messages, ${(bytes / 1e6).toFixed(1)} MB of content; cursor ${cursor}`);
    console.log(`load average: ${loadavg().map((n) => n.toFixed(2)).join(" ")} on this machine during the run`);
    row("SqliteSaver.getTuple (median of 7)", g);
    row("first update, full history (median of 3)", f);
    row("incremental update, one new turn (median of 9)", inc);
    console.log(`ratio incremental / getTuple: ${((inc / g) * 100).toFixed(1)}% (target <= 25%)`);
    console.log(`ratio first / getTuple:       ${((f / g) * 100).toFixed(1)}%`);
    console.log(
      `worst event-loop delay, ${(largeBytes / 1e6).toFixed(1)} MB history: first update ${delayFirst.toFixed(1)} ms, ` +
        `incremental ${delayIncremental.toFixed(1)} ms (target < 20 ms)`,
    );

    // Pure-JS SHA-256 against node:crypto, alternating so load changes hit both alike.
    const hashRuns = { pure: { first: [] as number[], inc: [] as number[] }, node: { first: [] as number[], inc: [] as number[] } };
    const grownBy = [...snapshot, ...turn(turns + 20, 600).slice(1), new HumanMessage({ id: "hash-next", content: "Next" })];
    for (let i = 0; i < 5; i++) {
      for (const kind of ["pure", "node"] as const) {
        const wrap = kind === "pure" ? withPureJsHash : <T>(work: () => Promise<T>) => work();
        const id = `hash-${kind}-${i}`;
        hashRuns[kind].first.push(await wrap(() => time(() => store.update("user", id, snapshot))));
        hashRuns[kind].inc.push(await wrap(() => time(() => store.update("user", id, grownBy))));
      }
    }
    const [pf, nf, pi, ni] = [median(hashRuns.pure.first), median(hashRuns.node.first), median(hashRuns.pure.inc), median(hashRuns.node.inc)];
    row("first update, pure-JS SHA-256 (median of 5)", pf);
    row("first update, node:crypto (median of 5)", nf);
    row("incremental update, pure-JS SHA-256 (median of 5)", pi);
    row("incremental update, node:crypto (median of 5)", ni);
    console.log(`ratio pure-JS / node:crypto: first update ${(pf / nf).toFixed(2)}x, incremental ${(pi / ni).toFixed(2)}x (target <= 2x)`);
    store.close();
    saver.db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
