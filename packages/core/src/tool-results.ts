// @contextview/core/tool-results: tool-result compaction on its own — what the view does to a
// large result (a projection with totals and ids, then its totals), for code that compacts
// results outside a view, and the large-result floors a worker thread can compute.

export {
  compactToolResult,
  compactOrNarrow,
  microCompact,
  compactionMarkerOf,
  readNoteLines,
  DEFAULT_COLLECTION_KEYS,
  DEFAULT_PRESERVED_KEYS,
  DEFAULT_REFERENCE_FIELDS,
  DEFAULT_TEXT_FIELDS,
  type CompactToolResultOptions,
  type MicroCompactOptions,
  type MicroCompactResult,
  type CompactionMarker,
} from "./compact/index.js";
export {
  computeLargeResultFloors,
  LARGE_RESULT_CHARS,
  type LargeResultComputer,
  type LargeResultFloors,
  type LargeResultJob,
} from "./compact/large-result-floors.js";
