/** How a streamed request ended. */
export type StreamOutcome = "success" | "error" | "stalled" | "cancelled";

/** Where a request that did not succeed stopped: before its first stream, while streaming, or after (persistence). */
export type StreamPhase = "start" | "stream" | "finalize";

/** One model call seen by the {@link StreamMeter}. Durations in milliseconds; tokens as the provider reported them. */
export interface ModelCallRecord {
  /** `ls_model_name`, else the `model` invocation parameter, else the model class. */
  model: string;
  /** `ls_provider` (e.g. `openai`, `anthropic`), else `unknown`. */
  provider: string;
  /** `summarizer` for contextview's summarizer calls (tag `contextview:summarizer`). */
  role: "model" | "summarizer";
  /** `unfinished`: started but neither ended nor failed when the request ended (a stall or a cancel). */
  outcome: "success" | "error" | "unfinished";
  /** `usage_metadata.input_tokens`, or null when not reported. */
  inputTokens: number | null;
  /** `usage_metadata.output_tokens`, or null when not reported. */
  outputTokens: number | null;
  /** `usage_metadata.output_token_details.reasoning`, or null when not reported. */
  reasoningTokens: number | null;
  /** From the call's start to its first streamed token; null when it streamed none. */
  firstTokenMs: number | null;
  /** From the call's start to its end or failure; null while unfinished. */
  durationMs: number | null;
}

/**
 * `stream_request`: the measurements of one streamed request. Never message content.
 * Durations are milliseconds; tokens are the backend's reported tokens.
 */
export interface StreamRequestRecord {
  event: "stream_request";
  /** The `conversationId` option, or null. */
  conversationId: string | null;
  outcome: StreamOutcome;
  /** Where a request that did not succeed stopped; null on success. */
  failedDuring: StreamPhase | null;
  /** Name and `code` of the error (the stall's `STREAM_STALLED` error, the abort reason, …); null on success. */
  error: { name: string; code: string | null } | null;
  /** Sum of output tokens over all model calls when every call reported usage, else null. */
  tokens: number | null;
  /** Sum of the output tokens that were reported. */
  completedOutputTokens: number;
  /** Every model call reported usage. */
  usageComplete: boolean;
  /** Content segments emitted to the caller (message chunks with text), not model tokens. */
  contentChunks: number;
  /** Every part the stream yielded (content or not). */
  streamParts: number;
  /** From the start of the first model call to the first content segment: tools and further model calls included. */
  modelToFirstContentMs: number | null;
  /** From the start of the measurement to its end, final persistence included. */
  durationMs: number;
  /** Tool runs started. */
  toolCalls: number;
  modelCalls: ModelCallRecord[];
}

/**
 * Where `stream_request` records go: anything with `info` and `warn` taking an
 * object first (console, pino). Successes go to `info`, other outcomes to `warn`.
 */
export interface StreamLogger {
  info(record: StreamRequestRecord, message?: string): void;
  warn(record: StreamRequestRecord, message?: string): void;
}

/** Receives each finished request; {@link createStreamMetrics} makes the Prometheus one. */
export interface StreamMetrics {
  observe(record: StreamRequestRecord): void;
}
