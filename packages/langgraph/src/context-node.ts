import { ConversationMemo, describeValue, retryOnOverflow } from "@contextview/core/internal";
import type { ManagedView, MessageInput } from "@contextview/core";
import type { BaseMessage } from "@langchain/core/messages";
import { RunnableLambda, type RunnableConfig } from "@langchain/core/runnables";
import { createContextPipeline, type PreparedRequest } from "./context-pipeline.js";
import { ContextIntegrationError } from "./errors.js";
import { modelLimitsOf } from "./model-profile.js";
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

/**
 * A model node of a graph that uses the context node: it reads the view from
 * `state.llmInputMessages` and returns its update (usually `{ messages: [reply] }`).
 */
export type ModelNode<State extends ContextNodeInput & Partial<ContextNodeUpdate>, Update> = (state: State, config: RunnableConfig) => Promise<Update>;

/** The pre-model node: a `RunnableLambda` plus control of its background evidence updates. */
export type ContextNode = RunnableLambda<ContextNodeInput, ContextNodeUpdate> & {
  /**
   * Wrap the graph's model node so that one context overflow is recovered, as
   * {@link withContext} does: when the model node throws an overflow (or its reply
   * says so), this node's view is rebuilt with harder compaction (a smaller limit
   * and a summary attempt) from the same `state.messages`, and the model node runs
   * once more with it in `llmInputMessages`. A second overflow surfaces. The
   * rebuilt view is reported with `overflowRecovery: true`.
   *
   * @example
   * ```ts
   * const context = createContextNode({ store });
   * const graph = new StateGraph(State)
   *   .addNode("context", context)
   *   .addNode("model", context.withOverflowRecovery(async (state, config) => ({ messages: [await model.invoke(state.llmInputMessages, config)] })))
   *   .addEdge(START, "context")
   *   .addEdge("context", "model");
   * ```
   */
  withOverflowRecovery<State extends ContextNodeInput & Partial<ContextNodeUpdate>, Update>(modelNode: ModelNode<State, Update>): ModelNode<State, Update>;
  /** Wait for background evidence updates (`evidence: "background"`); call on shutdown, before closing the store. */
  drain(): Promise<void>;
  /** Background evidence updates scheduled or running. */
  readonly pendingEvidenceUpdates: number;
};

/** The newest message of a model node's update (`{ messages: [reply] }` or `{ messages: reply }`), if any. */
function lastMessageOf(update: unknown): unknown {
  const messages = (update as { messages?: unknown } | null | undefined)?.messages;
  return Array.isArray(messages) ? messages[messages.length - 1] : messages;
}

/**
 * True when the node runs in a graph whose state has no `llmInputMessages` channel:
 * LangGraph drops a write to a channel it does not have, so the model node would
 * read `undefined`. The graph's own read function (internal to LangGraph) fails on
 * an undeclared channel and returns null for an empty one; without it (the node
 * called outside a graph) nothing is known.
 */
function lacksViewChannel(config: RunnableConfig | undefined): boolean {
  const read = config?.configurable?.["__pregel_read"];
  if (typeof read !== "function") return false;
  try {
    read(LLM_INPUT_MESSAGES, false);
    return false;
  } catch (error) {
    return error instanceof TypeError;
  }
}

const MISSING_VIEW_CHANNEL =
  "The graph state has no `llmInputMessages` channel, so the view would never reach the model node. " +
  "Add `ContextViewAnnotation` to the state: `new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))` " +
  "(with a `StateSchema`, spread `contextViewFields` into its fields, or use `ContextViewStateSchema`)";

/**
 * Create the pre-model node. On each run it reads the checkpoint messages from
 * `state.messages`, takes the key from `config.configurable.thread_id` and the
 * user (`user_id`, the runtime `context.userId`, or `resolveUserId`; either may be absent,
 * see `report.scope`), validates the request's settings (runtime `context`, `configurable.context`),
 * updates (or loads) the durable evidence, compacts and selects, then writes the
 * view to `llmInputMessages`, emits the `contextview_report` custom event and logs
 * `context_budget` / `prompt_budget`. The checkpoint messages are never changed.
 *
 * Declare `llmInputMessages` with {@link ContextViewAnnotation} (or
 * {@link contextViewFields}) so the view is not stored in checkpoints. The node also
 * works as `preModelHook` of createReactAgent. When the model's answer (the message
 * after the view's input) carries `usage_metadata`, the next run feeds it to calibration.
 * Overflow recovery needs the model call itself: wrap the model node with
 * {@link ContextNode.withOverflowRecovery} (or call the model through {@link withContext}).
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

  // A stateless request has no conversation to remember a view of, nor to calibrate.
  const calibrateFromAnswer = async (prepared: PreparedRequest, messages: readonly MessageInput[]) => {
    if (prepared.scope === "stateless") return;
    const last = lastViews.get(prepared.key);
    if (!last) return;
    const answer = messages[last.inputLength] as { usage_metadata?: unknown } | undefined;
    if (answer?.usage_metadata === undefined) return;
    await pipeline.recordUsage(prepared, { messages: [], report: last.report }, answer);
  };
  const rememberView = (prepared: PreparedRequest, view: ManagedView, inputLength: number) => {
    if (prepared.scope !== "stateless") lastViews.set(prepared.key, { report: view.report, inputLength });
  };

  const contextNode = async (state: ContextNodeInput, config?: RunnableConfig): Promise<ContextNodeUpdate> => {
    const messages = (state as Partial<ContextNodeInput> | undefined)?.messages;
    if (!Array.isArray(messages)) {
      throw new ContextIntegrationError("INVALID_STATE", "Expected the graph state to have a `messages` array (use MessagesAnnotation or MessagesValue)", { field: "state.messages" });
    }
    if (lacksViewChannel(config)) throw new ContextIntegrationError("INVALID_STATE", MISSING_VIEW_CHANNEL, { field: "state.llmInputMessages" });
    const tools = toolsForCall?.({ messages, config: config ?? {} });
    const prepared = await pipeline.prepare({ config, messages, profile: modelLimitsOf(pipeline.options.model), ...(tools === undefined ? {} : { tools }) });
    await calibrateFromAnswer(prepared, messages);
    const view = await pipeline.build(prepared);
    rememberView(prepared, view, messages.length);
    return { [LLM_INPUT_MESSAGES]: view.messages } as ContextNodeUpdate;
  };

  const withOverflowRecovery = <State extends ContextNodeInput & Partial<ContextNodeUpdate>, Update>(modelNode: ModelNode<State, Update>): ModelNode<State, Update> => {
    if (typeof modelNode !== "function") {
      throw new ContextIntegrationError("INVALID_OPTION", `Expected \`modelNode\` to be a function (state, config) => update, got ${describeValue(modelNode)}`, { field: "modelNode" });
    }
    return async function recoverOverflow(state: State, config: RunnableConfig): Promise<Update> {
      const { result } = await retryOnOverflow<Update>({
        isOverflow: (value) => pipeline.isOverflow(value),
        call: () => modelNode(state, config),
        replyOf: lastMessageOf,
        retry: async () => {
          const messages = (state as Partial<ContextNodeInput> | undefined)?.messages;
          if (!Array.isArray(messages)) {
            throw new ContextIntegrationError("INVALID_STATE", "Expected the graph state to have a `messages` array (use MessagesAnnotation or MessagesValue)", { field: "state.messages" });
          }
          const tools = toolsForCall?.({ messages, config: config ?? {} });
          const prepared = await pipeline.prepare({ config, messages, profile: modelLimitsOf(pipeline.options.model), ...(tools === undefined ? {} : { tools }) });
          const view = await pipeline.build(prepared, true);
          rememberView(prepared, view, messages.length);
          return modelNode({ ...state, [LLM_INPUT_MESSAGES]: view.messages }, config);
        },
      });
      return result;
    };
  };

  const node = new RunnableLambda<ContextNodeInput, ContextNodeUpdate>({ func: contextNode });
  return Object.defineProperties(node, {
    withOverflowRecovery: { value: withOverflowRecovery, enumerable: false },
    drain: { value: () => pipeline.drain(), enumerable: false },
    pendingEvidenceUpdates: { get: () => pipeline.pendingEvidenceUpdates, enumerable: false },
  }) as ContextNode;
}
