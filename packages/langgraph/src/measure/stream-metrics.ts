import type * as PromClient from "prom-client";
import { ContextIntegrationError } from "../errors.js";
import { describeValue } from "@contextview/core/internal";
import type { StreamMetrics, StreamRequestRecord } from "./records.js";

/** Options of {@link createStreamMetrics}. */
export interface StreamMetricsOptions {
  /** The prom-client `Registry` the metrics are registered in (yours; never the global one implicitly). */
  registry: PromClient.Registry;
  /**
   * Prefix of every metric name.
   * @default "contextview_"
   */
  prefix?: string;
  /**
   * Buckets, in seconds, of the request, first-content and model-call duration histograms.
   * @default [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160]
   */
  durationBuckets?: readonly number[];
}

/**
 * Default histogram buckets, in seconds.
 *
 * @example
 * ```ts
 * createStreamMetrics({ registry, durationBuckets: [...DEFAULT_DURATION_BUCKETS, 320] });
 * ```
 */
export const DEFAULT_DURATION_BUCKETS: readonly number[] = Object.freeze([0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160]);

function loadPromClient(): typeof PromClient {
  try {
    // Lazy: prom-client is an optional peer dependency, needed only by this function.
    return require("prom-client") as typeof PromClient;
  } catch (cause) {
    throw new ContextIntegrationError("MISSING_PEER_DEPENDENCY", "createStreamMetrics needs the optional peer dependency `prom-client` (>=15 <16); install it", {
      field: "prom-client",
      cause,
    });
  }
}

/**
 * Prometheus metrics of streamed requests, registered in the registry you pass.
 * Calling it again with the same registry and prefix reuses the registered metrics.
 * Observing never throws: a metrics failure must not fail a request.
 *
 * | metric | type | labels | unit |
 * | --- | --- | --- | --- |
 * | `contextview_stream_requests_total` | counter | `outcome` | requests |
 * | `contextview_stream_request_duration_seconds` | histogram | `outcome` | seconds |
 * | `contextview_stream_first_content_seconds` | histogram | | seconds |
 * | `contextview_stream_content_chunks_total` | counter | | content segments |
 * | `contextview_stream_usage_incomplete_total` | counter | | requests |
 * | `contextview_model_calls_total` | counter | `provider`, `model`, `outcome` | model calls |
 * | `contextview_model_call_duration_seconds` | histogram | `provider`, `model` | seconds |
 * | `contextview_model_output_tokens_total` | counter | `provider`, `model` | tokens |
 * | `contextview_model_reasoning_tokens_total` | counter | `provider`, `model` | tokens |
 *
 * @example
 * ```ts
 * import { Registry } from "prom-client";
 * const registry = new Registry();
 * const metrics = createStreamMetrics({ registry });
 * await measureStreamRequest({ metrics }, async ({ callbacks, signal, measure }) => { … });
 * app.get("/metrics", async (_req, res) => res.type(registry.contentType).send(await registry.metrics()));
 * ```
 */
export function createStreamMetrics(options: StreamMetricsOptions): StreamMetrics {
  const registry = (options as Partial<StreamMetricsOptions> | undefined)?.registry;
  if (typeof registry !== "object" || registry === null || typeof registry.getSingleMetric !== "function" || typeof registry.registerMetric !== "function") {
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`registry\` to be a prom-client Registry, got ${describeValue(registry)}`, { field: "registry" });
  }
  const prefix = options.prefix ?? "contextview_";
  if (typeof prefix !== "string" || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$|^$/.test(prefix)) {
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`prefix\` to be a Prometheus name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*), got ${describeValue(prefix)}`, { field: "prefix" });
  }
  const buckets = options.durationBuckets ?? DEFAULT_DURATION_BUCKETS;
  if (!Array.isArray(buckets) || buckets.length === 0 || buckets.some((b, i) => typeof b !== "number" || !(b > 0) || (i > 0 && b <= (buckets[i - 1] as number)))) {
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`durationBuckets\` to be increasing positive numbers of seconds, got ${describeValue(buckets)}`, { field: "durationBuckets" });
  }
  const prom = loadPromClient();
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]): PromClient.Counter<L> =>
    (registry.getSingleMetric(prefix + name) as PromClient.Counter<L> | undefined) ?? new prom.Counter<L>({ name: prefix + name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[]): PromClient.Histogram<L> =>
    (registry.getSingleMetric(prefix + name) as PromClient.Histogram<L> | undefined) ??
    new prom.Histogram<L>({ name: prefix + name, help, labelNames, buckets: [...buckets], registers: [registry] });

  const requests = counter("stream_requests_total", "Streamed requests by outcome (success, error, stalled, cancelled).", ["outcome"]);
  const duration = histogram("stream_request_duration_seconds", "Streamed request duration, final persistence included, in seconds.", ["outcome"]);
  const firstContent = histogram("stream_first_content_seconds", "From the first model call to the first content segment (tools and model calls included), in seconds.", []);
  const contentChunks = counter("stream_content_chunks_total", "Content segments emitted to callers (not model tokens).", []);
  const usageIncomplete = counter("stream_usage_incomplete_total", "Requests with at least one model call that reported no usage.", []);
  const modelCalls = counter("model_calls_total", "Model calls by provider, model and outcome (success, error, unfinished).", ["provider", "model", "outcome"]);
  const modelDuration = histogram("model_call_duration_seconds", "Model call duration, in seconds.", ["provider", "model"]);
  const outputTokens = counter("model_output_tokens_total", "Output tokens reported by the backend.", ["provider", "model"]);
  const reasoningTokens = counter("model_reasoning_tokens_total", "Reasoning tokens reported by the backend.", ["provider", "model"]);

  return {
    observe(record: StreamRequestRecord): void {
      try {
        requests.inc({ outcome: record.outcome });
        duration.observe({ outcome: record.outcome }, record.durationMs / 1000);
        if (record.modelToFirstContentMs !== null) firstContent.observe(record.modelToFirstContentMs / 1000);
        if (record.contentChunks > 0) contentChunks.inc(record.contentChunks);
        if (!record.usageComplete) usageIncomplete.inc();
        for (const call of record.modelCalls) {
          const labels = { provider: call.provider, model: call.model };
          modelCalls.inc({ ...labels, outcome: call.outcome });
          if (call.durationMs !== null) modelDuration.observe(labels, call.durationMs / 1000);
          if (call.outputTokens !== null && call.outputTokens > 0) outputTokens.inc(labels, call.outputTokens);
          if (call.reasoningTokens !== null && call.reasoningTokens > 0) reasoningTokens.inc(labels, call.reasoningTokens);
        }
      } catch {
        // Metrics never fail the request they describe.
      }
    },
  };
}
