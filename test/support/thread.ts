import Database from "better-sqlite3";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
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

/** Problems of one view: an AI tool-call message not followed at once by all its results, or an orphan result. */
export function brokenExchanges(messages: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i] as BaseMessage & { tool_calls?: { id?: string }[]; tool_call_id?: string };
    if (message.type === "ai" && (message.tool_calls?.length ?? 0) > 0) {
      const want = new Set(message.tool_calls?.map((call) => call.id));
      let j = i + 1;
      while (j < messages.length && messages[j]?.type === "tool") {
        want.delete((messages[j] as { tool_call_id?: string }).tool_call_id);
        j++;
      }
      if (want.size > 0) problems.push(`message ${i}: ${want.size} tool call(s) without a result`);
    }
    if (message.type === "tool") {
      let k = i - 1;
      while (k >= 0 && messages[k]?.type === "tool") k--;
      const caller = messages[k] as { tool_calls?: { id?: string }[] } | undefined;
      if (!caller?.tool_calls?.some((call) => call.id === message.tool_call_id)) problems.push(`message ${i}: orphan tool result`);
    }
  }
  return problems;
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
