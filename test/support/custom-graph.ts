import { Annotation, END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { AIMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ContextViewAnnotation, type ContextNode } from "@contextview/langgraph";
import { searchTool, type RecordingChatModel } from "@contextview/test-support";

export const GraphState = Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec });

const route = (state: { messages: unknown[] }) => ((state.messages[state.messages.length - 1] as AIMessage).tool_calls?.length ? "tools" : END);

/**
 * model ⇄ tools, with the context node before the model when given. Without it
 * the model reads the full `messages` (the baseline for checkpoint sizes).
 */
export function customGraph(model: RecordingChatModel, checkpointer: BaseCheckpointSaver, context?: ContextNode, state: typeof GraphState = GraphState, rows = 8) {
  const tools = new ToolNode([searchTool(rows)]);
  const bound = model.bindTools([searchTool(rows)]);
  const graph = new StateGraph(state)
    .addNode("model", async (state, config: RunnableConfig) => ({ messages: [await bound.invoke(context ? state.llmInputMessages : state.messages, config)] }))
    .addNode("tools", tools)
    .addConditionalEdges("model", route, ["tools", END]);
  if (!context) return graph.addEdge(START, "model").addEdge("tools", "model").compile({ checkpointer });
  return graph.addNode("context", context).addEdge(START, "context").addEdge("context", "model").addEdge("tools", "context").compile({ checkpointer });
}
