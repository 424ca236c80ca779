import type { BaseMessage } from "@langchain/core/messages";
import { Annotation, MessagesValue, StateSchema, UntrackedValue, UntrackedValueChannel, type BaseChannel } from "@langchain/langgraph";

/** The state key the view is written to: the convention of createReactAgent's `preModelHook`. */
export const LLM_INPUT_MESSAGES = "llmInputMessages";

/**
 * The channel that carries the view from the pre-model node to the model node.
 *
 * Why untracked: a view is a derived copy of the checkpoint's own messages, up to
 * the prompt budget in size. LangGraph checkpoints every tracked channel after each
 * step and stores each node's writes, so a plain (`LastValue` or reducer) channel
 * would add one view to every checkpoint of the thread. An `UntrackedValue`
 * channel is neither checkpointed nor written to the checkpoint's pending writes;
 * it lives for one graph run, which is exactly the life of a view. An
 * `EphemeralValue` would not do: it is cleared after a step but still checkpointed
 * in the checkpoint taken between the node and the model.
 *
 * `equals` also accepts the reducer channel that createReactAgent declares for its
 * `preModelHook` input, so a graph whose state schema already holds this channel
 * keeps it (the prebuilt's version would be checkpointed).
 *
 * Consequence: a run interrupted between the node and the model node resumes
 * without a view; the model node should then run the node again or refuse (the
 * prebuilt agent falls back to the full messages).
 */
export class ViewMessagesChannel extends UntrackedValueChannel<BaseMessage[]> {
  constructor() {
    super({ guard: true });
  }

  override fromCheckpoint(): this {
    return new ViewMessagesChannel() as this;
  }

  override equals(other: BaseChannel): boolean {
    return other === this || other.lc_graph_name === "UntrackedValue" || other.lc_graph_name === "BinaryOperatorAggregate";
  }
}

/**
 * The state of a graph that uses {@link createContextNode}: spread its `spec` into
 * your own `Annotation.Root`. `llmInputMessages` holds the view for the model node
 * and is never stored in checkpoints (see {@link ViewMessagesChannel}).
 *
 * @example
 * ```ts
 * const State = Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec });
 * const graph = new StateGraph(State)
 *   .addNode("context", createContextNode({ store }))
 *   .addNode("model", async (state, config) => ({ messages: [await model.invoke(state.llmInputMessages, config)] }))
 *   .addEdge(START, "context")
 *   .addEdge("context", "model");
 * ```
 */
export const ContextViewAnnotation = Annotation.Root({
  llmInputMessages: (): ViewMessagesChannel => new ViewMessagesChannel(),
});

/**
 * The same field for a `StateSchema` (zod-based state): spread it into your fields.
 * A `StateSchema` builds LangGraph's own untracked channel, so prefer
 * {@link ContextViewAnnotation} with createReactAgent.
 *
 * @example
 * ```ts
 * const State = new StateSchema({ messages: MessagesValue, plan: z.string().optional(), ...contextViewFields });
 * ```
 */
export const contextViewFields = Object.freeze({
  llmInputMessages: new UntrackedValue<BaseMessage[]>(),
});

/**
 * A complete `StateSchema`: LangGraph's `messages` plus the untracked `llmInputMessages`.
 *
 * @example
 * ```ts
 * const graph = new StateGraph(ContextViewStateSchema).addNode("context", createContextNode({ store }));
 * ```
 */
export const ContextViewStateSchema = new StateSchema({
  messages: MessagesValue,
  ...contextViewFields,
});
