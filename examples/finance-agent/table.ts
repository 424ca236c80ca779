// The example's table: one line per model call, in the names of the report's vocabulary
// (docs/observability.md, "The vocabulary"), read from the `context_budget` record.
import type { ContextBudgetRecord } from "@contextview/langgraph";

const COLUMNS: [title: string, width: number, value: (record: ContextBudgetRecord) => string][] = [
  ["tokens/limit", 12, (r) => `${r.estimatedTokens}/${r.limit}`],
  ["checkpoint", 10, (r) => String(r.messagesInCheckpoint)],
  ["summarized", 10, (r) => String(r.messagesSummarized)],
  ["kept", 4, (r) => String(r.messagesKept)],
  ["dropped", 7, (r) => String(r.messagesDropped)],
  ["unread", 6, (r) => String(r.messagesUnread)],
  ["turns kept/dropped", 18, (r) => `${r.turnsKept}/${r.turnsDropped}`],
  ["results compacted/cleared", 25, (r) => `${r.toolResultsCompacted}/${r.toolResultsCleared}`],
  ["history", 16, (r) => [r.historySummary ? "summary" : "", r.historyEvidence ? "evidence" : ""].filter(Boolean).join("+") || "-"],
  ["compaction", 10, (r) => r.compaction],
];

/** The header: messages (checkpoint, summarized, kept, dropped, unread), turns, tool results, history slot, compaction. */
export function tableHeader(): string {
  return ["call".padStart(7), ...COLUMNS.map(([title, width]) => title.padStart(width))].join("  ");
}

/** One model call's line: `call` is "turn.call" (12.2: the second model call of turn 12). */
export function tableRow(call: string, record: ContextBudgetRecord): string {
  return [call.padStart(7), ...COLUMNS.map(([, width, value]) => value(record).padStart(width))].join("  ");
}
