// The README's main example: a personal-finance and notes agent on a real LangGraph
// StateGraph, with SqliteSaver and SqliteContextStore on disk, running 64 scripted turns.
// Run: pnpm example   (files go to ./.contextview-data; CONTEXTVIEW_EXAMPLE_DIR overrides;
// CONTEXTVIEW_EXAMPLE_SUMMARIZE=off drops older turns instead of summarizing them)
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { createEstimator } from "@contextview/core";
import type { ContextBudgetRecord, ContextLogRecord, PromptBudgetRecord } from "@contextview/langgraph";
import { SqliteContextStore } from "@contextview/sqlite";
import { financeAgent } from "./agent";
import { userRequest } from "./script";
import { LEGEND, tableHeader, tableRow } from "./table";

const TURNS = Number(process.env.CONTEXTVIEW_EXAMPLE_TURNS ?? 64);
const dir = resolve(process.env.CONTEXTVIEW_EXAMPLE_DIR ?? ".contextview-data");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });

const checkpointer = SqliteSaver.fromConnString(join(dir, "checkpoints.sqlite"));
const store = SqliteContextStore.nextTo(checkpointer);

const records: ContextBudgetRecord[] = [];
const prompts: PromptBudgetRecord[] = [];
const logger = {
  info: (record: ContextLogRecord) => {
    if (record.event === "context_budget") records.push(record);
    if (record.event === "prompt_budget") prompts.push(record);
  },
  warn: (record: ContextLogRecord) => console.warn("warning:", record),
};

const summarize = process.env.CONTEXTVIEW_EXAMPLE_SUMMARIZE !== "off";
const { graph, context } = financeAgent({ checkpointer, store, promptBudget: 8000, logger, summarize });
// The view's own estimator (uncalibrated), for what the prompt would have been without contextview.
const estimator = createEstimator();

async function main(): Promise<void> {
  const config = { configurable: { thread_id: "demo-thread", user_id: "alice" } };
  console.log(`contextview example: ${TURNS} turns, prompt limit 8000 estimated tokens, files in ${dir}\n`);
  // Every model call: a turn that calls a tool has two. Messages, turns and tool results are
  // counted as in the report (docs/observability.md, "The vocabulary"): with the summarizer,
  // older turns are summarized rather than dropped, and older tool results wait for their
  // summary (compacted, not cleared); CONTEXTVIEW_EXAMPLE_SUMMARIZE=off drops them instead.
  console.log(`${LEGEND.join("\n")}\n`);
  console.log(tableHeader());
  let largest = { whole: 0, view: 0, call: "" };
  for (let turn = 0; turn < TURNS; turn++) {
    records.length = 0;
    prompts.length = 0;
    await graph.invoke({ messages: [new HumanMessage(userRequest(turn))] }, config);
    if (records.length === 0) throw new Error("the context node produced no record");
    // Each call was given the checkpoint's first messagesInCheckpoint messages: a prefix of the state after the turn.
    const messages = ((await graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    records.forEach((record, call) => {
      const wholeTokens = (prompts[call]?.fixedTokens ?? 0) + estimator.estimateMessages(messages.slice(0, record.messagesInCheckpoint));
      const name = `${turn + 1}.${call + 1}`;
      if (wholeTokens > largest.whole) largest = { whole: wholeTokens, view: record.estimatedTokens, call: name };
      console.log(tableRow(name, { record, wholeTokens }));
    });
  }
  const evidence = await store.load("alice", "demo-thread");
  const entries = Object.values(evidence.buckets).reduce((sum, bucket) => sum + bucket.length, 0);
  await context.drain();
  const state = await graph.getState(config);
  // SQLite in WAL mode keeps recent pages in the -wal file beside the database.
  const bytes = (file: string) => (existsSync(file) ? statSync(file).size : 0);
  const size = (file: string) => `${((bytes(file) + bytes(`${file}-wal`)) / 1024).toFixed(0)} KiB`;
  console.log(`\nThe checkpoint keeps all ${(state.values as { messages: unknown[] }).messages.length} messages; the model saw a bounded view on every call.`);
  const times = (largest.whole / 8000).toFixed(1);
  console.log(`Without contextview, call ${largest.call} would have sent ${largest.whole} estimated tokens (${times}× the limit); its view: ${largest.view}.`);
  console.log(`durable evidence: ${entries} entries`);
  console.log(`checkpoints: ${join(dir, "checkpoints.sqlite")} (${size(join(dir, "checkpoints.sqlite"))})`);
  console.log(`context store: ${store.file} (${size(store.file ?? "")})`);
  store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
