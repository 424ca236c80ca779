import type { Estimator } from "../estimate.js";
import { newestRequestIndex, toBaseMessage, type MessageInput } from "../messages.js";
import type { CompactionState } from "../store/contracts.js";
import { MAX_SUMMARY_CHARS, runSummarizer, type SummaryFailureReason, type SummaryOutcome } from "../summarize/run-summarizer.js";
import { SETTINGS_SPEC } from "../settings/spec.js";
import { findSafeCut, type KeepOptions } from "../summarize/safe-cut.js";
import type { Summarizer } from "../summarize/summarizer.js";
import { chunkTranscript, renderTranscript } from "../summarize/transcript.js";
import { EXCERPT_MARKER_TOKENS, fitExcerpt } from "../view/older.js";
import type { ContextReport } from "../view/types.js";

/**
 * True when this view calls for a summary: a summarizer is configured and not
 * switched off, the view dropped turns, went past the trigger, or an overflow asks
 * for harder compaction, and a given summary was not itself left out of the view.
 *
 * @example
 * ```ts
 * if (wantsSummary(view.report, { summarizer, summarize: settings.summarize, harder: false, trigger })) { ... }
 * ```
 */
export function wantsSummary(
  report: ContextReport,
  when: { summarizer: Summarizer | null; summarize: boolean | undefined; harder: boolean; trigger: number },
): boolean {
  const over = when.harder || report.turns.dropped > 0 || report.tokens.total > when.trigger;
  const { history } = report;
  return when.summarizer !== null && when.summarize !== false && over && !(history.given && !history.included && history.reason === "does-not-fit");
}

/** A running summary up to this share of the prompt limit grows by a new part; a longer one is folded into one new summary. */
export const SUMMARY_APPEND_SHARE = 0.15;

/**
 * The longest summary kept whole, as a share of the prompt limit. The summarizer is
 * told the bound (`SummarizerContext.maxTokens`); a longer answer is kept as a
 * marked excerpt of this size, so a summary never takes the room of the turns it
 * leaves in the view, and a cached one always fits beside a current turn of
 * ordinary size.
 */
export const SUMMARY_MAX_SHARE = 0.25;

/**
 * The longest summary accepted whole for a prompt limit, in estimated tokens (see
 * {@link SUMMARY_MAX_SHARE}).
 *
 * @example
 * ```ts
 * summaryMaxTokens(4000); // 1000
 * ```
 */
export function summaryMaxTokens(limit: number): number {
  return Math.max(1, Math.floor(SUMMARY_MAX_SHARE * limit));
}

/** Between the parts of a summary that grew by appending. */
const SEGMENT_SEPARATOR = "\n\n";

/**
 * True when the running summary is extended by appending the summary of the newly
 * cut messages, written on its own, rather than folded with them into a new text:
 * while it is at most {@link SUMMARY_APPEND_SHARE} of the prompt limit and half the
 * longest summary accepted. Its text then stays byte for byte at the head of the
 * view, so a provider's prompt cache still serves it after the update; once it is
 * longer, the next update folds it (and its parts) into one shorter summary.
 *
 * @example
 * ```ts
 * extendsByAppending("- the user budgets 400 EUR a month", 8000, createEstimator()); // true
 * ```
 */
export function extendsByAppending(previous: string, limit: number, estimator: Estimator): boolean {
  return previous.length <= MAX_SUMMARY_CHARS / 2 && estimator.estimateText(previous) <= SUMMARY_APPEND_SHARE * limit;
}

/** What one summarize attempt needs. */
export interface SummarizeAttemptInputs {
  summarizer: Summarizer;
  messages: readonly MessageInput[];
  /** First message not yet summarized (after the leading system messages and any cached summary). */
  offset: number;
  /** The prompt limit for this request: the default kept tail is a share of it. */
  limit: number;
  keep: KeepOptions;
  estimator: Estimator;
  /** The running summary the new one extends, or null. */
  previous: string | null;
  chunkTokens: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/** The outcome of a summarize attempt. */
export type SummarizeAttempt =
  | { status: "no-cut" }
  | { status: "ok"; prefixN: number; text: string; calls: number; inputChars: number; excerpted: boolean }
  | { status: "failed"; reason: SummaryFailureReason; calls: number; inputChars: number };

/**
 * Where a summary of these inputs would end: the index after the last message it
 * would stand for (a safe cut before the newest user message that keeps a tail of a
 * share of the limit), or null when no safe cut leaves anything to summarize.
 *
 * @example
 * ```ts
 * const prefixN = summaryCut({ messages, offset: lead, limit, keep: {}, estimator });
 * ```
 */
export function summaryCut(inputs: Pick<SummarizeAttemptInputs, "messages" | "offset" | "limit" | "keep" | "estimator">): number | null {
  const { messages, offset, limit, keep, estimator } = inputs;
  const tail = messages.slice(offset).map((m, i) => toBaseMessage(m as MessageInput, offset + i));
  const newest = newestRequestIndex(tail);
  const kept = {
    keepMinTokens: keep.keepMinTokens ?? Math.round(SETTINGS_SPEC.keepMinTokens.default.shareOfPromptLimit * limit),
    keepMinText: keep.keepMinText ?? SETTINGS_SPEC.keepMinText.default,
    keepMaxTokens: keep.keepMaxTokens ?? Math.round(SETTINGS_SPEC.keepMaxTokens.default.shareOfPromptLimit * limit),
  };
  const cut = newest > 0 ? findSafeCut(tail, 0, newest, estimator, kept) : null;
  return cut === null || cut <= 0 ? null : offset + cut;
}

/**
 * Summarize the messages from `offset` up to a safe cut before the newest user
 * message, keeping a tail of a share of the limit verbatim. `no-cut` when no safe
 * cut leaves anything to summarize (the summarizer is then not called). An answer
 * longer than {@link summaryMaxTokens} is kept as a marked excerpt (`excerpted`).
 * `prefixN`, the {@link summaryCut} of these inputs, is found here unless given.
 *
 * @example
 * ```ts
 * const attempt = await summarizeAttempt({ summarizer, messages, offset: lead, limit, keep: {}, estimator, previous: null, chunkTokens: 6000, timeoutMs: 60000, signal });
 * ```
 */
export async function summarizeAttempt(inputs: SummarizeAttemptInputs, prefixN: number | null = summaryCut(inputs)): Promise<SummarizeAttempt> {
  const { messages, offset, limit, estimator } = inputs;
  if (prefixN === null || prefixN <= offset) return { status: "no-cut" };
  const tail = messages.slice(offset, prefixN).map((m, i) => toBaseMessage(m as MessageInput, offset + i));
  const chunks = chunkTranscript(renderTranscript(tail), inputs.chunkTokens, estimator);
  const maxTokens = summaryMaxTokens(limit);
  const run = (running: string | null) => runSummarizer(inputs.summarizer, chunks, running, { timeoutMs: inputs.timeoutMs, maxTokens }, inputs.signal);
  const outcome = await newSummary(run, inputs.previous, limit, estimator, maxTokens);
  if (outcome.ok) {
    const excerpted = estimator.estimateText(outcome.text) > maxTokens;
    const text = excerpted ? fitExcerpt(outcome.text, Math.max(1, maxTokens - EXCERPT_MARKER_TOKENS), estimator) : outcome.text;
    return { status: "ok", prefixN, text, calls: outcome.calls, inputChars: outcome.transcriptChars, excerpted };
  }
  return { status: "failed", reason: outcome.reason, calls: outcome.calls, inputChars: outcome.transcriptChars };
}

/**
 * The new running summary: the summary of the cut messages appended to a short one
 * (see {@link extendsByAppending}), else everything folded into one text. A part that
 * would make the summary longer than a summary may be (`maxTokens`) is folded with it after all.
 */
async function newSummary(
  run: (running: string | null) => Promise<SummaryOutcome>,
  previous: string | null,
  limit: number,
  estimator: Estimator,
  maxTokens: number,
): Promise<SummaryOutcome> {
  if (previous === null || !extendsByAppending(previous, limit, estimator)) return run(previous);
  const part = await run(null);
  if (!part.ok) return part;
  const text = `${previous}${SEGMENT_SEPARATOR}${part.text}`;
  if (text.length <= MAX_SUMMARY_CHARS && estimator.estimateText(text) <= maxTokens) return { ...part, text };
  const folded = await run(previous);
  return { ...folded, calls: part.calls + folded.calls, transcriptChars: part.transcriptChars + folded.transcriptChars };
}

/**
 * The compaction state after a failed attempt: one more consecutive failure, and a
 * cool-down once `maxFailures` failed in a row.
 *
 * @example
 * ```ts
 * await store.putCompaction(key, stateAfterFailure(state, 3, 300_000, Date.now()));
 * ```
 */
export function stateAfterFailure(state: CompactionState, maxFailures: number, cooldownMs: number, now: number): CompactionState {
  const failures = state.failures + 1;
  const next: CompactionState = { ...state, failures };
  if (failures >= maxFailures) next.skipUntil = now + cooldownMs;
  return next;
}

/**
 * The compaction state after a new summary: the summary with its prefix hash, and
 * no failures or cool-down.
 *
 * @example
 * ```ts
 * await store.putCompaction(key, stateAfterSummary(state, { prefixN, prefixHash, text, createdAt: Date.now() }));
 * ```
 */
export function stateAfterSummary(state: CompactionState, summary: NonNullable<CompactionState["summary"]>): CompactionState {
  const next: CompactionState = { ...state, summary, failures: 0 };
  delete next.skipUntil;
  return next;
}
