import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { ModelCallRecord } from "./records.js";

const SUMMARIZER_TAG = "contextview:summarizer";

interface CallState {
  model: string;
  provider: string;
  role: ModelCallRecord["role"];
  startedAt: number;
  firstTokenAt: number | undefined;
  endedAt: number | undefined;
  outcome: ModelCallRecord["outcome"];
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const num = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);

function modelName(llm: Serialized, extraParams: Record<string, unknown> | undefined, metadata: Record<string, unknown> | undefined): string {
  const params = extraParams?.["invocation_params"] as Record<string, unknown> | undefined;
  const kwargs = (llm as { kwargs?: Record<string, unknown> }).kwargs;
  const id = (llm as { id?: unknown }).id;
  return (
    str(metadata?.["ls_model_name"]) ??
    str(params?.["model"]) ??
    str(params?.["model_name"]) ??
    str(kwargs?.["model"]) ??
    (Array.isArray(id) ? str(id[id.length - 1]) : undefined) ??
    "unknown"
  );
}

/** Output usage of a finished call: `usage_metadata` of its messages, else `llmOutput.tokenUsage`. */
function usageOf(output: LLMResult): { input: number | null; output: number | null; reasoning: number | null } {
  let input: number | null = null;
  let out: number | null = null;
  let reasoning: number | null = null;
  for (const generation of output.generations.flat()) {
    const usage = (generation as { message?: { usage_metadata?: Record<string, unknown> } }).message?.usage_metadata;
    if (usage === undefined) continue;
    const add = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);
    input = add(input, num(usage["input_tokens"]));
    out = add(out, num(usage["output_tokens"]));
    reasoning = add(reasoning, num((usage["output_token_details"] as Record<string, unknown> | undefined)?.["reasoning"]));
  }
  if (out === null) {
    const tokenUsage = (output.llmOutput as { tokenUsage?: Record<string, unknown> } | undefined)?.tokenUsage;
    out = num(tokenUsage?.["completionTokens"]);
    input = input ?? num(tokenUsage?.["promptTokens"]);
  }
  return { input, output: out, reasoning };
}

/**
 * A LangChain callback handler that measures one request: every model call (model,
 * provider, token usage, reasoning tokens when reported, time to first token,
 * duration) and every tool run. Pass it in `config.callbacks` of the graph or model
 * run; it is awaited inline so its timestamps are those of the events.
 *
 * Use a new meter per request. {@link measureStreamRequest} creates one for you.
 *
 * @example
 * ```ts
 * const meter = new StreamMeter();
 * await graph.invoke(input, { ...config, callbacks: [meter] });
 * meter.usage(); // { tokens: 42, completedOutputTokens: 42, usageComplete: true }
 * meter.modelCalls(); // [{ model: "gpt-4o-mini", provider: "openai", outputTokens: 42, … }]
 * ```
 */
export class StreamMeter extends BaseCallbackHandler {
  override name = "contextview_stream_meter";
  override awaitHandlers = true;

  readonly #now: () => number;
  readonly #calls = new Map<string, CallState>();
  #toolCalls = 0;

  /**
   * @param options.now - The clock, in milliseconds. @default performance.now
   */
  constructor(options: { now?: () => number } = {}) {
    super();
    this.#now = options.now ?? (() => performance.now());
  }

  /** Start of the first model call, on the meter's clock; undefined before any. */
  get firstModelStart(): number | undefined {
    return this.#calls.values().next().value?.startedAt;
  }

  /** Tool runs started. */
  get toolCalls(): number {
    return this.#toolCalls;
  }

  override handleChatModelStart(
    llm: Serialized,
    _messages: BaseMessage[][],
    runId: string,
    _parentRunId?: string,
    extraParams?: Record<string, unknown>,
    tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    this.#start(runId, llm, extraParams, tags, metadata);
  }

  override handleLLMStart(llm: Serialized, _prompts: string[], runId: string, _parentRunId?: string, extraParams?: Record<string, unknown>, tags?: string[], metadata?: Record<string, unknown>): void {
    this.#start(runId, llm, extraParams, tags, metadata);
  }

  override handleLLMNewToken(_token: string, _idx: unknown, runId: string): void {
    const call = this.#calls.get(runId);
    if (call && call.firstTokenAt === undefined) call.firstTokenAt = this.#now();
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const call = this.#calls.get(runId);
    if (!call) return;
    const usage = usageOf(output);
    call.endedAt = this.#now();
    call.outcome = "success";
    call.inputTokens = usage.input;
    call.outputTokens = usage.output;
    call.reasoningTokens = usage.reasoning;
  }

  override handleLLMError(_error: unknown, runId: string): void {
    const call = this.#calls.get(runId);
    if (!call) return;
    call.endedAt = this.#now();
    call.outcome = "error";
  }

  override handleToolStart(): void {
    this.#toolCalls++;
  }

  /** The model calls so far, in the order they started. */
  modelCalls(): ModelCallRecord[] {
    return [...this.#calls.values()].map((call) => ({
      model: call.model,
      provider: call.provider,
      role: call.role,
      outcome: call.outcome,
      inputTokens: call.inputTokens,
      outputTokens: call.outputTokens,
      reasoningTokens: call.reasoningTokens,
      firstTokenMs: call.firstTokenAt === undefined ? null : call.firstTokenAt - call.startedAt,
      durationMs: call.endedAt === undefined ? null : call.endedAt - call.startedAt,
    }));
  }

  /**
   * Output tokens: `tokens` is their sum only when every model call reported usage
   * (0 with no model call), else null; `completedOutputTokens` is the known subtotal.
   */
  usage(): { tokens: number | null; completedOutputTokens: number; usageComplete: boolean } {
    let known = 0;
    let complete = true;
    for (const call of this.#calls.values()) {
      if (call.outputTokens === null) complete = false;
      else known += call.outputTokens;
    }
    return { tokens: complete ? known : null, completedOutputTokens: known, usageComplete: complete };
  }

  #start(runId: string, llm: Serialized, extraParams: Record<string, unknown> | undefined, tags: string[] | undefined, metadata: Record<string, unknown> | undefined): void {
    this.#calls.set(runId, {
      model: modelName(llm, extraParams, metadata),
      provider: str(metadata?.["ls_provider"]) ?? "unknown",
      role: tags?.includes(SUMMARIZER_TAG) ? "summarizer" : "model",
      startedAt: this.#now(),
      firstTokenAt: undefined,
      endedAt: undefined,
      outcome: "unfinished",
      inputTokens: null,
      outputTokens: null,
      reasoningTokens: null,
    });
  }
}
