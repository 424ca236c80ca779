// View-record benchmark: `pnpm bench record`
//
// What keeping a view record adds to a model call, measured in one run on the same
// 100 calls of a growing 120-turn thread with the example's tools (medians of 5 rounds):
//   - the managed build of the view (what every call already pays)
//   - viewRecordOf (hashes of the read messages and inputs; digests cached per message object)
//   - SqliteContextStore.recordView (one BEGIN IMMEDIATE transaction in a file)
// Printed: per-call figures and (record + write) / build. No target yet: the build of this
// small-content thread is cheap (about 5 ms), so the share is the high end of what real threads see.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager } from "@contextview/core";
import { viewRecordOf } from "@contextview/core/internal";
import { SqliteContextStore } from "@contextview/sqlite";
import { TOOLS } from "../examples/finance-agent/tools";

function thread(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: what did I spend on groceries in month ${i % 12}?` }));
    out.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "search_transactions", args: { category: "groceries" }, type: "tool_call" }] }));
    out.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: JSON.stringify({ rows: Array.from({ length: 30 }, (_, r) => ({ id: `tx-${i}-${r}`, amount: r * 3.5 })) }) }));
    out.push(new AIMessage({ id: `f${i}`, content: `Here is what I found for turn ${i}.` }));
  }
  return out;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function round(dir: string, all: BaseMessage[], n: number): Promise<{ build: number; record: number; write: number }> {
  const store = SqliteContextStore.fromConnString(join(dir, `round-${n}.sqlite`));
  const manager = createContextManager({ store, budget: { promptBudget: 6000 } });
  const key = { userId: "u", conversationId: "t" };
  let build = 0;
  let record = 0;
  let write = 0;
  for (let turn = 20; turn < 120; turn++) {
    const request = { messages: all.slice(0, turn * 4 + 1), key, tools: TOOLS, systemPrompt: "Be exact." };
    let start = performance.now();
    const view = await manager.build(request);
    build += performance.now() - start;
    start = performance.now();
    const entry = viewRecordOf(request, view, { source: "bench" });
    record += performance.now() - start;
    start = performance.now();
    await store.recordView(key, entry);
    write += performance.now() - start;
  }
  store.close();
  return { build: build / 100, record: record / 100, write: write / 100 };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "contextview-record-bench-"));
  try {
    const rounds = [];
    for (let n = 0; n < 5; n++) rounds.push(await round(dir, thread(120), n));
    const build = median(rounds.map((r) => r.build));
    const record = median(rounds.map((r) => r.record));
    const write = median(rounds.map((r) => r.write));
    console.log(`per call: build ${build.toFixed(2)} ms, viewRecordOf ${record.toFixed(2)} ms, recordView ${write.toFixed(2)} ms (load average ${loadavg()[0]?.toFixed(1)})`);
    console.log(`record + write / build = ${((record + write) / build).toFixed(2)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
