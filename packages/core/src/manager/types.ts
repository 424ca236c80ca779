import type { LargeResultComputer } from "../compact/large-result-floors.js";
import type { TurnSummary } from "../view/types.js";
import type { BaseMessage } from "@langchain/core/messages";
import type { Budget } from "../budget.js";
import type { BudgetSources, ModelLimits } from "../budget-sources.js";
import type { Estimator } from "../estimate.js";
import type { MessageInput } from "../messages.js";
import type { CompactionStore, ConversationKey } from "../store/compaction-contract.js";
import type { KeepOptions } from "../summarize/safe-cut.js";
import type { Summarizer } from "../summarize/summarizer.js";
import type { ContextReport, MessageDate, PinPredicate, ViewOptions } from "../view/types.js";

/** Settings a single request may override (validated at the boundary, then merged). */
export interface ContextSettings extends ViewOptions, KeepOptions {
  /** Budget fields; request values override the factory's. */
  budget?: Partial<Budget>;
  /**
   * Summarize older turns when a summarizer is configured.
   * @default true
   */
  summarize?: boolean;
  /**
   * Share of the context window that triggers summarizing (see `summaryThreshold`).
   * @default 0.75
   */
  triggerRatio?: number;
  /**
   * Keep at least this many estimated tokens of the newest messages after a summary.
   * @default 15% of the prompt limit
   */
  keepMinTokens?: number;
  /**
   * Stop gathering the kept tail at this many tokens, at the previous safe cut; the
   * rest of the limit is room for the turns to come.
   * @default 40% of the prompt limit
   */
  keepMaxTokens?: number;
}

/** Options of {@link createContextManager}: defaults for every request. */
export interface ContextManagerOptions extends ContextSettings {
  /**
   * The model's limits (a LangChain `model.profile`): the default `contextWindow`
   * (`maxInputTokens`), the cap of the default `responseReserve` (`maxOutputTokens`)
   * and, with `imageInputs: false`, placeholders for every image. Budget options,
   * request settings and the environment win over it. A request's `profile` replaces it.
   * @default undefined
   */
  profile?: ModelLimits;
  /**
   * How tokens are estimated.
   * @default createEstimator()
   */
  estimator?: Estimator;
  /**
   * Summarizes a prefix of older turns; without one, older turns are dropped.
   * @default null
   */
  summarizer?: Summarizer | null;
  /**
   * Largest transcript chunk sent to the summarizer in one call, in estimated tokens.
   * @default 6000
   */
  summarizerInputTokens?: number;
  /**
   * A summarizer call slower than this fails.
   * @default 60000
   */
  summarizerTimeoutMs?: number;
  /**
   * Consecutive summarizer failures before it is skipped for `summarizerCooldownMs`:
   * in one conversation (counted in its stored state), and across all the
   * conversations of this manager (counted in process memory; a success anywhere
   * resets that count).
   * @default 3
   */
  maxSummarizerFailures?: number;
  /**
   * How long summarizing is skipped after `maxSummarizerFailures` failures.
   * @default 300000 (5 minutes)
   */
  summarizerCooldownMs?: number;
  /**
   * Where the summary cache, failure count and calibration live.
   * @default new InMemoryContextStore()
   */
  store?: CompactionStore;
  /**
   * Learn actual/estimated tokens from `usage_metadata.input_tokens` per conversation.
   * @default true
   */
  calibrate?: boolean;
  /**
   * Recognises an over-long-prompt error or response.
   * @default isContextOverflow
   */
  isOverflow?: (errorOrResponse: unknown) => boolean;
  /**
   * Called after each compaction with counts, never content.
   * @default undefined
   */
  onCompaction?: (event: CompactionEvent) => void;
  /**
   * Called after a successful summary with the compacted and original messages;
   * by default nothing is written back to the checkpoint.
   * @default undefined
   */
  writeBack?: (conversationId: string, compacted: BaseMessage[], original: readonly MessageInput[]) => void | Promise<void>;
  /**
   * Called when the store fails; the request goes on without cache.
   * @default undefined
   */
  onStoreError?: (error: unknown, operation: "get" | "put") => void;
  /**
   * Computes the compaction of large JSON tool results (1 MiB of content or more)
   * away from the caller's event loop, before each view is built: the view then
   * reads the projections off instead of parsing megabytes synchronously. The
   * LangGraph integrations pass a worker thread (`largeResultWorker`); without it,
   * or with an estimator that has its own tokenizer, the view computes them itself.
   * @default undefined (computed in the view)
   * @example
   * ```ts
   * createContextManager({ largeResults: (job) => runInWorker(computeLargeResultFloors, job) });
   * ```
   */
  largeResults?: LargeResultComputer;
  /**
   * Pins messages besides those marked with `pinMessage` (see `BuildContextInput.pin`).
   * Set once for every request; per-request settings cannot change it.
   * @default undefined
   * @example
   * ```ts
   * createContextManager({ pin: (message) => message.name === "requirements" });
   * ```
   */
  pin?: PinPredicate;
  /**
   * The date of a message, shown in the lines the recall stage brings back (see
   * `BuildContextInput.messageDate`). Set once for every request.
   * @default undefined (recalled lines carry no date)
   * @example
   * ```ts
   * createContextManager({ messageDate: (message) => message.additional_kwargs.sent_at as string | undefined });
   * ```
   */
  messageDate?: MessageDate;
  /**
   * Clock, for the summarizer cool-down.
   * @default Date.now
   */
  now?: () => number;
}

/** One model call's context request. */
export interface ContextRequest {
  /** Full checkpoint messages, oldest first. */
  messages: readonly MessageInput[];
  /** Whose conversation: scopes the compaction state. */
  key: ConversationKey;
  systemPrompt?: string | BaseMessage;
  tools?: readonly unknown[];
  memories?: readonly string[];
  /** Durable evidence (e.g. `EvidenceState.asMessage()`), shown with any summary. */
  evidence?: BaseMessage | null;
  /** Per-request settings. */
  overrides?: ContextSettings;
  /** Cancels a summarizer call. */
  signal?: AbortSignal;
  /** The limits of the model this call goes to (its `model.profile`); replaces the manager's `profile`. */
  profile?: ModelLimits;
  /** Compact harder: a smaller limit and a summary attempt whatever the trigger (overflow recovery). */
  harder?: boolean;
}

/** What compaction did for one view. */
export type CompactionKind = "none" | "micro" | "summary" | "drop" | "overflow-recovery";

/** Emitted through `onCompaction`. */
export interface CompactionEvent {
  conversationId: string;
  kind: Exclude<CompactionKind, "none">;
  /** Input messages and the estimate of the view before this step. */
  before: { messages: number };
  after: { messages: number; tokens: number };
}

/** The report of a managed view: the view report plus what compaction did. */
export interface ManagedReport extends ContextReport {
  /** Where each budget number came from: `request`, `option`, `env`, `profile` or `default`. */
  budgetSources: BudgetSources;
  compaction: {
    kind: Exclude<CompactionKind, "overflow-recovery">;
    /** Token count at which summarizing starts. */
    trigger: number;
    /** The cached summary was reused (no summarizer call). */
    summaryCacheHit: boolean;
    /** Messages the summary shown stands for, after the leading system messages (0 when no summary is shown); the same as `messages.summarized`. */
    summarizedMessages: number;
    /**
     * The summary shown is a marked excerpt: cut to the room this view had beside
     * its current turn, or, on the call that made it, an answer longer than
     * `SUMMARY_MAX_SHARE` of the prompt limit.
     */
    summaryExcerpted: boolean;
    summarizerCalls: number;
    /** Characters of transcript sent to the summarizer. */
    summarizerInputChars: number;
    /**
     * Why no summary came: the summarizer threw (`error`), answered nothing visible
     * (`empty`), answered over 40,000 characters (`too-long`), timed out, was
     * aborted, or is skipped after repeated failures (`cooldown`).
     */
    summarizerFailure?: "error" | "empty" | "too-long" | "timeout" | "aborted" | "cooldown";
    consecutiveFailures: number;
    /** Actual/estimated token ratio applied to the limit. */
    calibration: number;
    storeError: boolean;
  };
  /**
   * Set by the LangGraph integrations when they updated the durable evidence for
   * this call: whether a changed prefix (a fork, an edit, a concurrent branch)
   * made it rebuild the evidence from this checkpoint, and how many messages the
   * rebuild read (0 without one). Absent when evidence is off or not updated here.
   */
  evidence?: { rebuilt: boolean; rebuiltMessages: number };
  /**
   * Set by the LangGraph integrations: what keyed this call's stored state (evidence,
   * summary cache, calibration, view records). `user`: the thread of one user
   * (`thread_id` and a user id); `thread`: the thread alone, as LangGraph keys its
   * checkpoints (no user id); `stateless`: no `thread_id`, so nothing was read from or
   * written to the store and no summary was made (there was nowhere to cache it).
   */
  scope?: "user" | "thread" | "stateless";
}

/**
 * What the manager passed to `buildContext` beyond the request itself, so a view
 * record can say how to rebuild the view (see `viewRecordOf`).
 */
export interface ViewBuildInputs {
  /** Leading system messages of the checkpoint. */
  lead: number;
  /** Index of the first checkpoint message after the cached summary's prefix (`lead` without a summary). */
  offset: number;
  /** The summary text in effect, or null. */
  summaryText: string | null;
  /** The summary of the current turn's first exchanges the view was given, if any. */
  turnSummary?: TurnSummary;
  /** The view options after defaults and per-request overrides. */
  options: Required<ViewOptions>;
  /** True when the caller gave its own estimator. */
  customEstimator: boolean;
  /** The manager summarizes the turns its views leave out (see `ResolvedViewSettings.summarizes`). @default false */
  summarizes?: boolean;
  /**
   * The evidence message the view showed: the request's, or the one held from an
   * earlier call while it still holds (see prompt-cache steps). Absent: the request's.
   */
  evidence?: BaseMessage | null;
  /**
   * Indices in the request's messages that the manager's `pin` predicate chose,
   * ascending; absent when no predicate is configured.
   */
  predicatePins?: number[];
  /**
   * What the manager's `messageDate` returned for the view, by index in the request's
   * messages (as the text its line shows, `undefined` as null); absent without it.
   */
  messageDates?: [number, string | number | null][];
}

/** A managed view: messages for the model and the report. */
export interface ManagedView {
  messages: BaseMessage[];
  report: ManagedReport;
  /**
   * How the view was built, for view records; set by the context manager.
   * @default undefined
   */
  built?: ViewBuildInputs;
}

/** Builds views with summaries, caches and calibration; see {@link createContextManager}. */
export interface ContextManager {
  /** Build the view for one model call. */
  build(request: ContextRequest): Promise<ManagedView>;
  /**
   * Call `call` with the view; when it fails (or answers) with a context overflow,
   * compact harder and call once more. A second overflow surfaces.
   */
  run<T>(request: ContextRequest, call: (messages: BaseMessage[], view: ManagedView) => Promise<T>): Promise<{ result: T; view: ManagedView; recovered: boolean }>;
  /** Learn from `usage_metadata.input_tokens` of a response to `view`. */
  recordUsage(key: ConversationKey, view: ManagedView, response: unknown): Promise<void>;
  /** The detector in use. */
  isOverflow(errorOrResponse: unknown): boolean;
}
