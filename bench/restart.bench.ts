// First call after a restart: `npx tsx bench/restart.bench.ts [messages...]` (default 10000 100000)
//
// A thread of N messages (turns like bench/store.bench.ts's, small tool results) goes through a
// StateGraph with createContextNode, a real SqliteSaver and SqliteContextStore.nextTo(saver): one
// invoke fills the checkpoint and the evidence store. Then a NEW process opens the same files and
// makes two calls (a new user message each): the first after the restart, and a warm one.
// For each call: the wall time of the context node, its longest event-loop block
// (perf_hooks monitorEventLoopDelay), and the whole graph.invoke (SqliteSaver's reads and writes
// of the checkpoint included, which are LangGraph's cost, not ours).
// Target: the node's first call after a restart costs about what a warm one does, at any length.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ContextViewAnnotation, createContextNode } from "@contextview/langgraph";
import { SqliteContextStore } from "@contextview/sqlite";

const TOOL_BYTES = 120;
const CONFIG = { configurable: { thread_id: "restart-bench", user_id: "bench" } };

function turn(t: number): BaseMessage[] {
  return [
    new HumanMessage({ id: `h${t}`, content: `Question ${t}: we must keep the ledger in UTC and never round before totals. What changed in batch ${t}?` }),
    new AIMessage({ id: `c${t}`, content: "", tool_calls: [{ id: `k${t}`, name: "query_ledger", args: { batch: t, fields: ["amount", "currency"] } }] }),
    new ToolMessage({ id: `t${t}`, tool_call_id: `k${t}`, content: JSON.stringify({ batch: t, rows: "r".repeat(TOOL_BYTES) }) }),
    new AIMessage({ id: `a${t}`, content: `Batch ${t} has 3 changed rows. Next step: reconcile them with the bank export.` }),
  ];
}

interface CallFigures {
  /** The context node's wall time, ms. */
  node: number;
  /** The longest event-loop block while the node ran, ms. */
  nodeBlock: number;
  /** The whole graph.invoke, ms. */
  invoke: number;
  /** The longest event-loop block during the whole invoke, ms. */
  invokeBlock: number;
}

/** The graph of one process: context node (timed) → a model that answers at once. */
function openGraph(dir: string) {
  const saver = SqliteSaver.fromConnString(join(dir, "checkpoints.sqlite"));
  const store = SqliteContextStore.nextTo(saver);
  const context = createContextNode({ store });
  const node = { ms: 0, block: 0 };
  const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
    .addNode("context", async (state: { messages: BaseMessage[] }, config: RunnableConfig) => {
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      const start = performance.now();
      const update = await context.invoke(state, config);
      node.ms = performance.now() - start;
      histogram.disable();
      node.block = histogram.max / 1e6;
      return update;
    })
    .addNode("model", async (state: { llmInputMessages: BaseMessage[] }) => ({
      messages: [new AIMessage({ id: `answer-${state.llmInputMessages.length}-${Date.now()}`, content: "Reconciled." })],
    }))
    .addEdge(START, "context")
    .addEdge("context", "model")
    .addEdge("model", END)
    .compile({ checkpointer: saver });
  const call = async (messages: BaseMessage[]): Promise<CallFigures> => {
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    const start = performance.now();
    await graph.invoke({ messages }, CONFIG);
    const invoke = performance.now() - start;
    histogram.disable();
    return { node: node.ms, nodeBlock: node.block, invoke, invokeBlock: histogram.max / 1e6 };
  };
  const close = async () => {
    await context.drain();
    store.close();
    saver.db.close();
  };
  return { call, close };
}

/** Child process: `fill <dir> <n>` or `restart <dir>`; prints its figures as one JSON line. */
async function child(mode: string, dir: string, n: number): Promise<void> {
  const graph = openGraph(dir);
  if (mode === "fill") {
    const messages: BaseMessage[] = [];
    for (let t = 0; messages.length < n - 1; t++) messages.push(...turn(t));
    messages.length = n - 1;
    messages.push(new HumanMessage({ id: "fill-request", content: "Which batches changed last week?" }));
    console.log(JSON.stringify({ fill: await graph.call(messages) }));
  } else {
    const first = await graph.call([new HumanMessage({ id: "after-restart", content: "And which of them are reconciled?" })]);
    const warm = await graph.call([new HumanMessage({ id: "warm", content: "Round the totals only at the end, please." })]);
    console.log(JSON.stringify({ first, warm }));
  }
  await graph.close();
}

function run(args: string[]): Record<string, CallFigures> {
  const result = spawnSync(process.execPath, ["--import", "tsx", __filename, ...args], { encoding: "utf8", maxBuffer: 1 << 24 });
  if (result.status !== 0) throw new Error(`child ${args.join(" ")} failed:\n${result.stderr}`);
  const line = result.stdout.trim().split("\n").pop() as string;
  return JSON.parse(line) as Record<string, CallFigures>;
}

function main(): void {
  const sizes = process.argv.slice(2).map(Number);
  console.log(`load average: ${loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  const ms = (n: number) => `${n.toFixed(0).padStart(6)} ms`;
  const row = (name: string, f: CallFigures) =>
    console.log(`  ${name.padEnd(22)} node ${ms(f.node)}, block ${ms(f.nodeBlock)} | invoke ${ms(f.invoke)}, block ${ms(f.invokeBlock)}`);
  for (const n of sizes.length > 0 ? sizes : [10_000, 100_000]) {
    const dir = mkdtempSync(join(tmpdir(), "contextview-restart-"));
    try {
      const { fill } = run(["fill", dir, String(n)]);
      const { first, warm } = run(["restart", dir]);
      console.log(`${n} messages`);
      row("fill (first ever)", fill as CallFigures);
      row("first after restart", first as CallFigures);
      row("warm", warm as CallFigures);
      console.log(`  node first / warm: ${((first as CallFigures).node / (warm as CallFigures).node).toFixed(1)}x`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

const [mode, dir, n] = process.argv.slice(2);
if (mode === "fill" || mode === "restart") void child(mode, dir as string, Number(n));
else main();
