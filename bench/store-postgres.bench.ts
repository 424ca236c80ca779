// PostgreSQL store benchmark: `pnpm bench store` (needs PostgreSQL at POSTGRES_URL)
//
// Measured in one run, on one server:
//   - PostgresSaver.getTuple of a 10k-message thread (a cost every LangGraph request already pays)
//   - the first PostgresContextStore.update of the full history, and an incremental update
//     (one new turn), which still re-hashes the whole prefix. Target: incremental <= 25% of getTuple.
//   - 4 processes x many conversations: updates per second and p50/p99 latency, each process on
//     conversations of its own (no contention), then all 4 on one conversation (contention).
import { spawn } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresContextStore } from "@contextview/postgres";

const URL = process.env.POSTGRES_URL || "postgresql://postgres@127.0.0.1:5432/test";
const TARGET_MESSAGES = 10_000;
const PROCESSES = 4;

function turn(t: number, toolBytes: number): BaseMessage[] {
  return [
    new HumanMessage({ id: `h${t}`, content: `Question ${t}: we must keep the ledger in UTC and never round before totals. What changed in batch ${t}?` }),
    new AIMessage({ id: `c${t}`, content: "", tool_calls: [{ id: `k${t}`, name: "query_ledger", args: { batch: t, fields: ["amount", "currency"] } }] }),
    new ToolMessage({ id: `t${t}`, tool_call_id: `k${t}`, content: JSON.stringify({ batch: t, rows: "r".repeat(toolBytes) }) }),
    new AIMessage({ id: `a${t}`, content: `Batch ${t} has 3 changed rows. Next step: reconcile them with the bank export. ${"detail ".repeat(20)}` }),
  ];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

async function againstGetTuple(schema: string): Promise<void> {
  const saver = PostgresSaver.fromConnString(URL, { schema });
  await saver.setup();
  const store = PostgresContextStore.nextTo(saver);
  const graph = new StateGraph(MessagesAnnotation).addNode("model", async () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: saver });
  const config = { configurable: { thread_id: "bench" } };
  const turns = TARGET_MESSAGES / 4;
  await graph.invoke({ messages: [...Array.from({ length: turns }, (_, t) => turn(t, 600)).flat(), new HumanMessage({ id: `h${turns}`, content: "Current request" })] }, config);

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
    snapshot = [...snapshot, ...turn(turns + i, 600).slice(1), new HumanMessage({ id: `next-${i}`, content: `Follow-up ${i}` })];
    incremental.push(await time(() => store.update("user", "bench", snapshot)));
  }
  const g = median(getTuple);
  const f = median(first);
  const inc = median(incremental);
  const row = (name: string, ms: number) => console.log(`${name.padEnd(48)} ${ms.toFixed(1).padStart(8)} ms`);
  console.log(`history: ${snapshot.length} messages in PostgresSaver; cursor ${(await store.load("user", "bench")).cursor}`);
  row("PostgresSaver.getTuple (median of 7)", g);
  row("first update, full history (median of 3)", f);
  row("incremental update, one new turn (median of 9)", inc);
  console.log(`ratio incremental / getTuple: ${((inc / g) * 100).toFixed(1)}% (target <= 25%)`);
  console.log(`ratio first / getTuple:       ${((f / g) * 100).toFixed(1)}%`);
  await saver.end();
}

async function processes(schema: string, mode: "spread" | "contended", conversations: number, steps: number): Promise<void> {
  const setup = PostgresContextStore.fromConnString(URL, { schema });
  await setup.setup();
  await setup.end();
  const startAt = String(Date.now() + 3000);
  const runs = Array.from({ length: PROCESSES }, (_, worker) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(__dirname, "store-postgres-worker.ts"), URL, schema, String(worker), mode, String(conversations), String(steps), startAt], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    return new Promise<{ latencies: number[]; elapsedMs: number }>((resolve, reject) =>
      child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out) as { latencies: number[]; elapsedMs: number }) : reject(new Error(`worker exited ${code}`)))),
    );
  });
  const results = await Promise.all(runs);
  const latencies = results.flatMap((r) => r.latencies);
  const wall = Math.max(...results.map((r) => r.elapsedMs));
  const label = mode === "spread" ? `${PROCESSES} processes x ${conversations} conversations each` : `${PROCESSES} processes x 1 shared conversation`;
  console.log(
    `${label.padEnd(44)} ${latencies.length} updates in ${(wall / 1000).toFixed(1)} s: ${(latencies.length / (wall / 1000)).toFixed(0)} updates/s, ` +
      `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
}

async function main(): Promise<void> {
  const schema = `contextview_bench_${process.pid}`;
  console.log(`PostgreSQL at ${URL.replace(/\/\/[^@]*@/, "//…@")}; ${cpus().length} cores, load average ${loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  try {
    await againstGetTuple(schema);
    await processes(`${schema}_spread`, "spread", 16, 20);
    await processes(`${schema}_contended`, "contended", 1, 60);
  } finally {
    for (const name of [schema, `${schema}_spread`, `${schema}_contended`]) await dropSchema(name);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
