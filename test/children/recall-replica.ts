// Child process of recall-graph.int.test.ts: a replica that starts cold (no index in its
// memory) opens the same thread, replays the question's checkpoint through its graph, and
// prints the view its model received and the report's recall as one JSON line.
//   recall-replica.ts sqlite <checkpoint file> <checkpoint id>
//   recall-replica.ts postgres <url> <schema> <checkpoint id>
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteContextStore } from "@contextview/sqlite";
import { PostgresContextStore } from "@contextview/postgres";
import { recallReplica, replayQuestion, viewOf } from "../support/recall-thread.js";

async function main(): Promise<void> {
  const [kind, where, ...rest] = process.argv.slice(2);
  if (!where || (kind !== "sqlite" && kind !== "postgres")) throw new Error("usage: recall-replica.ts sqlite <file> <checkpoint> | postgres <url> <schema> <checkpoint>");
  const checkpointId = rest.at(-1) as string;
  const saver = kind === "sqlite" ? SqliteSaver.fromConnString(where) : PostgresSaver.fromConnString(where, { schema: rest[0] as string });
  const store = saver instanceof SqliteSaver ? SqliteContextStore.nextTo(saver) : PostgresContextStore.nextTo(saver);
  try {
    const replica = recallReplica(saver, store);
    await replayQuestion(replica, checkpointId);
    process.stdout.write(`${JSON.stringify({ view: viewOf(replica.model.calls.at(-1) ?? []), recall: replica.reports.at(-1)?.recall })}\n`);
  } finally {
    if (store instanceof SqliteContextStore) store.close();
    if (saver instanceof PostgresSaver) await saver.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
