// One large tool result in the current turn: buildContext against the floor of one
// JSON.parse plus one JSON.stringify of the payload, a second build of the same messages
// (compaction is remembered per result), and the longest event-loop block of a
// LangGraph context node (createContextNode, InMemoryContextStore) building the view,
// with its large-result worker (the default) and without (`largeResultWorker: false`).
// Contents are flat strings, as a checkpoint leaves them: a string built by
// concatenation (JSON.stringify's output, String#repeat) is flattened by whoever reads
// it first — in a graph, the checkpointer writing it — which costs about 7 ms per MB.
// First builds and floors are medians over contents of the same shape (nine at 0.7 MB, five at 7 MB, one above).
// Run: pnpm bench large-result
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, InMemoryContextStore } from "@contextview/core";
import { createContextNode } from "@contextview/langgraph";
import { clearResultMemo } from "../packages/core/src/compact/result-memo.js";
import { table } from "./fixtures";

const MB = 1024 * 1024;
const budget = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096, safetyReserve: 2048 };

/** A JSON array of `count` transaction rows; `prefix` makes the ids (and so the text) of each use distinct. */
function rowsJson(count: number, prefix: string): string {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    date: `2024-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")}`,
    amount: ((i * 37) % 10000) / 100,
    payee: `Payee ${i % 500}`,
  }));
  return JSON.stringify(rows);
}

/** A JSON object with `count` notes of about 25 KB of text each: few rows, so its identifiers fit and its levels are searched. */
function notesJson(count: number, prefix: string): string {
  const notes = Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, date: "2024-01-01", title: `Note ${i}`, text: `word${i % 97} `.repeat(2500) }));
  return JSON.stringify({ query: "all notes", notes });
}

/** The same text as one flat string (see the header). */
function flat(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** A plain-text log of about `bytes` bytes. */
function logText(bytes: number, prefix: string): string {
  const line = `${prefix} request served in 12 ms, status 200, path /api/items?page=3 and more words\n`;
  return line.repeat(Math.ceil(bytes / line.length));
}

function conversation(content: string): BaseMessage[] {
  return [
    new HumanMessage({ id: "h1", content: "List every transaction of the year." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search_transactions", args: { year: 2024 }, type: "tool_call" }] }),
    new ToolMessage({ id: "t1", tool_call_id: "c1", name: "search_transactions", content }),
  ];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1] as number;
}

function timed(run: () => unknown): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

/** Longest event-loop block (ms) while a context node builds the view twice (two steps of one run). */
async function nodeBlock(content: string, largeResultWorker = true): Promise<{ ms: number; block: number }> {
  const node = createContextNode({ store: new InMemoryContextStore(), budget, advanced: { largeResultWorker } });
  const config = { configurable: { thread_id: "bench", user_id: "bench-user" } };
  const messages = conversation(content);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  // Resolves while the loop turns, so the histogram samples the whole build.
  const ticking = setInterval(() => undefined, 5);
  histogram.enable();
  // The histogram records from its second tick on: let it tick before the build starts.
  await new Promise((resolve) => setTimeout(resolve, 40));
  const start = performance.now();
  await node.invoke({ messages }, config);
  await node.invoke({ messages }, config);
  const ms = performance.now() - start;
  // Let the histogram's timer fire once more: it records a block when the loop next turns.
  await new Promise((resolve) => setTimeout(resolve, 30));
  histogram.disable();
  clearInterval(ticking);
  return { ms, block: histogram.max / 1e6 };
}

/** `runs`: first builds measured on contents of the same shape (the median is printed): nine at 0.7 MB, five at 7 MB, one above. */
const cases: Array<{ name: string; content: (prefix: string) => string; json: boolean; runs: number }> = [
  { name: "10k rows", content: (p) => rowsJson(10_000, p), json: true, runs: 9 },
  { name: "100k rows", content: (p) => rowsJson(100_000, p), json: true, runs: 5 },
  { name: "300k rows", content: (p) => rowsJson(300_000, p), json: true, runs: 1 },
  { name: "1M rows", content: (p) => rowsJson(1_000_000, p), json: true, runs: 1 },
  { name: "2k notes of 25 KB", content: (p) => notesJson(2_000, p), json: true, runs: 1 },
  { name: "18 MB text", content: (p) => logText(18 * MB, p), json: false, runs: 1 },
  { name: "50 MB text", content: (p) => logText(50 * MB, p), json: false, runs: 1 },
];

async function main(): Promise<void> {
  const rows: Record<string, string | number>[] = [];
  // Warm the compiler on a small result, so the first case does not pay for it.
  buildContext({ messages: conversation(rowsJson(2_000, "warm")), budget });
  await nodeBlock(rowsJson(2_000, "warm-node"));
  // Start the worker, so its start-up (a second or two from the sources) is not a case's.
  await nodeBlock(rowsJson(20_000, "warm-worker"));
  for (const { name, content: build, json, runs } of cases) {
    // The first build of a result never seen, and the floor of the same content, on `runs`
    // contents of the same shape: the median of each.
    // A single first build on this shared machine ranged over 2–5× its floor at 10k rows.
    const firsts: number[] = [];
    const floors: number[] = [];
    let content = "";
    let messages: BaseMessage[] = [];
    for (let run = 0; run < runs; run++) {
      clearResultMemo();
      content = flat(build(`tx${run}`));
      messages = conversation(content);
      // The floor: what reading the payload once and writing it once costs (a text result is written and read as a JSON string).
      floors.push(json ? timed(() => JSON.stringify(JSON.parse(content))) : timed(() => JSON.parse(JSON.stringify(content))));
      firsts.push(timed(() => buildContext({ messages, budget })));
    }
    const [first, floor] = [median(firsts), median(floors)];
    const second = timed(() => buildContext({ messages, budget }));
    // Another text of the same shape, so the node compacts a result it has never seen.
    // Each node starts without the parsed payloads of the builds before: a heap holding a
    // million parsed rows makes every later garbage collection a long block of its own.
    clearResultMemo();
    content = flat(build("ty"));
    const node = await nodeBlock(content);
    clearResultMemo();
    const inline = await nodeBlock(flat(build("tz")), false);
    clearResultMemo();
    rows.push({
      result: name,
      MB: (content.length / MB).toFixed(1),
      "buildContext ms": first.toFixed(0),
      "floor ms": floor.toFixed(0),
      "÷ floor": (first / floor).toFixed(2),
      "2nd call ms": second.toFixed(1),
      "node 2 steps ms": node.ms.toFixed(0),
      "max block ms": node.block.toFixed(0),
      "no worker: max block ms": inline.block.toFixed(0),
    });
  }
  console.log("one large tool result in the current turn, promptBudget 16000");
  console.log("buildContext and floor: medians over 9 / 5 contents of the same shape at 0.7 / 7 MB, one above");
  console.log("targets: buildContext ≤ 2× floor; 2nd call on the same messages ≈ 0; max event-loop block of the node (with its worker) ≤ 250 ms up to 50 MB");
  console.log(table(rows));
}

void main();
