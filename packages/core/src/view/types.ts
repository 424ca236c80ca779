import type { BaseMessage } from "@langchain/core/messages";
import type { Budget, ResolvedBudget } from "../budget.js";
import type { Estimator } from "../estimate.js";
import type { MessageInput } from "../messages.js";

/** Options of the selection and compaction stages. Every field has a default. */
export interface ViewOptions {
  /**
   * Share of the history budget dropped at once when older turns must go, so the
   * head of the view stays the same for several calls (provider prompt caches).
   * `0` drops exactly what is needed.
   * @default 0.25
   */
  dropStep?: number;
  /**
   * Longest text, in estimated tokens, an older (not current) message keeps
   * before it becomes an excerpt with the omitted character count.
   * @default 1000
   */
  maxOlderMessageTokens?: number;
  /**
   * Longest prose, in estimated tokens, of an older AI message that also calls tools.
   * @default 200
   */
  maxToolCallProseTokens?: number;
  /**
   * Estimated tokens for the excerpts of dropped turns shown when no summary
   * message is given. `0` turns excerpts off.
   * @default 600
   */
  excerptBudget?: number;
  /**
   * Tool results kept as they are by micro-compaction; older ones are cleared to a
   * marker when the history is over budget.
   * @default 3
   */
  keepRecentToolResults?: number;
  /**
   * Largest tool result, in estimated tokens, kept whole when the history is over
   * budget; larger ones are compacted.
   * @default 2000
   */
  maxToolResultTokens?: number;
}

/** Input of {@link buildContext}. Only `messages` is required. */
export interface BuildContextInput extends ViewOptions {
  /** The full checkpoint messages, oldest first. Never mutated. */
  messages: readonly MessageInput[];
  /**
   * System instructions. When absent, leading system messages of `messages` are used.
   * @default undefined
   */
  systemPrompt?: string | BaseMessage;
  /**
   * Tool schemas bound to this model call (StructuredTools or JSON schemas); charged, not rendered.
   * @default []
   */
  tools?: readonly unknown[];
  /**
   * Saved memories, most relevant first; kept whole in order within `memoryBudget`.
   * @default []
   */
  memories?: readonly string[];
  /**
   * Durable evidence or summary of older turns (an AIMessage). Optional: left out,
   * and reported, when it would keep the current request from fitting.
   * @default undefined
   */
  summaryMessage?: BaseMessage | null;
  /**
   * Budget overrides (see {@link resolveBudget}), or an already resolved budget.
   * @default DEFAULT_BUDGET (and the environment)
   */
  budget?: Partial<Budget> | ResolvedBudget;
  /**
   * How tokens are estimated.
   * @default createEstimator()
   */
  estimator?: Estimator;
}

/** Estimated tokens per part of the view. */
export interface TokenReport {
  system: number;
  memories: number;
  tools: number;
  summary: number;
  /** Messages of older turns, excerpts and labels. */
  history: number;
  /** The current request and the rest of its turn. */
  current: number;
  total: number;
}

/** What a view kept, dropped and changed. Counts and estimates only, never message content. */
export interface ContextReport {
  /** The prompt limit the view fits. */
  limit: number;
  budget: ResolvedBudget;
  tokens: TokenReport;
  /**
   * Input messages: kept in the view, dropped from it, and `unread` — older than
   * the walk ever reached (all dropped, never read or validated).
   */
  messages: { in: number; kept: number; dropped: number; unread: number };
  /** Exchanges (user messages, AI replies, AI tool calls with all their results) the walk read. */
  exchanges: { read: number; kept: number; dropped: number };
  /** User turns the walk read, the current one included. */
  turns: { read: number; kept: number; dropped: number };
  /** True when the walk read the whole conversation (nothing `unread`). */
  allHistoryRead: boolean;
  /** Tool results whose call is not in the preceding AI message. */
  orphanResults: number;
  /** Tool calls without a result (cancelled runs); their whole exchange is left out. */
  unfinishedCalls: number;
  /** System messages found after the start of the conversation, left out. */
  misplacedSystemMessages: number;
  /** Older messages whose text became an excerpt. */
  excerpted: number;
  /** Images in older turns replaced by placeholders. */
  imagesReplaced: number;
  /** Memories given and kept within `memoryBudget`. */
  memories: { in: number; kept: number };
  summary: { given: boolean; included: boolean; reason?: "does-not-fit" };
  /** Excerpts of dropped turns included because no summary was given. */
  droppedTurnExcerpts: number;
  /**
   * Tool results cleared to a marker (older turns only), results compacted, and
   * results of the current turn too large even for identifiers, `narrowed` to their
   * totals with a notice to narrow the query (never cleared).
   */
  toolResults: { cleared: number; compacted: number; narrowed: number };
  /** User-role labels inserted so the view obeys provider ordering rules. */
  labelsInserted: number;
  /** Index in the input of the oldest message kept from history (the head of the view). */
  cut: number;
  elapsedMs: number;
}

/** A bounded view: messages for the model and the report of how they were chosen. */
export interface ContextView {
  messages: BaseMessage[];
  report: ContextReport;
}
