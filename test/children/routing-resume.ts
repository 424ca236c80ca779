// Child process of routing.int.test.ts: a new process opens the same checkpoint file,
// resumes a thread interrupted right after `discover_tool_groups` ran, and prints what
// its model was bound to as one JSON line.
//   routing-resume.ts <checkpoint file> <thread id> <user id>
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { SqliteContextStore } from "@contextview/sqlite";
import { countingTools, routedConfig, routedGraph, scriptedToolModel } from "../support/routing-graph.js";

async function main(): Promise<void> {
  const [file, threadId, userId] = process.argv.slice(2);
  if (!file || !threadId || !userId) throw new Error("usage: routing-resume.ts <file> <thread> <user>");
  const saver = SqliteSaver.fromConnString(file);
  const store = SqliteContextStore.nextTo(saver);
  const primary = scriptedToolModel({});
  const { graph, charged, drain } = routedGraph({ saver, store, router: countingTools().router(), primary, fallback: scriptedToolModel({}) });
  await graph.invoke(null, routedConfig(threadId, userId));
  await drain();
  const first = charged[0];
  process.stdout.write(
    `${JSON.stringify({ modelTools: primary.received.map((call) => call.tools), reasons: first?.selection.reasons, toolTokens: first?.toolTokens, expectedToolTokens: first?.expectedToolTokens })}\n`,
  );
  store.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
