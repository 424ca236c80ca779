// Saved memories in a LangGraph store, read by the node, the wrapper and the middleware.
// Shared by the InMemoryStore tests here and the PostgresStore tests in test/.
import { MEMORY_BLOCK_HEADER } from "@contextview/core/routing";
import { ContextViewAnnotation, createContextNode, withContext, type ContextOptions } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, MemorySaver, MessagesAnnotation, START, StateGraph, type BaseStore } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { RecordingChatModel } from "@contextview/test-support";

export const RELEVANT = "Groceries budget is 400 EUR per month";
export const OTHER_USER = "SECRET-U2 buys groceries at the organic shop";

/** Memories of u-1 (one relevant to groceries, many not) and one of u-2, under `namespaceOf(user)`. */
export async function saveMemories(store: BaseStore, namespaceOf: (user: string) => string[] = (user) => ["memories", user]): Promise<void> {
  await store.put(namespaceOf("u-1"), "groceries", { text: RELEVANT });
  for (let i = 0; i < 20; i++) {
    await store.put(namespaceOf("u-1"), `filler-${i}`, { text: `Filler fact number ${i} about the weather in town ${"and more words ".repeat(8)}` });
  }
  await store.put(namespaceOf("u-1"), "units", { content: "Prefers metric units" });
  await store.put(namespaceOf("u-2"), "secret", { text: OTHER_USER });
}

export type Integration = "node" | "wrapper" | "middleware";

/** The system text the model saw on its first call, for one request of u-1 through `integration`. */
export async function systemSeen(integration: Integration, store: BaseStore, options: ContextOptions, request = "How much did I spend on groceries this month?"): Promise<string> {
  const model = new RecordingChatModel();
  const config = { configurable: { thread_id: `t-${integration}`, user_id: "u-1" } };
  const input = { messages: [new HumanMessage({ id: "q", content: request })] };
  if (integration === "middleware") {
    // The middleware uses the agent's own system prompt.
    const { systemPrompt, ...rest } = options;
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      store,
      middleware: [contextMiddleware(rest)],
      ...(typeof systemPrompt === "string" ? { systemPrompt } : {}),
    });
    await agent.invoke(input, config);
  } else if (integration === "node") {
    const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
      .addNode("context", createContextNode(options))
      .addNode("model", async (state) => ({ messages: [await model.invoke(state.llmInputMessages)] }))
      .addEdge(START, "context")
      .addEdge("context", "model")
      .compile({ checkpointer: new MemorySaver(), store });
    await graph.invoke(input, config);
  } else {
    const wrapped = withContext(model, options);
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("model", async (state, nodeConfig) => ({ messages: [await wrapped.invoke(state.messages, nodeConfig)] }))
      .addEdge(START, "model")
      .compile({ checkpointer: new MemorySaver(), store });
    await graph.invoke(input, config);
  }
  const first = model.calls[0] as BaseMessage[];
  return first[0]?.type === "system" ? String(first[0].content) : "";
}

/** The memory lines of a system text. */
export function memoryLines(system: string): string[] {
  const at = system.indexOf(MEMORY_BLOCK_HEADER);
  if (at < 0) return [];
  return system
    .slice(at + MEMORY_BLOCK_HEADER.length)
    .split("\n")
    .filter((line) => line.startsWith("- "));
}
