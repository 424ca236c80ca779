// Child process of langgraph-node.int.test.ts: a new process opens the same checkpoint
// file, runs one more turn of the thread, and prints what it found as one JSON line.
//   continue-thread.ts <checkpoint file> <thread id> <user id> <turn>
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SqliteContextStore } from "@contextview/sqlite";
import { createContextNode, type ContextLogRecord } from "@contextview/langgraph";
import { RecordingChatModel } from "@contextview/test-support";
import { customGraph } from "../support/custom-graph.js";
import { configFor, userTurn } from "../support/thread.js";

async function main(): Promise<void> {
  const [file, threadId, userId, turnArg] = process.argv.slice(2);
  if (!file || !threadId || !userId) throw new Error("usage: continue-thread.ts <file> <thread> <user> <turn>");
  const saver = SqliteSaver.fromConnString(file);
  const store = SqliteContextStore.nextTo(saver);
  const evidenceBefore = (await store.load(userId, threadId)).toJSON();
  const compactionBefore = await store.getCompaction({ userId, conversationId: threadId });
  const records: ContextLogRecord[] = [];
  const node = createContextNode({
    store,
    budget: { contextWindow: 16384, promptBudget: 4000 },
    logger: { info: (record) => void records.push(record), warn: (record) => void records.push(record) },
  });
  const graph = customGraph(new RecordingChatModel(), saver, node);
  const state = await graph.invoke({ messages: [userTurn(Number(turnArg))] }, { ...configFor(threadId, userId, { summarize: false }), durability: "exit" });
  await node.drain();
  process.stdout.write(
    `${JSON.stringify({ evidenceBefore, compactionBefore, firstBudget: records.find((r) => r.event === "context_budget"), messagesAfter: state.messages.length, cursorAfter: (await store.load(userId, threadId)).cursor })}\n`,
  );
  store.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
