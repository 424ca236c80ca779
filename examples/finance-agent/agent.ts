import type { HumanMessage } from "@langchain/core/messages";
import { Annotation, END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { ContextViewAnnotation, createContextNode, type ContextLogger } from "@contextview/langgraph";
import type { SqliteContextStore } from "@contextview/sqlite";
import { ScriptedChatModel } from "./scripted-model";
import { extractiveSummarizer } from "./summarizer";
import { TOOLS } from "./tools";

/** Options of {@link financeAgent}. */
export interface FinanceAgentOptions {
  checkpointer: BaseCheckpointSaver;
  store: SqliteContextStore;
  /** The prompt limit of the context node, in estimated tokens. */
  promptBudget: number;
  logger?: ContextLogger;
  /** Summarize older turns (the extractive stand-in); `false` drops them instead. @default true */
  summarize?: boolean;
}

/**
 * The example's agent: a StateGraph whose context node gives the scripted model a
 * bounded view on every call, with tools and the extractive summarizer. The inspector's
 * tests run this same agent, so what they inspect is what the README shows.
 */
export function financeAgent({ checkpointer, store, promptBudget, logger, summarize = true }: FinanceAgentOptions) {
  const model = new ScriptedChatModel().bindTools(TOOLS);
  const context = createContextNode({
    store,
    tools: TOOLS,
    systemPrompt: "You are a careful personal-finance assistant. Use the tools; quote ids, dates and totals exactly.",
    budget: { promptBudget },
    ...(summarize ? { summarizer: extractiveSummarizer } : {}),
    ...(logger ? { logger } : {}),
  });
  const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
    .addNode("context", context)
    .addNode("model", async (state: { llmInputMessages: HumanMessage[] }, config) => ({ messages: [await model.invoke(state.llmInputMessages, config)] }))
    .addNode("tools", new ToolNode(TOOLS))
    .addEdge(START, "context")
    .addEdge("context", "model")
    .addConditionalEdges("model", toolsCondition, ["tools", END])
    .addEdge("tools", "context")
    .compile({ checkpointer });
  return { graph, context };
}
