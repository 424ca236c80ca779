import type { ResolvedBudget } from "../budget.js";
import type { ManagedReport } from "../manager/types.js";
import type { ViewOptions } from "../view/types.js";

/**
 * Version of {@link ViewRecord}; a store refuses records of another version.
 *
 * @example
 * ```ts
 * stored.record.version === VIEW_RECORD_VERSION; // true
 * ```
 */
export const VIEW_RECORD_VERSION = 1;

/**
 * SHA-256 (hex) of each input of a view that is not in the checkpoint, or null
 * when the call had none. The texts themselves travel beside the record, in
 * {@link ViewRecordEntry.inputs}, keyed by these hashes.
 */
export interface ViewInputHashes {
  /** The system prompt given to the view (null: none given, the checkpoint's own system messages were used). */
  systemPrompt: string | null;
  /** The tool schemas charged, as JSON (OpenAI tool format for LangChain tools). */
  tools: string | null;
  /** The saved memories offered, as a JSON array of strings. */
  memories: string | null;
  /** The summary text in effect (the summarizer's output). */
  summary: string | null;
  /**
   * The durable evidence message given, as JSON `{ content, id? }`. Its text is not kept
   * when `evidenceBeside` is: the checkpoint gives back what it leaves out.
   */
  evidence: string | null;
  /**
   * The evidence without the excerpts of messages the view shows, as JSON `{ content, id?,
   * aside }`, `aside` listing each excerpt left out (`bucket`, its place `at` there, and the
   * checkpoint `index` of the message it quotes, from which it is made again); its hash is
   * `evidence`'s once they are back. Absent when the record keeps the evidence whole.
   */
  evidenceBeside?: string | null;
  /** The summary of the current turn's first exchanges, as JSON `{ steps, text }` (absent in records made before turn summaries). */
  turnSummary?: string | null;
}

/**
 * What one model call's view was built from and what it reported: counts,
 * decisions, options and hashes, never message content. Plain JSON.
 *
 * The view is a pure function of the checkpoint messages and these options and
 * inputs, so the inspector can rebuild it and check it is the same.
 */
export interface ViewRecord {
  version: typeof VIEW_RECORD_VERSION;
  /** Position of the call in its conversation, 1 for the first; assigned by the store. */
  sequence: number;
  /** Epoch milliseconds when the view was built. */
  recordedAt: number;
  /** Which integration built it ("node", "wrapper", "middleware", or the caller's name). */
  source: string;
  /** `config.configurable.checkpoint_id` of the call when LangGraph gave one. */
  checkpointId: string | null;
  /** True for the smaller view built after a provider overflow. */
  overflowRecovery: boolean;
  /**
   * The checkpoint messages the view was built from: how many, where the cached
   * summary's prefix ends (`offset`, 0 without one), and the SHA-256 of the messages
   * the view read (leading system messages, the opening request and pinned messages
   * before `readFrom`, and `[readFrom, count)`). `pins`: the indices the manager's
   * `pin` predicate chose (a function cannot be recorded); absent without a predicate.
   * `dates`: what the manager's `messageDate` returned for the messages recall
   * considered, by index, as the text its line shows (earlier records kept a
   * Date's epoch milliseconds, which read the same from 1973 on); absent without it.
   */
  messages: { count: number; offset: number; readFrom: number; hash: string; pins?: number[]; dates?: [number, string | number | null][] };
  /** The options the view was built with, after defaults and per-request overrides. */
  options: {
    budget: ResolvedBudget;
    view: Required<ViewOptions>;
    /** "default" for `createEstimator()`; "custom" when the caller passed its own (the inspector cannot rebuild it). */
    estimator: "default" | "custom";
    /** True when the manager summarized the turns the view left out (no cleared band; see `ResolvedViewSettings.summarizes`); absent otherwise. */
    summarizes?: true;
  };
  inputs: ViewInputHashes;
  /** The view's report, without `elapsedMs`. */
  report: Omit<ManagedReport, "elapsedMs">;
}

/** What a store receives: the record without its sequence, and the input texts by hash. */
export interface ViewRecordEntry {
  record: Omit<ViewRecord, "sequence">;
  /** Input texts keyed by the hashes of `record.inputs`; kept once per conversation and hash. */
  inputs: Readonly<Record<string, string>>;
}

/** A stored record and the input texts its hashes name (those the store still holds). */
export interface StoredView {
  record: ViewRecord;
  inputs: Record<string, string>;
}

/** Options of `ContextStore.listViews`. */
export interface ListViewsOptions {
  /**
   * Newest records returned at most (oldest first in the result).
   * @default every record kept
   */
  limit?: number;
}
