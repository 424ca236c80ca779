// Evidence rebuild on a fork: `pnpm bench evidence-fork`
//
// A 10k-message thread's evidence is stored in a SqliteContextStore. Then, in one run,
// medians of several repetitions of:
//   - an incremental update (one new turn), the cost every new turn pays;
//   - a rebuild after a time-travel fork from the middle (5k messages, then a new request);
//   - a rebuild after an edit of the first message (10k messages plus a new turn);
//   - a first update of the full history in a fresh conversation.
// What a rebuild costs is printed against the first update: it reads the snapshot
// once, like a first update, and nothing more (bounded by the snapshot it is given).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteContextStore } from "@contextview/sqlite";

const MESSAGES = 10_000;

function turn(t: number, prefix = ""): BaseMessage[] {
  return [
    new HumanMessage({ id: `${prefix}h${t}`, content: `Question ${t}: we must keep the ledger in UTC and never round before totals. What changed in batch ${t}?` }),
    new AIMessage({ id: `${prefix}c${t}`, content: "", tool_calls: [{ id: `${prefix}k${t}`, name: "query_ledger", args: { batch: t } }] }),
    new ToolMessage({ id: `${prefix}t${t}`, tool_call_id: `${prefix}k${t}`, content: JSON.stringify({ batch: t, rows: "r".repeat(600) }) }),
    new AIMessage({ id: `${prefix}a${t}`, content: `Batch ${t} has 3 changed rows. Decided: reconcile them with the bank export. ${"detail ".repeat(20)}` }),
  ];
}

function history(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let t = 0; t < turns; t++) out.push(...turn(t));
  return out;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function time(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "contextview-bench-"));
  try {
    const store = SqliteContextStore.fromConnString(join(dir, "context.sqlite"));
    const turns = MESSAGES / 4;
    const base = [...history(turns), new HumanMessage({ id: "now", content: "Current request" })];
    const rebuild = { onPrefixChange: "rebuild" as const };

    const first: number[] = [];
    for (let i = 0; i < 3; i++) first.push(await time(() => store.update("user", `first-${i}`, base, rebuild)));

    const incremental: number[] = [];
    const forkMiddle: number[] = [];
    const editFirst: number[] = [];
    let read = 0;
    for (let i = 0; i < 5; i++) {
      const id = `thread-${i}`;
      await store.update("user", id, base, rebuild);
      const grown = [...base.slice(0, -1), ...turn(turns, "n"), new HumanMessage({ id: "next", content: "Next request" })];
      incremental.push(await time(() => store.update("user", id, grown, rebuild)));
      const fork = [...base.slice(0, MESSAGES / 2), new HumanMessage({ id: `fork-${i}`, content: "From the middle, another way" })];
      forkMiddle.push(await time(() => store.update("user", id, fork, { ...rebuild, onRebuild: (r: { messagesRead: number }) => void (read += r.messagesRead) })));
      const edited = [new HumanMessage({ id: "h0", content: "Question 0, edited" }), ...grown.slice(1)];
      editFirst.push(await time(() => store.update("user", id, edited, rebuild)));
    }

    const f = median(first);
    const row = (name: string, ms: number) => console.log(`${name.padEnd(66)} ${ms.toFixed(1).padStart(8)} ms  ${((ms / f) * 100).toFixed(0).padStart(4)}% of a first update`);
    console.log(`thread: ${MESSAGES} messages; a fork from the middle reads ${read / 5} messages again`);
    row("first update, full history (median of 3)", f);
    row("incremental update, one new turn (median of 5)", median(incremental));
    row("rebuild after a time-travel fork from message 5,000 (median of 5)", median(forkMiddle));
    row("rebuild after an edit of message 0 (median of 5)", median(editFirst));
    store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
