// The scripted chat model of contextview's own tests, for yours: @langchain/core has no
// fake model that calls tools, streams and overflows like a provider.
import { randomUUID } from "node:crypto";
import { BaseChatModel, type BaseChatModelParams, type LangSmithParams } from "@langchain/core/language_models/chat_models";
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { Runnable } from "@langchain/core/runnables";

/** Asks the fake model for `n` parallel tool calls in the turn: put it in the user text. */
export const toolsMarker = (n: number) => `[tools:${n}]`;

// Providers give globally unique call ids; ToolNode skips a call whose id already has a result in the state.
const CALL_PREFIX = `call-${randomUUID().slice(0, 8)}`;
let callIds = 0;

export interface RecordingChatModelOptions extends BaseChatModelParams {
  /**
   * Throw a `ContextOverflowError` when the received messages exceed this many UTF-8
   * bytes, as a provider rejects a prompt over its window.
   * @default undefined (never overflows)
   */
  overflowAboveBytes?: number;
  /** Report `usage_metadata` like a provider; `false` like a model that reports none. @default true */
  reportsUsage?: boolean;
  /**
   * Reported `usage_metadata.input_tokens` = bytes / 3 × this: above 1, a provider that
   * counts more than contextview estimates (its calibration then shrinks the limit).
   * @default 1
   */
  usageRatio?: number;
  /** Words of each default final answer. @default 12 */
  answerWords?: number;
  /**
   * The script: `answer(messages, { index, tools })` is called on every call with the
   * messages received, the call's number `index` (from 0) and the names of the bound
   * `tools`, and says what to answer: an `AIMessage` (with `tool_calls` to call a tool),
   * a string (a text answer), an `Error` (thrown, as a provider error would be), a
   * {@link StreamedAnswer} (streamed as given), or `undefined` for the default answer.
   * @default undefined (the default answer: the parallel tool calls a user turn's
   *   `[tools:n]` marker asks for, else a text of `answerWords` words)
   * @example
   * ```ts
   * new RecordingChatModel({
   *   answer: (messages, { index }) =>
   *     index === 0 ? new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "rent" } }] }) : "Rent is 900.",
   * });
   * ```
   */
  answer?: (messages: BaseMessage[], call: { index: number; tools: string[] }) => AIMessage | StreamedAnswer | string | Error | undefined;
  /** The `ls_provider` and `ls_model_name` it reports, like a provider's model would. @default undefined (LangChain's own) */
  provider?: { name: string; model: string };
  /**
   * The model's LangChain profile (`model.profile`), which contextview reads for the
   * default `contextWindow` (`maxInputTokens`), the cap of `responseReserve`
   * (`maxOutputTokens`) and `imageInputs`: test a small or a large model without a subclass.
   * @default {} (no profile: contextview's defaults apply)
   * @example
   * ```ts
   * new RecordingChatModel({ profile: { maxInputTokens: 3000 } });
   * ```
   */
  profile?: BaseChatModel["profile"];
}

/**
 * One scripted streamed answer: text segments streamed `delayMs` apart (the call's
 * abort signal is honoured between them), then usage on the last chunk (or none), and
 * optionally one tool call. Invoked without streaming, it answers the joined text.
 */
export interface StreamedAnswer {
  segments: string[];
  usage?: { output: number; reasoning?: number };
  toolCall?: { id: string; name: string; args: Record<string, unknown> };
  delayMs?: number;
}

/** What one call received besides its messages: the names of the bound tools and every call option. */
export interface RecordedCall {
  tools: string[];
  options: Record<string, unknown>;
}

/**
 * A scripted, recording chat model for tests (`@contextview/langgraph/testing`): it records every list of messages it receives
 * (`calls`) and the tools and options of each call (`received`). By default, for a
 * user turn it answers with the parallel tool calls the turn's marker asks for, after
 * tool results with a text answer; `answer` scripts anything else. It reports
 * `usage_metadata` (unless told not to), streams word by word, can overflow like a provider,
 * and has the `profile` you give it.
 *
 * @example
 * const model = new RecordingChatModel({ answer: (_messages, { index }) => (index === 0 ? new Error("down") : "fine") });
 * await model.invoke([new HumanMessage("hi")]).catch(() => undefined);
 * expect(model.calls).toHaveLength(1);
 */
export class RecordingChatModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];
  readonly received: RecordedCall[] = [];
  readonly options: RecordingChatModelOptions;
  overflows = 0;

  constructor(options: RecordingChatModelOptions = {}) {
    super(options);
    this.options = options;
  }

  _llmType(): string {
    return "recording";
  }

  override get profile(): BaseChatModel["profile"] {
    return this.options?.profile ?? super.profile;
  }

  override bindTools(tools: unknown[], kwargs?: Record<string, unknown>): Runnable<BaseMessage[], AIMessageChunk> {
    return this.withConfig({ tools, ...kwargs } as never) as unknown as Runnable<BaseMessage[], AIMessageChunk>;
  }

  override getLsParams(options: this["ParsedCallOptions"]): LangSmithParams {
    const params = super.getLsParams(options);
    return this.options.provider ? { ...params, ls_provider: this.options.provider.name, ls_model_name: this.options.provider.model } : params;
  }

  private respond(messages: BaseMessage[], options: this["ParsedCallOptions"]): AIMessage | StreamedAnswer {
    this.calls.push(messages);
    const tools = ((options as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);
    this.received.push({ tools, options: options as Record<string, unknown> });
    const bytes = Buffer.byteLength(JSON.stringify(messages.map((m) => [m.type, m.content, (m as AIMessage).tool_calls ?? null])));
    if (this.options.overflowAboveBytes !== undefined && bytes > this.options.overflowAboveBytes) {
      this.overflows++;
      throw new ContextOverflowError(`prompt is too long: ${bytes} bytes`);
    }
    const input_tokens = Math.ceil((bytes / 3) * (this.options.usageRatio ?? 1));
    const usage = this.options.reportsUsage === false ? {} : { usage_metadata: { input_tokens, output_tokens: 20, total_tokens: input_tokens + 20 } };
    const scripted = this.options.answer?.(messages, { index: this.calls.length - 1, tools });
    if (scripted instanceof Error) throw scripted;
    if (typeof scripted === "string") return new AIMessage({ content: scripted, ...usage } as never);
    if (scripted) return scripted;
    const last = messages[messages.length - 1];
    const human = [...messages].reverse().find((m) => m.type === "human");
    const wanted = Number(/\[tools:(\d+)\]/.exec(String(human?.content ?? ""))?.[1] ?? 0);
    if (last?.type === "human" && wanted > 0) {
      const calls = Array.from({ length: wanted }, (_, k) => ({ id: `${CALL_PREFIX}-${++callIds}`, name: "search_transactions", args: { query: `q${k}`, limit: 10 + k }, type: "tool_call" as const }));
      return new AIMessage({ content: "", tool_calls: calls, ...usage } as never);
    }
    const words = Array.from({ length: this.options.answerWords ?? 12 }, (_, i) => `word${i}`).join(" ");
    return new AIMessage({ content: `Answer ${this.calls.length}: ${words}. We decided to keep the budget.`, ...usage } as never);
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const answer = this.respond(messages, options);
    const message = answer instanceof AIMessage ? answer : new AIMessage({ content: answer.segments.join("") });
    return { generations: [{ message, text: String(message.content) }] };
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const message = this.respond(messages, options);
    if (!(message instanceof AIMessage)) {
      yield* this.streamScripted(message, options, runManager);
      return;
    }
    const tokens = String(message.content).split(/(?<= )/);
    for (const [i, token] of tokens.entries()) {
      const last = i === tokens.length - 1;
      const chunk = new ChatGenerationChunk({
        text: token,
        message: new AIMessageChunk({
          content: token,
          ...(last ? { usage_metadata: message.usage_metadata, tool_call_chunks: message.tool_calls?.map((call, index) => ({ id: call.id, name: call.name, args: JSON.stringify(call.args), index, type: "tool_call_chunk" as const })) } : {}),
        } as never),
      });
      yield chunk;
      await runManager?.handleLLMNewToken(token, undefined, undefined, undefined, undefined, { chunk });
    }
  }

  /** Streams a {@link StreamedAnswer} the way a provider does: usage and tool call chunks come last. */
  private async *streamScripted(answer: StreamedAnswer, options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const parts = answer.segments.length > 0 ? answer.segments : [""];
    for (const [i, text] of parts.entries()) {
      if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
      options.signal?.throwIfAborted();
      const last = i === parts.length - 1;
      const fields: Record<string, unknown> = { content: text };
      if (last && answer.usage) {
        fields["usage_metadata"] = {
          input_tokens: 10,
          output_tokens: answer.usage.output,
          total_tokens: 10 + answer.usage.output,
          ...(answer.usage.reasoning === undefined ? {} : { output_token_details: { reasoning: answer.usage.reasoning } }),
        };
      }
      if (last && answer.toolCall) fields["tool_call_chunks"] = [{ id: answer.toolCall.id, name: answer.toolCall.name, args: JSON.stringify(answer.toolCall.args), index: 0, type: "tool_call_chunk" }];
      const chunk = new ChatGenerationChunk({ text, message: new AIMessageChunk(fields as never) });
      yield chunk;
      await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}
