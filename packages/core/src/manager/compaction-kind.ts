import type { ContextReport } from "../view/types.js";
import type { CompactionKind } from "./types.js";

/**
 * Which compaction a view took, for the report and `onCompaction`: a new summary
 * wins; otherwise dropped turns, then cleared or compacted tool results; else none.
 *
 * @example
 * ```ts
 * compactionKind(false, view.report); // "drop" when older turns were left out
 * ```
 */
export function compactionKind(summarized: boolean, report: ContextReport): Exclude<CompactionKind, "overflow-recovery"> {
  if (summarized) return "summary";
  if (report.turns.dropped > 0) return "drop";
  if (report.toolResults.cleared + report.toolResults.compacted > 0) return "micro";
  return "none";
}
