// One replica of the graph: its own PostgresSaver, PostgresContextStore and PostgresStore
// (its own pools), serving whichever turns it is sent. Started by replicas.ts.
// Reads one JSON line per turn on stdin ({ turn, text }) and answers one JSON line on stdout.
import { createInterface } from "node:readline";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { MEMORY_BLOCK_HEADER } from "@contextview/core/routing";
import { ContextViewAnnotation, createContextNode } from "@contextview/langgraph";
import { PostgresContextStore } from "@contextview/postgres";
import { EVIDENCE_MARKERS, type TurnResult } from "./protocol";

const [replica, url, schema, threadId, userId] = process.argv.slice(2) as [string, string, string, string, string];

async function main(): Promise<void> {
  // The tables exist (replicas.ts set them up once); each replica only connects.
  const checkpointer = PostgresSaver.fromConnString(url, { schema });
  const store = PostgresContextStore.nextTo(checkpointer);
  const memories = PostgresStore.fromConnString(url, { schema, ensureTables: false });
  const model = new FakeListChatModel({ responses: [`Noted, from replica ${replica}.`] });
  let seen: BaseMessage[] = [];

  const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
    .addNode("context", createContextNode({ store, memories: true, budget: { promptBudget: 4000, memoryBudget: 200 } }))
    .addNode("model", async (state) => {
      seen = state.llmInputMessages;
      return { messages: [new AIMessage(String((await model.invoke(state.llmInputMessages)).content))] };
    })
    .addEdge(START, "context")
    .addEdge("context", "model")
    .addEdge("model", END)
    .compile({ checkpointer, store: memories });

  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const { turn, text } = JSON.parse(line) as { turn: number; text: string };
    const config = { configurable: { thread_id: threadId, user_id: userId } };
    const state = await graph.invoke({ messages: [new HumanMessage({ id: `turn-${turn}`, content: text })] }, config);
    const evidence = seen.find((m) => String(m.id ?? "").startsWith("contextview-evidence-"));
    const system = seen[0]?.type === "system" ? String(seen[0].content) : "";
    const result: TurnResult = {
      replica,
      turn,
      checkpointMessages: state.messages.length,
      viewMessages: seen.length,
      evidenceMarkers: EVIDENCE_MARKERS.filter((marker) => String(evidence?.content ?? "").includes(marker)),
      viewMarkers: EVIDENCE_MARKERS.filter((marker) => seen.some((m) => JSON.stringify(m.content).includes(marker))),
      firstTurnInView: seen.some((m) => m.id === "turn-1"),
      secondTurnInView: seen.some((m) => m.id === "turn-2"),
      memoryLines: system.includes(MEMORY_BLOCK_HEADER) ? system.split("\n").filter((l) => l.startsWith("- ")).length : 0,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  }
  await memories.stop();
  await checkpointer.end();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
