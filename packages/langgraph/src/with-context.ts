import type { MessageInput } from "@contextview/core";
import type { BaseMessage } from "@langchain/core/messages";
import { Runnable, ensureConfig, type RunnableConfig } from "@langchain/core/runnables";
import { concat } from "@langchain/core/utils/stream";
import { createContextPipeline, type ContextPipeline } from "./context-pipeline.js";
import { ContextIntegrationError } from "./errors.js";
import { modelLimitsOf } from "./model-profile.js";
import type { ContextOptions, ToolsForCall } from "./options.js";
import { describeValue, streamRetryOnOverflow } from "@contextview/core/internal";

/** Tools bound with `bindTools`/`withConfig`, found along a chain of `RunnableBinding`s. */
function boundTools(model: unknown): readonly unknown[] | undefined {
  let current = model as { bound?: unknown; config?: { tools?: unknown }; kwargs?: { tools?: unknown } } | undefined;
  for (let depth = 0; current && depth < 8; depth++) {
    const tools = current.config?.tools ?? current.kwargs?.tools;
    if (Array.isArray(tools)) return tools;
    current = current.bound as typeof current;
  }
  return undefined;
}

/**
 * A chat-model runnable behind a bounded view; see {@link withContext}.
 * Input: the full conversation; output: whatever the wrapped model returns.
 */
export class ContextModel<RunOutput = BaseMessage, CallOptions extends RunnableConfig = RunnableConfig> extends Runnable<readonly MessageInput[], RunOutput, CallOptions> {
  override lc_namespace = ["contextview", "langgraph"];

  /** The wrapped model, called with the view. */
  readonly model: Runnable<BaseMessage[], RunOutput, CallOptions>;
  readonly #pipeline: ContextPipeline;
  readonly #tools: readonly unknown[] | undefined;
  readonly #toolsForCall: ToolsForCall | undefined;

  constructor(model: Runnable<BaseMessage[], RunOutput, CallOptions>, options: ContextOptions = {}) {
    super();
    if (!Runnable.isRunnable(model)) {
      throw new ContextIntegrationError("INVALID_OPTION", `Expected \`model\` to be a chat-model runnable (a chat model, or the result of bindTools), got ${describeValue(model)}`, { field: "model" });
    }
    this.model = model;
    this.#pipeline = createContextPipeline(options, "wrapper");
    this.#tools = Array.isArray(options.tools) ? options.tools : boundTools(model);
    this.#toolsForCall = typeof options.tools === "function" ? (options.tools as ToolsForCall) : undefined;
  }

  /** The tools charged for this call: a per-call selection, the given list, or the bound tools. */
  #toolsOf(messages: readonly MessageInput[], options: unknown): readonly unknown[] | undefined {
    return this.#toolsForCall ? this.#toolsForCall({ messages, config: (options ?? {}) as RunnableConfig }) : this.#tools;
  }

  static override lc_name(): string {
    return "ContextModel";
  }

  /**
   * Build the view of `messages`, call the model with it (and the caller's config,
   * unchanged), retry once with a smaller view after a context overflow, and feed
   * `usage_metadata` to calibration.
   */
  override async invoke(messages: readonly MessageInput[], options?: Partial<CallOptions>): Promise<RunOutput> {
    const prepared = await this.#pipeline.prepare({ config: ensureConfig(options as RunnableConfig | undefined), messages, tools: this.#toolsOf(messages, options), profile: modelLimitsOf(this.model) });
    const { result, view } = await this.#pipeline.run(prepared, (view) => this.model.invoke(view, options));
    await this.#pipeline.recordUsage(prepared, view, result);
    return result;
  }

  /**
   * Stream the model's chunks for the view. An overflow raised before the first
   * chunk is retried once with a smaller view; after the first chunk it surfaces.
   */
  override async *_streamIterator(messages: readonly MessageInput[], options?: Partial<CallOptions>): AsyncGenerator<RunOutput> {
    const prepared = await this.#pipeline.prepare({ config: options as RunnableConfig | undefined, messages, tools: this.#toolsOf(messages, options), profile: modelLimitsOf(this.model) });
    let view = await this.#pipeline.build(prepared);
    let final: RunOutput | undefined;
    const chunks = streamRetryOnOverflow({
      isOverflow: (value) => this.#pipeline.isOverflow(value),
      call: () => this.model.stream(view.messages, options),
      retry: async () => {
        view = await this.#pipeline.build(prepared, true);
        return this.model.stream(view.messages, options);
      },
    });
    for await (const chunk of chunks) {
      final = final === undefined ? chunk : (concat(final as never, chunk as never) as RunOutput);
      yield chunk;
    }
    if (final !== undefined) await this.#pipeline.recordUsage(prepared, view, final);
  }

  /** Wait for background evidence updates (`evidence: "background"`); call on shutdown. */
  drain(): Promise<void> {
    return this.#pipeline.drain();
  }

  /** Background evidence updates scheduled or running. */
  get pendingEvidenceUpdates(): number {
    return this.#pipeline.pendingEvidenceUpdates;
  }
}

/**
 * Wrap a chat-model runnable (a chat model, or the result of `bindTools`) so that
 * it takes the full conversation and calls the model with a bounded view. The
 * caller's config (callbacks, tags, signal, `configurable`) reaches the model
 * unchanged, so LangGraph's `streamMode: "messages"` still sees its tokens; a
 * configured summarizer runs with its own callbacks and `nostream` tags. One
 * context overflow is recovered by a smaller view; `usage_metadata` calibrates
 * the estimates. The key comes from `config.configurable.thread_id` and the user; without a
 * thread id (a model called outside a graph, no config) the view is stateless (`report.scope`).
 *
 * @example
 * ```ts
 * const model = withContext(new ChatOpenAI({ model: "gpt-4o" }).bindTools(tools), {
 *   store: SqliteContextStore.nextTo(checkpointer),
 *   budget: { contextWindow: 128000, promptBudget: 24000 },
 * });
 * const callModel = async (state: typeof MessagesAnnotation.State, config: RunnableConfig) => ({
 *   messages: [await model.invoke(state.messages, config)],
 * });
 * ```
 */
export function withContext<RunOutput = BaseMessage, CallOptions extends RunnableConfig = RunnableConfig>(
  model: Runnable<BaseMessage[], RunOutput, CallOptions>,
  options: ContextOptions = {},
): ContextModel<RunOutput, CallOptions> {
  return new ContextModel(model, options);
}
