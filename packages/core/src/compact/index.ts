// Structured tool-result compaction and micro-compaction.

export { compactOrNarrow, compactToolResult, type FitOutcome } from "./compact-tool-result.js";
export { microCompact, type MicroCompactOptions, type MicroCompactResult } from "./micro-compact.js";
export {
  COMPACTION_METADATA_KEY,
  compactionMarkerOf,
  isClearedToolResult,
  isCompactedToolResult,
  type ClearedCompactionMarker,
  type CompactionMarker,
  type CompactionOrigin,
  type JsonCompactionMarker,
  type NarrowedCompactionMarker,
  type TextCompactionMarker,
} from "./marker.js";
export {
  DEFAULT_COLLECTION_KEYS,
  DEFAULT_PRESERVED_KEYS,
  DEFAULT_REFERENCE_FIELDS,
  DEFAULT_TEXT_FIELDS,
  type CompactToolResultOptions,
} from "./options.js";
export { readNoteLines, type NoteLines, type NoteLinesOptions } from "./note-lines.js";
export { COMPACTED_KEY } from "./project.js";
export type { IdentifierList, ReferenceTable } from "./references.js";
