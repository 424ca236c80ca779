// The README's main example: a personal-finance and notes agent on a real LangGraph
// StateGraph, with SqliteSaver and SqliteContextStore on disk, running 64 scripted turns.
// Run: pnpm example   (files go to ./.contextview-data; CONTEXTVIEW_EXAMPLE_DIR overrides)
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { ContextBudgetRecord, ContextLogRecord } from "@contextview/langgraph";
import { SqliteContextStore } from "@contextview/sqlite";
import { financeAgent } from "./agent";
import { userRequest } from "./script";

const TURNS = Number(process.env.CONTEXTVIEW_EXAMPLE_TURNS ?? 64);
const dir = resolve(process.env.CONTEXTVIEW_EXAMPLE_DIR ?? ".contextview-data");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const checkpointer = SqliteSaver.fromConnString(join(dir, "checkpoints.sqlite"));
const store = SqliteContextStore.nextTo(checkpointer);

const records: ContextBudgetRecord[] = [];
const logger = {
  info: (record: ContextLogRecord) => {
    if (record.event === "context_budget") records.push(record);
  },
  warn: (record: ContextLogRecord) => console.warn("warning:", record),
};

const { graph, context } = financeAgent({ checkpointer, store, promptBudget: 8000, logger });

async function main(): Promise<void> {
  const config = { configurable: { thread_id: "demo-thread", user_id: "alice" } };
  console.log(`contextview example: ${TURNS} turns, prompt limit 8000 estimated tokens, files in ${dir}\n`);
  console.log("turn  tokens/limit  turns kept/dropped  tool results cleared  compaction  evidence entries");
  for (let turn = 0; turn < TURNS; turn++) {
    records.length = 0;
    await graph.invoke({ messages: [new HumanMessage(userRequest(turn))] }, config);
    const last = records.at(-1);
    const evidence = await store.load("alice", "demo-thread");
    const entries = Object.values(evidence.buckets).reduce((sum, bucket) => sum + bucket.length, 0);
    if (!last) throw new Error("the context node produced no record");
    console.log(
      [
        String(turn + 1).padStart(4),
        `${last.estimatedTokens}/${last.limit}`.padStart(12),
        `${last.turnsKept}/${last.turnsDropped}`.padStart(18),
        String(last.toolResultsCleared).padStart(20),
        last.compaction.padStart(10),
        String(entries).padStart(16),
      ].join("  "),
    );
  }
  await context.drain();
  const state = await graph.getState(config);
  // SQLite in WAL mode keeps recent pages in the -wal file beside the database.
  const bytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  const size = (file: string) => `${((bytes(file) + bytes(`${file}-wal`)) / 1024).toFixed(0)} KiB`;
  console.log(`\nThe checkpoint keeps all ${(state.values as { messages: unknown[] }).messages.length} messages; the model saw a bounded view on every call.`);
  console.log(`checkpoints: ${join(dir, "checkpoints.sqlite")} (${size(join(dir, "checkpoints.sqlite"))})`);
  console.log(`context store: ${store.file} (${size(store.file ?? "")})`);
  store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
