import { ContextIntegrationError } from "../errors.js";
import { describeValue, MAX_TIMER_MS } from "@contextview/core/internal";
import { streamedText } from "./content.js";
import type { StreamLogger, StreamMetrics, StreamOutcome, StreamPhase, StreamRequestRecord } from "./records.js";
import { StreamMeter } from "./stream-meter.js";

/** Options of {@link measureStreamRequest}. Validated on each call (they are per request). */
export interface MeasureStreamOptions {
  /**
   * Where the request is counted; see {@link createStreamMetrics}.
   * @default undefined (no metrics)
   */
  metrics?: StreamMetrics;
  /**
   * The request is `stalled` when the stream yields no part for this long: the run
   * is aborted through `signal` and a `ContextIntegrationError` with code `STREAM_STALLED` is thrown. Tools that stream
   * nothing count too, so set it above your slowest tool. `0` turns it off.
   * @default 60000
   */
  stallTimeoutMs?: number;
  /**
   * The caller's cancellation (e.g. the HTTP request closing). When it aborts, the
   * request is `cancelled`.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Receives the `stream_request` record: `info` on success, `warn` otherwise.
   * @default undefined
   */
  logger?: StreamLogger;
  /**
   * The text of a streamed part when it is a content segment, else undefined.
   * @default streamedText
   */
  contentOf?: (part: unknown) => string | undefined;
  /**
   * Put in the record, for correlation (the LangGraph `thread_id`).
   * @default undefined
   */
  conversationId?: string;
  /**
   * The clock, in milliseconds.
   * @default performance.now
   */
  now?: () => number;
}

/** What the measured function receives. */
export interface MeasuredRequest {
  /** Pass as `config.callbacks` so model calls and tools are measured. */
  callbacks: [StreamMeter];
  /** Pass as `config.signal`: it aborts on the caller's cancel and on a stall. */
  signal: AbortSignal;
  /**
   * Wrap the stream you read: counts parts and content segments, detects stalls and
   * cancels. Pass the promise itself (`measure(graph.stream(…))`, no `await`) so the
   * wait for the first part is guarded too.
   */
  measure<T>(stream: AsyncIterable<T> | PromiseLike<AsyncIterable<T>>): AsyncIterable<T>;
  /** The meter itself, for live readings. */
  meter: StreamMeter;
}

/**
 * The default stall timeout, in milliseconds.
 *
 * @example
 * ```ts
 * measureStreamRequest({ stallTimeoutMs: DEFAULT_STALL_TIMEOUT_MS / 2 }, run);
 * ```
 */
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;

function timeoutError(ms: number): Error {
  return new ContextIntegrationError("STREAM_STALLED", `The stream yielded nothing for ${ms} ms (\`stallTimeoutMs\`)`, { field: "stallTimeoutMs" });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error("The request was cancelled"), { name: "AbortError" });
}

function errorSummary(error: unknown): { name: string; code: string | null } {
  const code = (error as { code?: unknown } | null)?.code;
  return { name: error instanceof Error ? error.name : typeof error, code: typeof code === "string" ? code : null };
}

/**
 * Measure one streamed request from start to end, final persistence included:
 * run `run` with callbacks, a signal and a stream wrapper, then record the
 * `stream_request` measurements, count the outcome (`success`, `error`, `stalled`
 * when no part arrives within `stallTimeoutMs`, `cancelled` when `signal` aborts)
 * and observe durations. Whatever `run` throws is rethrown after it is recorded.
 *
 * @example
 * ```ts
 * const { record } = await measureStreamRequest({ metrics, signal: req.signal, conversationId: threadId }, async ({ callbacks, signal, measure }) => {
 *   const stream = graph.stream(input, { ...config, callbacks, signal, streamMode: "messages" });
 *   for await (const [chunk] of measure(stream)) res.write(chunk.text);
 *   await saveTranscript(threadId); // a failure here is an `error` outcome too
 * });
 * record.tokens; // null unless every model call reported usage
 * ```
 */
// size: one request's lifetime: start, the caller's run, and the record of every outcome in one try/finally
export async function measureStreamRequest<T>(options: MeasureStreamOptions, run: (request: MeasuredRequest) => Promise<T>): Promise<{ result: T; record: StreamRequestRecord }> {
  const settings = checkOptions(options);
  if (typeof run !== "function") throw new ContextIntegrationError("INVALID_OPTION", `Expected \`run\` to be a function, got ${describeValue(run)}`, { field: "run" });
  const { now, stallTimeoutMs, contentOf } = settings;
  const started = now();
  const meter = new StreamMeter({ now });
  const stop = new AbortController();
  const caller = options.signal;
  const signal = caller ? AbortSignal.any([caller, stop.signal]) : stop.signal;

  let stalled = false;
  let cutByCaller = false;
  let phase: StreamPhase = "start";
  let contentChunks = 0;
  let streamParts = 0;
  let firstContentAt: number | undefined;

  /** `promise`, unless the stream stalls or the caller cancels first. */
  const guarded = <P>(promise: PromiseLike<P>): Promise<P> => {
    if (caller?.aborted) {
      cutByCaller = true;
      return Promise.reject(abortReason(caller));
    }
    const pending = Promise.resolve(promise);
    // The race may be lost to a stall or cancel; the late rejection is expected.
    pending.catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const cut = new Promise<never>((_, reject) => {
      if (stallTimeoutMs > 0) {
        timer = setTimeout(() => {
          stalled = true;
          const error = timeoutError(stallTimeoutMs);
          stop.abort(error);
          reject(error);
        }, stallTimeoutMs);
      }
      if (caller) {
        onAbort = () => {
          cutByCaller = true;
          reject(abortReason(caller));
        };
        caller.addEventListener("abort", onAbort, { once: true });
      }
    });
    return Promise.race([pending, cut]).finally(() => {
      clearTimeout(timer);
      if (onAbort) caller?.removeEventListener("abort", onAbort);
    });
  };

  async function* measure<P>(source: AsyncIterable<P> | PromiseLike<AsyncIterable<P>>): AsyncGenerator<P> {
    phase = "stream";
    // LangGraph's `stream()` resolves only once the run has produced its first part, so that wait is guarded too.
    const stream = await guarded(Promise.resolve(source));
    const iterator = stream[Symbol.asyncIterator]();
    let clean = false;
    try {
      for (;;) {
        const step = await guarded(iterator.next());
        if (step.done) break;
        streamParts++;
        const text = contentOf(step.value);
        if (text !== undefined && text !== "") {
          contentChunks++;
          firstContentAt ??= now();
        }
        yield step.value;
      }
      clean = true;
      phase = "finalize";
    } finally {
      // A stalled source may never settle: ask it to stop without waiting for it.
      if (!clean) void iterator.return?.()?.catch?.(() => undefined);
    }
  }

  const finish = (outcome: StreamOutcome, error: unknown, phase: StreamPhase | null): StreamRequestRecord => {
    const firstModel = meter.firstModelStart;
    const record: StreamRequestRecord = {
      event: "stream_request",
      conversationId: options.conversationId ?? null,
      outcome,
      failedDuring: phase,
      error: outcome === "success" ? null : errorSummary(error),
      ...meter.usage(),
      contentChunks,
      streamParts,
      modelToFirstContentMs: firstModel === undefined || firstContentAt === undefined ? null : Math.max(0, firstContentAt - firstModel),
      durationMs: now() - started,
      toolCalls: meter.toolCalls,
      modelCalls: meter.modelCalls(),
    };
    settings.metrics?.observe(record);
    try {
      if (outcome === "success") options.logger?.info(record, "stream_request");
      else options.logger?.warn(record, "stream_request");
    } catch {
      // A logger never fails the request.
    }
    return record;
  };

  let result: T;
  try {
    result = await run({ callbacks: [meter], signal, measure, meter });
  } catch (error) {
    const outcome: StreamOutcome = stalled ? "stalled" : caller?.aborted ? "cancelled" : "error";
    finish(outcome, stalled ? timeoutError(stallTimeoutMs) : error, phase);
    throw error;
  }
  const cancelled = stalled || cutByCaller;
  const record = finish(stalled ? "stalled" : cancelled ? "cancelled" : "success", cancelled ? signal.reason : undefined, cancelled ? "stream" : null);
  return { result, record };
}

function checkOptions(options: MeasureStreamOptions): { now: () => number; stallTimeoutMs: number; contentOf: (part: unknown) => string | undefined; metrics: StreamMetrics | undefined } {
  const fail = (field: string, expected: string, got: unknown) =>
    new ContextIntegrationError("INVALID_OPTION", `Expected \`${field}\` to be ${expected}, got ${describeValue(got)}`, { field });
  if (typeof options !== "object" || options === null) throw fail("options", "an object", options);
  const stallTimeoutMs = options.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  // Node fires a timer longer than 2^31 - 1 ms after about 1 ms: refuse it rather than stall at once.
  if (typeof stallTimeoutMs !== "number" || !Number.isSafeInteger(stallTimeoutMs) || stallTimeoutMs < 0 || stallTimeoutMs > MAX_TIMER_MS) {
    throw fail("stallTimeoutMs", `a non-negative integer of milliseconds, at most ${MAX_TIMER_MS}`, stallTimeoutMs);
  }
  if (options.signal !== undefined && !(options.signal instanceof AbortSignal)) throw fail("signal", "an AbortSignal", options.signal);
  if (options.metrics !== undefined && typeof options.metrics?.observe !== "function") throw fail("metrics", "StreamMetrics (see createStreamMetrics)", options.metrics);
  if (options.logger !== undefined && (typeof options.logger?.info !== "function" || typeof options.logger?.warn !== "function")) throw fail("logger", "an object with info(record) and warn(record)", options.logger);
  const contentOf = options.contentOf ?? streamedText;
  if (typeof contentOf !== "function") throw fail("contentOf", "a function (part) => string | undefined", contentOf);
  const now = options.now ?? (() => performance.now());
  if (typeof now !== "function") throw fail("now", "a function () => number", now);
  return { now, stallTimeoutMs, contentOf, metrics: options.metrics };
}
