import type { ManagedReport } from "@contextview/core";

// The two records of every view, in the report's vocabulary (docs/observability.md,
// "The vocabulary"): each count is named after the report field it comes from.

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
  /**
   * What keyed the stored state (`report.scope`): `user` (thread of one user), `thread`
   * (no user id) or `stateless` (no thread id: nothing read or written); `null` when the
   * view was built outside an integration.
   */
  scope: NonNullable<ManagedReport["scope"]> | null;
  /** Estimated tokens of the whole view. */
  estimatedTokens: number;
  /** The prompt limit the view fits, in estimated tokens. */
  limit: number;
  /** Every message of the checkpoint this call was given, the summarized prefix included (`report.messages.inCheckpoint`). */
  messagesInCheckpoint: number;
  /** The oldest messages, which the summary shown stands for (`report.messages.summarized`). */
  messagesSummarized: number;
  /** Messages before the latest provider compaction, which stands for them: never read nor sent (`report.messages.providerCompacted`). */
  messagesProviderCompacted: number;
  /** Messages the view read, newest first (`report.messages.read`). */
  messagesRead: number;
  /** Messages older than the view read, not summarized: never read (`report.messages.unread`). */
  messagesUnread: number;
  /** Messages shown, pinned ones included (`report.messages.kept`). */
  messagesKept: number;
  /** Messages read and left out of the view; never the unread ones (`report.messages.dropped`). */
  messagesDropped: number;
  /** User turns read, kept and dropped (`report.turns`); the turns of unread messages are not counted. */
  turnsRead: number;
  turnsKept: number;
  turnsDropped: number;
  /** Exchanges read, kept and dropped (`report.exchanges`). */
  exchangesRead: number;
  exchangesKept: number;
  exchangesDropped: number;
  /** Older messages whose text became an excerpt. */
  excerptedMessages: number;
  /** Excerpt lines of dropped turns shown because no summary was given (transient, not stored). */
  droppedTurnExcerpts: number;
  imagesReplaced: number;
  /** Reasoning blocks and items of older turns' assistant messages left out, neither sent nor charged (`report.reasoningCleared`). */
  reasoningCleared: number;
  /** Tool results of older turns cleared to a marker, compacted, and current results narrowed to their totals (`report.toolResults`). */
  toolResultsCleared: number;
  toolResultsCompacted: number;
  toolResultsNarrowed: number;
  /** The form the current turn was shown in (`report.currentTurn.form`): "whole", "shared", "besideHistory", "olderForm" or "long". */
  currentTurnForm: ManagedReport["currentTurn"]["form"];
  /** Exchanges of the current turn shown with their results compacted, cleared, or replaced by an excerpt or a summary (`report.currentTurn`). */
  currentTurnCompacted: number;
  currentTurnCleared: number;
  currentTurnExcerpted: number;
  currentTurnSummarized: number;
  /** Messages brought back by the recall stage, and why none were when none were (`report.recall`). */
  recallRecalled: number;
  /** Of `recallRecalled`, the newest messages left out that took the room the matches left, not matches (`report.recall.recent`). */
  recallRecent: number;
  recallOutcome: ManagedReport["recall"]["outcome"];
  orphanResults: number;
  unfinishedCalls: number;
  /** A history message (evidence, a summary, or both) was given, and shown (`report.history`). */
  historyGiven: boolean;
  historyIncluded: boolean;
  /** The history message shown holds a summary (`report.history.summary`). */
  historySummary: boolean;
  /** The history message shown holds durable evidence (`report.history.evidence`). */
  historyEvidence: boolean;
  /** Evidence excerpts left out to keep the evidence within `evidenceShare` (`report.history.evidenceOmitted`). */
  historyEvidenceOmitted: number;
  /** Evidence excerpts left out because the view shows the message they quote (`report.history.evidenceShown`). */
  historyEvidenceShown: number;
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

/**
 * The two budget records of one view (`context_budget`, `prompt_budget`).
 *
 * @example
 * ```ts
 * const { context_budget, prompt_budget } = budgetRecords(view.report, { source: "wrapper", conversationId: "t-1", overflowRecovery: false });
 * ```
 */
// size: one object literal, a field per line as the record's vocabulary lists them
export function budgetRecords(
  report: ManagedReport,
  meta: { source: ContextSource; conversationId: string; overflowRecovery: boolean },
): { context_budget: ContextBudgetRecord; prompt_budget: PromptBudgetRecord } {
  const { tokens, budget, compaction, messages, history } = report;
  return {
    context_budget: {
      event: "context_budget",
      source: meta.source,
      conversationId: meta.conversationId,
      scope: report.scope ?? null,
      estimatedTokens: tokens.total,
      limit: report.limit,
      messagesInCheckpoint: messages.inCheckpoint,
      messagesSummarized: messages.summarized,
      messagesProviderCompacted: messages.providerCompacted,
      messagesRead: messages.read,
      messagesUnread: messages.unread,
      messagesKept: messages.kept,
      messagesDropped: messages.dropped,
      turnsRead: report.turns.read,
      turnsKept: report.turns.kept,
      turnsDropped: report.turns.dropped,
      exchangesRead: report.exchanges.read,
      exchangesKept: report.exchanges.kept,
      exchangesDropped: report.exchanges.dropped,
      excerptedMessages: report.excerpted,
      droppedTurnExcerpts: report.droppedTurnExcerpts,
      imagesReplaced: report.imagesReplaced,
      reasoningCleared: report.reasoningCleared,
      toolResultsCleared: report.toolResults.cleared,
      toolResultsCompacted: report.toolResults.compacted,
      toolResultsNarrowed: report.toolResults.narrowed,
      currentTurnForm: report.currentTurn.form,
      currentTurnCompacted: report.currentTurn.compacted,
      currentTurnCleared: report.currentTurn.cleared,
      currentTurnExcerpted: report.currentTurn.excerpted,
      currentTurnSummarized: report.currentTurn.summarized,
      recallRecalled: report.recall.recalled,
      recallRecent: report.recall.recent,
      recallOutcome: report.recall.outcome,
      orphanResults: report.orphanResults,
      unfinishedCalls: report.unfinishedCalls,
      historyGiven: history.given,
      historyIncluded: history.included,
      historySummary: history.summary,
      historyEvidence: history.evidence,
      historyEvidenceOmitted: history.evidenceOmitted ?? 0,
      historyEvidenceShown: history.evidenceShown ?? 0,
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
