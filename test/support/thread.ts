import Database from "better-sqlite3";
import { HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { toolsMarker } from "@contextview/test-support";

export { useTempDir } from "../../packages/sqlite/test/support/temp.js";

/**
 * The user message of turn `i`: every third turn asks for 3 parallel tool calls,
 * every fifth for 2, the rest for one; some state constraints and decisions so
 * the evidence has something to keep.
 */
export function userTurn(i: number): HumanMessage {
  const calls = i % 3 === 0 ? 3 : i % 5 === 0 ? 2 : 1;
  const flavour = i % 4 === 0 ? "We must stay under 500 dollars per month." : i % 4 === 1 ? "Let's decide to cut dining out." : "What else should I look at?";
  return new HumanMessage({ id: `user-${i}`, content: `Turn ${i}: ${flavour} Please check my transactions ${toolsMarker(calls)} for category ${i % 7}.` });
}

export const configFor = (threadId: string, userId: string, context?: Record<string, unknown>): RunnableConfig => ({
  configurable: { thread_id: threadId, user_id: userId, ...(context === undefined ? {} : { context }) },
  recursionLimit: 50,
});

/** Bytes LangGraph's SqliteSaver holds for one thread: checkpoint and metadata blobs, pending writes. */
export function checkpointBytes(file: string, threadId: string): { checkpoints: number; checkpointBytes: number; writeBytes: number; total: number } {
  const db = new Database(file, { readonly: true });
  try {
    const c = db.prepare("SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(checkpoint) + LENGTH(metadata)), 0) AS bytes FROM checkpoints WHERE thread_id = ?").get(threadId) as { n: number; bytes: number };
    const w = db.prepare("SELECT COALESCE(SUM(LENGTH(value)), 0) AS bytes FROM writes WHERE thread_id = ?").get(threadId) as { bytes: number };
    return { checkpoints: c.n, checkpointBytes: c.bytes, writeBytes: w.bytes, total: c.bytes + w.bytes };
  } finally {
    db.close();
  }
}

/** Bytes of the thread's checkpoint and write blobs that contain `needle` (the view's own text never should). */
export function blobsContaining(file: string, threadId: string, needle: string): number {
  const db = new Database(file, { readonly: true });
  try {
    const c = db.prepare("SELECT COUNT(*) AS n FROM checkpoints WHERE thread_id = ? AND instr(CAST(checkpoint AS TEXT), ?) > 0").get(threadId, needle) as { n: number };
    const w = db.prepare("SELECT COUNT(*) AS n FROM writes WHERE thread_id = ? AND instr(CAST(value AS TEXT), ?) > 0").get(threadId, needle) as { n: number };
    return c.n + w.n;
  } finally {
    db.close();
  }
}

/** Messages a thread of `turns` user turns holds: user, tool-call message, its results, answer. */
export function expectedMessages(turns: number, from = 0): number {
  let n = 0;
  for (let i = from; i < from + turns; i++) n += 3 + (i % 3 === 0 ? 3 : i % 5 === 0 ? 2 : 1);
  return n;
}
