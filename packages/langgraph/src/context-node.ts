import { ConversationMemo, type ConversationKey, type ManagedView, type MessageInput } from "@contextview/core";
import type { BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { createContextPipeline } from "./context-pipeline.js";
import { ContextIntegrationError } from "./errors.js";
import type { ContextOptions, ToolsForCall } from "./options.js";
import { LLM_INPUT_MESSAGES } from "./view-state.js";

/** What the node reads from the graph state. */
export interface ContextNodeInput {
  messages: readonly MessageInput[];
}

/** What the node writes: the view, in the channel the model node reads. */
export interface ContextNodeUpdate {
  llmInputMessages: BaseMessage[];
}

/** The pre-model node: a `RunnableLambda` plus control of its background evidence updates. */
export type ContextNode = RunnableLambda<ContextNodeInput, ContextNodeUpdate> & {
  /** Wait for background evidence updates (`evidence: "background"`); call on shutdown, before closing the store. */
  drain(): Promise<void>;
  /** Background evidence updates scheduled or running. */
  readonly pendingEvidenceUpdates: number;
};

/**
 * Create the pre-model node. On each run it reads the checkpoint messages from
 * `state.messages`, takes the key from `config.configurable.thread_id` and the
 * user (`user_id` or `resolveUserId`), validates `config.configurable.context`,
 * updates (or loads) the durable evidence, compacts and selects, then writes the
 * view to `llmInputMessages`, emits the `contextview_report` custom event and logs
 * `context_budget` / `prompt_budget`. The checkpoint messages are never changed.
 *
 * Declare `llmInputMessages` with {@link ContextViewAnnotation} (or
 * {@link contextViewFields}) so the view is not stored in checkpoints. The node also
 * works as `preModelHook` of createReactAgent. When the model's answer (the message
 * after the view's input) carries `usage_metadata`, the next run feeds it to calibration.
 * Overflow recovery needs the model call itself: use {@link withContext} for that.
 *
 * With `streamMode: "messages"`, LangGraph streams every message a node returns, so
 * the view's own messages (summary, evidence, labels) appear once under this node's
 * `langgraph_node`; filter the stream on the model node, as for any pre-model hook.
 *
 * @example
 * ```ts
 * const checkpointer = SqliteSaver.fromConnString("/data/checkpoints.sqlite");
 * const context = createContextNode({ store: SqliteContextStore.nextTo(checkpointer), budget: { promptBudget: 12000 } });
 * const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
 *   .addNode("context", context)
 *   .addNode("model", async (state, config) => ({ messages: [await model.invoke(state.llmInputMessages, config)] }))
 *   .addEdge(START, "context")
 *   .addEdge("context", "model")
 *   .compile({ checkpointer });
 * await graph.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "t-1", user_id: "u-1" } });
 * await context.drain();
 * ```
 */
export function createContextNode(options: ContextOptions = {}): ContextNode {
  const pipeline = createContextPipeline(options, "node");
  const toolsForCall = typeof options.tools === "function" ? (options.tools as ToolsForCall) : undefined;
  // Per conversation, the report of the last view (counts only) and the length of its input: enough for `recordUsage`.
  const lastViews = new ConversationMemo<{ report: ManagedView["report"]; inputLength: number }>();

  const calibrateFromAnswer = async (key: ConversationKey, messages: readonly MessageInput[]) => {
    const last = lastViews.get(key);
    if (!last) return;
    const answer = messages[last.inputLength] as { usage_metadata?: unknown } | undefined;
    if (answer?.usage_metadata === undefined) return;
    await pipeline.recordUsage(key, { messages: [], report: last.report }, answer);
  };

  const contextNode = async (state: ContextNodeInput, config?: RunnableConfig): Promise<ContextNodeUpdate> => {
    const messages = (state as Partial<ContextNodeInput> | undefined)?.messages;
    if (!Array.isArray(messages)) {
      throw new ContextIntegrationError("INVALID_STATE", "Expected the graph state to have a `messages` array (use MessagesAnnotation or MessagesValue)", { field: "state.messages" });
    }
    const tools = toolsForCall?.({ messages, config: config ?? {} });
    const prepared = await pipeline.prepare({ config, messages, ...(tools === undefined ? {} : { tools }) });
    await calibrateFromAnswer(prepared.key, messages);
    const view = await pipeline.build(prepared);
    lastViews.set(prepared.key, { report: view.report, inputLength: messages.length });
    return { [LLM_INPUT_MESSAGES]: view.messages } as ContextNodeUpdate;
  };

  const node = new RunnableLambda<ContextNodeInput, ContextNodeUpdate>({ func: contextNode });
  return Object.defineProperties(node, {
    drain: { value: () => pipeline.drain(), enumerable: false },
    pendingEvidenceUpdates: { get: () => pipeline.pendingEvidenceUpdates, enumerable: false },
  }) as ContextNode;
}
