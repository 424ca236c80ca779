// Large tool results on the LangGraph node path (createContextNode, InMemoryContextStore,
// its large-result worker) that once missed the worker or cost on every call (issue 47,
// items 6 and 8):
// - the longest event-loop block (monitorEventLoopDelay) of a node's first call, and of
//   another node's first call on the same messages, on JSON behind 64 spaces, JSON with
//   one `}` too many, and a content beside a 300k-row artifact;
// - the cost of each later call with an 18 MB result two turns back, or a result read from
//   a 300k-row artifact, against the same conversation with a 1 KB result: on the same
//   message objects, and on copies read anew (a new content string and artifact per call,
//   as a checkpointer gives).
// Contents are flat strings, as a checkpoint leaves them (see large-result.bench.ts).
// Run: pnpm bench large-result-edges
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryContextStore } from "@contextview/core";
import { createContextNode } from "@contextview/langgraph";
import { table } from "./fixtures";

const MB = 1024 * 1024;
const budget = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096, safetyReserve: 2048 };
const config = { configurable: { thread_id: "bench", user_id: "bench-user" } };

interface Row {
  id: string;
  date: string;
  amount: number;
  payee: string;
}

function rows(count: number, prefix: string): Row[] {
  const date = (i: number) => `2024-${String((i % 12) + 1).padStart(2, "0")}-01`;
  const row = (i: number) => ({ id: `${prefix}-${i}`, date: date(i), amount: ((i * 37) % 10000) / 100, payee: `Payee ${i % 500}` });
  return Array.from({ length: count }, (_, i) => row(i));
}

/** Rows enough for about `bytes` bytes of JSON. */
function rowsJson(bytes: number, prefix: string): string {
  return JSON.stringify(rows(Math.ceil(bytes / 70), prefix));
}

/** The same text as one flat string. */
function flat(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** A request, one tool call and its result, the answer; then `later` more user turns, the last one the current request. */
function conversation(content: string, artifact?: unknown, later = 0): BaseMessage[] {
  const out: BaseMessage[] = [
    new HumanMessage({ id: "h1", content: "List every transaction of the year." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search_transactions", args: { year: 2024 }, type: "tool_call" }] }),
    new ToolMessage({ id: "t1", tool_call_id: "c1", name: "search_transactions", content, ...(artifact === undefined ? {} : { artifact }) }),
  ];
  if (later > 0) out.push(new AIMessage({ id: "f1", content: "Here are the transactions of the year." }));
  for (let turn = 2; turn <= later + 1; turn++) {
    out.push(new HumanMessage({ id: `h${turn}`, content: `Question ${turn}: what else should I know?` }));
    if (turn <= later) out.push(new AIMessage({ id: `f${turn}`, content: `Answer ${turn}.` }));
  }
  return out;
}

/** Longest event-loop block (ms) and wall time while `run` runs. */
async function blockOf(run: () => Promise<unknown>): Promise<{ ms: number; block: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  const ticking = setInterval(() => undefined, 5);
  histogram.enable();
  // The histogram records from its second tick on: let it tick before the call.
  await new Promise((resolve) => setTimeout(resolve, 40));
  const start = performance.now();
  await run();
  const ms = performance.now() - start;
  // It records a block when the loop next turns.
  await new Promise((resolve) => setTimeout(resolve, 30));
  histogram.disable();
  clearInterval(ticking);
  return { ms, block: histogram.max / 1e6 };
}

/**
 * The first call of a node on `messages`, then the first call of another node on copies
 * of the same messages (a manager made per request, or another graph of the process: its
 * own estimator, so nothing compaction remembered for the first applies).
 */
async function firstAndAnother(messages: () => BaseMessage[]): Promise<{ first: number; another: number }> {
  const first = await blockOf(() => createContextNode({ store: new InMemoryContextStore(), budget }).invoke({ messages: messages() }, config));
  const another = await blockOf(() => createContextNode({ store: new InMemoryContextStore(), budget }).invoke({ messages: messages() }, config));
  return { first: first.block, another: another.block };
}

/**
 * Mean ms of a later call of a node, with the result two turns back; `anew` gives each call
 * its own copy of the content and of the artifact (as a checkpointer reads them).
 */
async function laterCall(content: string, anew: boolean, artifact?: unknown, runs = 8): Promise<number> {
  const node = createContextNode({ store: new InMemoryContextStore(), budget });
  await node.invoke({ messages: conversation(content, artifact, 2) }, config);
  await node.invoke({ messages: conversation(content, artifact, 2) }, config);
  const copies = Array.from({ length: runs }, () => (anew ? { text: flat(content), artifact: structuredClone(artifact) } : { text: content, artifact }));
  const start = performance.now();
  for (const copy of copies) await node.invoke({ messages: conversation(copy.text, copy.artifact, 2) }, config);
  return (performance.now() - start) / runs;
}

async function main(): Promise<void> {
  // Warm the compiler and start the worker, so neither is a case's.
  await firstAndAnother(() => conversation(rowsJson(2 * MB, "warm")));

  const blocks: Record<string, string | number>[] = [];
  const spaced = flat(" ".repeat(64) + rowsJson(27 * MB, "sp"));
  const extraBrace = flat(rowsJson(27 * MB, "br") + "}");
  const artifactRows = rows(300_000, "ar");
  const artifactContent = flat(JSON.stringify(artifactRows));
  const cases: Array<[string, () => BaseMessage[], number]> = [
    ["JSON behind 64 spaces", () => conversation(spaced), spaced.length],
    ["JSON and one `}` too many", () => conversation(extraBrace), extraBrace.length],
    ["content and a 300k-row artifact", () => conversation(artifactContent, artifactRows), artifactContent.length],
  ];
  for (const [name, messages, chars] of cases) {
    const { first, another } = await firstAndAnother(messages);
    blocks.push({ result: name, MB: (chars / MB).toFixed(1), "1st call: max block ms": first.toFixed(0), "another node: max block ms": another.toFixed(0) });
  }
  console.log("large results on the node path, promptBudget 16000 (target: max block ≤ 250 ms)");
  console.log(table(blocks));

  const calls: Record<string, string | number>[] = [];
  const large = flat(rowsJson(18 * MB, "old"));
  const small = flat(rowsJson(1024, "old"));
  // A content that must be compacted beside a 300k-row artifact: compaction reads the artifact.
  const counted = flat(JSON.stringify({ count: 300_000, transactions: rows(1500, "head") }));
  for (const anew of [false, true]) {
    await laterCall(small, anew);
    const base = await laterCall(small, anew);
    const heavy = await laterCall(large, anew);
    const withArtifact = await laterCall(counted, anew, artifactRows);
    calls.push({
      messages: anew ? "read anew each call" : "the same objects",
      "1 KB result: ms/call": base.toFixed(1),
      "18 MB result: ms/call": heavy.toFixed(1),
      "÷": (heavy / base).toFixed(1),
      "300k-row artifact: ms/call": withArtifact.toFixed(1),
      "÷ ": (withArtifact / base).toFixed(1),
    });
  }
  console.log("a later call with a JSON result two turns back (target ÷ ≈ 1)");
  console.log(table(calls));
}

void main();
