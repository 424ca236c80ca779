import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SqliteContextStore } from "@contextview/sqlite";
import { financeAgent } from "../../../../examples/finance-agent/agent";
import { userRequest } from "../../../../examples/finance-agent/script";

/** A fresh temporary directory per test file, removed after it. */
export function useTempDir(prefix = "contextview-inspect-"): () => string {
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    // Retried: a child process (a browser, a worker) may still be closing files inside it.
    if (dir) rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });
  return () => dir as string;
}

/**
 * The main example's agent (real StateGraph, SqliteSaver, SqliteContextStore on disk,
 * scripted model, extractive summarizer) on a smaller budget so that a few turns see
 * tool-result clearing and summaries. `extra` user messages go after the scripted ones.
 */
export async function runFinanceThread(dir: string, options: { turns: number; promptBudget?: number; threadId?: string; extra?: string[] }): Promise<{ file: string; threadId: string; userId: string }> {
  const file = join(dir, "checkpoints.sqlite");
  const checkpointer = SqliteSaver.fromConnString(file);
  const store = SqliteContextStore.nextTo(checkpointer);
  const { graph, context } = financeAgent({ checkpointer, store, promptBudget: options.promptBudget ?? 8000 });
  const threadId = options.threadId ?? "demo-thread";
  const config = { configurable: { thread_id: threadId, user_id: "alice" } };
  const requests = [...Array.from({ length: options.turns }, (_, i) => userRequest(i)), ...(options.extra ?? [])];
  for (const request of requests) await graph.invoke({ messages: [new HumanMessage(request)] }, config);
  await context.drain();
  store.close();
  (checkpointer as unknown as { db: { close(): void } }).db.close();
  return { file, threadId, userId: "alice" };
}
