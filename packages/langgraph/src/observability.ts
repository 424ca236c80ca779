import type { ManagedReport } from "@contextview/core";
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch/web";
import type { RunnableConfig } from "@langchain/core/runnables";

/** Name of the LangChain custom event that carries each view's report. */
export const CONTEXT_REPORT_EVENT = "contextview_report";

/**
 * Where the records go: anything with `info` and `warn` taking an object first,
 * such as `console` or a pino logger. Records never hold message content.
 */
export interface ContextLogger {
  info(record: ContextLogRecord, message?: string): void;
  warn(record: ContextLogRecord, message?: string): void;
}

/** Which integration built a view. */
export type ContextSource = "node" | "wrapper" | "middleware";

/**
 * `context_budget`: what the view kept and left out. Tokens are estimated
 * tokens (the estimator's count plus overheads, times calibration); durations are milliseconds.
 */
export interface ContextBudgetRecord {
  event: "context_budget";
  source: ContextSource;
  /** LangGraph `thread_id`. The user id is left out of records on purpose. */
  conversationId: string;
  /** Estimated tokens of the whole view. */
  estimatedTokens: number;
  /** The prompt limit the view fits, in estimated tokens. */
  limit: number;
  /** Checkpoint messages given. */
  messagesIn: number;
  messagesKept: number;
  messagesDropped: number;
  turnsKept: number;
  turnsDropped: number;
  exchangesDropped: number;
  /** Older messages whose text became an excerpt. */
  excerptedMessages: number;
  /** Excerpt lines of dropped turns shown because no summary was given (transient, not stored). */
  droppedTurnExcerpts: number;
  imagesReplaced: number;
  toolResultsCleared: number;
  toolResultsCompacted: number;
  orphanResults: number;
  unfinishedCalls: number;
  /** Durable evidence or summary given, and whether it fit. */
  summaryGiven: boolean;
  summaryIncluded: boolean;
  /** `none` | `micro` | `summary` | `drop`. */
  compaction: ManagedReport["compaction"]["kind"];
  summaryCacheHit: boolean;
  /** The summary shown is a marked excerpt (cut to fit this view, or a longer answer cut when made). */
  summaryExcerpted: boolean;
  summarizerCalls: number;
  summarizerFailure: string | null;
  /** Actual/estimated token ratio learnt from `usage_metadata`. */
  calibration: number;
  /** The view was rebuilt smaller after the provider reported an overflow. */
  overflowRecovery: boolean;
  /**
   * Messages read again to rebuild the evidence from this checkpoint after its
   * summarized prefix changed (a fork, an edit, another run's branch); 0 without a rebuild.
   */
  evidenceRebuiltMessages: number;
  /** Milliseconds spent selecting the view (not counting the summarizer or the store). */
  elapsedMs: number;
}

/** `prompt_budget`: fixed overhead and the complete prompt estimate, in estimated tokens. */
export interface PromptBudgetRecord {
  event: "prompt_budget";
  source: ContextSource;
  conversationId: string;
  systemTokens: number;
  memoryTokens: number;
  toolTokens: number;
  /** Evidence or summary message. */
  summaryTokens: number;
  /** System + memories + tools: charged before any history. */
  fixedTokens: number;
  historyTokens: number;
  currentTokens: number;
  totalTokens: number;
  limit: number;
  contextWindow: number;
  promptBudget: number;
  responseReserve: number;
  safetyReserve: number;
  /** Where each budget number came from: `request`, `option`, `env`, `profile` (the model's) or `default`. */
  budgetSources: ManagedReport["budgetSources"];
}

/** A failed evidence update; `error` is the error's name and code, never content. */
export interface EvidenceErrorRecord {
  event: "context_evidence_error";
  source: ContextSource;
  conversationId: string;
  /** `inline` (this request went on without evidence) or `background`. */
  mode: "inline" | "background";
  error: string;
  code: string | null;
}

/**
 * A failed read of saved memories from the LangGraph store: this call went on without them.
 *
 * @example
 * ```ts
 * const logger = { info: () => {}, warn: (record: ContextLogRecord) => { if (record.event === "context_memories_error") console.warn("memories unavailable", record.code); } };
 * ```
 */
export interface MemoriesErrorRecord {
  event: "context_memories_error";
  source: ContextSource;
  conversationId: string;
  error: string;
  code: string | null;
}

/** A view record the store could not keep; the model call went on. `error` is the error's name and code, never content. */
export interface ViewRecordErrorRecord {
  event: "context_view_record_error";
  source: ContextSource;
  conversationId: string;
  error: string;
  code: string | null;
}

/** Any record passed to a {@link ContextLogger}. */
export type ContextLogRecord = ContextBudgetRecord | PromptBudgetRecord | EvidenceErrorRecord | MemoriesErrorRecord | ViewRecordErrorRecord;

/** Payload of the {@link CONTEXT_REPORT_EVENT} custom event. */
export interface ContextReportEvent {
  context_budget: ContextBudgetRecord;
  prompt_budget: PromptBudgetRecord;
  /** The full report of the view: counts and estimates only. */
  report: ManagedReport;
}

/**
 * The two budget records of one view (`context_budget`, `prompt_budget`).
 *
 * @example
 * ```ts
 * const { context_budget, prompt_budget } = budgetRecords(view.report, { source: "wrapper", conversationId: "t-1", overflowRecovery: false });
 * ```
 */
export function budgetRecords(
  report: ManagedReport,
  meta: { source: ContextSource; conversationId: string; overflowRecovery: boolean },
): { context_budget: ContextBudgetRecord; prompt_budget: PromptBudgetRecord } {
  const { tokens, budget, compaction } = report;
  return {
    context_budget: {
      event: "context_budget",
      source: meta.source,
      conversationId: meta.conversationId,
      estimatedTokens: tokens.total,
      limit: report.limit,
      messagesIn: report.messages.in,
      messagesKept: report.messages.kept,
      messagesDropped: report.messages.in - report.messages.kept,
      turnsKept: report.turns.kept,
      turnsDropped: report.turns.dropped,
      exchangesDropped: report.exchanges.dropped,
      excerptedMessages: report.excerpted,
      droppedTurnExcerpts: report.droppedTurnExcerpts,
      imagesReplaced: report.imagesReplaced,
      toolResultsCleared: report.toolResults.cleared,
      toolResultsCompacted: report.toolResults.compacted,
      orphanResults: report.orphanResults,
      unfinishedCalls: report.unfinishedCalls,
      summaryGiven: report.summary.given,
      summaryIncluded: report.summary.included,
      compaction: compaction.kind,
      summaryCacheHit: compaction.summaryCacheHit,
      summaryExcerpted: compaction.summaryExcerpted,
      summarizerCalls: compaction.summarizerCalls,
      summarizerFailure: compaction.summarizerFailure ?? null,
      calibration: compaction.calibration,
      overflowRecovery: meta.overflowRecovery,
      evidenceRebuiltMessages: report.evidence?.rebuiltMessages ?? 0,
      elapsedMs: Math.round(report.elapsedMs * 1000) / 1000,
    },
    prompt_budget: {
      event: "prompt_budget",
      source: meta.source,
      conversationId: meta.conversationId,
      systemTokens: tokens.system,
      memoryTokens: tokens.memories,
      toolTokens: tokens.tools,
      summaryTokens: tokens.summary,
      fixedTokens: tokens.system + tokens.memories + tokens.tools,
      historyTokens: tokens.history,
      currentTokens: tokens.current,
      totalTokens: tokens.total,
      limit: report.limit,
      contextWindow: budget.contextWindow,
      promptBudget: budget.promptBudget,
      responseReserve: budget.responseReserve,
      safetyReserve: budget.safetyReserve,
      budgetSources: report.budgetSources,
    },
  };
}

/**
 * Log both records and dispatch the custom event. Observability never fails a
 * model call: a throwing logger or callback handler is ignored.
 */
export async function publishReport(
  report: ManagedReport,
  meta: { source: ContextSource; conversationId: string; overflowRecovery: boolean },
  logger: ContextLogger | undefined,
  config: RunnableConfig | undefined,
): Promise<void> {
  const records = budgetRecords(report, meta);
  if (logger) {
    try {
      logger.info(records.context_budget, "context_budget");
      logger.info(records.prompt_budget, "prompt_budget");
    } catch {
      // A logger must never fail the model call.
    }
  }
  if (config === undefined) return;
  try {
    const payload: ContextReportEvent = { ...records, report };
    await dispatchCustomEvent(CONTEXT_REPORT_EVENT, payload, config);
  } catch {
    // Same for callback handlers of the custom event.
  }
}

/** Log a failed evidence update without its message (which could quote content). */
export function logEvidenceError(logger: ContextLogger | undefined, error: unknown, meta: { source: ContextSource; conversationId: string; mode: "inline" | "background" }): void {
  if (!logger) return;
  const code = (error as { code?: unknown } | null)?.code;
  try {
    logger.warn(
      { event: "context_evidence_error", ...meta, error: error instanceof Error ? error.name : typeof error, code: typeof code === "string" ? code : null },
      "context_evidence_error",
    );
  } catch {
    // A logger must never fail the model call.
  }
}

/** Logs a failed memory search; never throws. */
export function logMemoriesError(logger: ContextLogger | undefined, error: unknown, meta: { source: ContextSource; conversationId: string }): void {
  if (!logger) return;
  const code = (error as { code?: unknown } | null)?.code;
  try {
    logger.warn(
      { event: "context_memories_error", ...meta, error: error instanceof Error ? error.name : typeof error, code: typeof code === "string" ? code : null },
      "context_memories_error",
    );
  } catch {
    // A logger must never fail the model call.
  }
}
