// @contextview/langgraph/measure: measurements of streamed model requests (first chunk, chunks,
// stalls, outcome) and optional Prometheus metrics. A subpath: the root never loads `prom-client`.

export { measureStreamRequest, DEFAULT_STALL_TIMEOUT_MS, type MeasureStreamOptions, type MeasuredRequest } from "./measure-stream.js";
export { StreamMeter } from "./stream-meter.js";
export { createStreamMetrics, DEFAULT_DURATION_BUCKETS, type StreamMetricsOptions } from "./stream-metrics.js";
export { streamedText } from "./content.js";
export type { ModelCallRecord, StreamLogger, StreamMetrics, StreamOutcome, StreamPhase, StreamRequestRecord } from "./records.js";
