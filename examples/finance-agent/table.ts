// The example's table: one line per model call, in the names of the report's vocabulary
// (docs/observability.md, "The vocabulary"), read from the `context_budget` record, beside
// what the prompt would have been without contextview.
import type { ContextBudgetRecord } from "@contextview/langgraph";

/** One model call: its record, and the estimate of the whole checkpoint sent as it is. */
export interface CallLine {
  record: ContextBudgetRecord;
  /** Estimated tokens of the system prompt, the tools and every checkpoint message of the call. */
  wholeTokens: number;
}

const COLUMNS: [title: string, width: number, value: (line: CallLine) => string][] = [
  ["tokens/limit", 12, ({ record: r }) => `${r.estimatedTokens}/${r.limit}`],
  ["no contextview", 14, ({ wholeTokens }) => String(wholeTokens)],
  ["checkpoint", 10, ({ record: r }) => String(r.messagesInCheckpoint)],
  ["summarized", 10, ({ record: r }) => String(r.messagesSummarized)],
  ["kept", 4, ({ record: r }) => String(r.messagesKept)],
  ["dropped", 7, ({ record: r }) => String(r.messagesDropped)],
  ["unread", 6, ({ record: r }) => String(r.messagesUnread)],
  ["turns kept/dropped", 18, ({ record: r }) => `${r.turnsKept}/${r.turnsDropped}`],
  ["results compacted/cleared", 25, ({ record: r }) => `${r.toolResultsCompacted}/${r.toolResultsCleared}`],
  ["history", 16, ({ record: r }) => [r.historySummary ? "summary" : "", r.historyEvidence ? "evidence" : ""].filter(Boolean).join("+") || "-"],
  ["compaction", 10, ({ record: r }) => r.compaction],
];

/** What each column means, printed once above the table. */
export const LEGEND = [
  'One line per model call: "12.2" is the second model call of turn 12 (a turn whose model calls a tool has two).',
  "  tokens/limit      the view sent to the model, in estimated tokens, and the prompt limit it fits",
  "  no contextview    the prompt without contextview: system prompt, tools and every message of the checkpoint, as they are",
  "  checkpoint        messages in the checkpoint at that call: each is summarized, or read (then kept or dropped), or unread",
  "  summarized        the oldest messages, which the summary in the view stands for",
  "  kept / dropped    messages read and shown / read and left out",
  "  unread            older messages not read because the budget was spent first (shown only if pinned)",
  "  results           older tool results compacted (totals and ids kept) / cleared to a notice",
  "  history           what the history message held: the summary, durable evidence of older turns, or both",
  "  compaction        what this call did: summary (made a new one), micro (compacted results), drop, or none",
];

/** The header: the view against the whole prompt, messages, turns, tool results, history slot, compaction. */
export function tableHeader(): string {
  return ["call".padStart(7), ...COLUMNS.map(([title, width]) => title.padStart(width))].join("  ");
}

/** One model call's line: `call` is "turn.call" (12.2: the second model call of turn 12). */
export function tableRow(call: string, line: CallLine): string {
  return [call.padStart(7), ...COLUMNS.map(([, width, value]) => value(line).padStart(width))].join("  ");
}
