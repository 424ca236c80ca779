// Summaries of a long current turn's oldest exchanges: when the view excerpts them, the
// summarizer writes what they found, a few exchanges ahead so the next calls of the tool
// loop reuse it, and the summary is cached in the compaction state by the hash of the
// messages it covers, like the conversation's summary.
import type { Estimator } from "../estimate.js";
import { kindOf, newestRequestIndex, toBaseMessage, type MessageInput } from "../messages.js";
import type { CompactionState } from "../store/contracts.js";
import type { Summarizer } from "../summarize/summarizer.js";
import type { KeepOptions } from "../summarize/safe-cut.js";
import type { CurrentTurnReport, TurnSummary } from "../view/types.js";
import { summarizeAttempt, type SummarizeAttempt } from "./summarize-attempt.js";

/** Exchanges summarized beyond those the view excerpts, so the next calls of the loop find the summary made. */
export const TURN_SUMMARY_AHEAD = 4;

/**
 * The current turn of `messages`: the index of its request, and the end (index after
 * its last message) of each exchange after it — an assistant message with the
 * results that follow it — as the view counts them.
 *
 * @example
 * ```ts
 * const { request, ends } = currentTurnExchanges(messages); // ends[k - 1]: end of the first k exchanges
 * ```
 */
export function currentTurnExchanges(messages: readonly MessageInput[]): { request: number; ends: number[] } {
  const request = newestRequestIndex(messages.map((m, i) => toBaseMessage(m, i)));
  const ends: number[] = [];
  for (let i = request + 1; i < messages.length; i++) {
    const kind = kindOf(messages[i], i);
    if (kind === "ai") ends.push(i + 1);
    else if (ends.length > 0) ends[ends.length - 1] = i + 1;
  }
  return { request, ends };
}

/**
 * The stored turn summary when it stands for the first exchanges of this request's
 * current turn (same turn, same messages), else undefined.
 *
 * @example
 * ```ts
 * const turnSummary = await cachedTurnSummary(state, messages, (n) => hash(key, messages, n, signal));
 * ```
 */
export async function cachedTurnSummary(state: CompactionState, messages: readonly MessageInput[], hash: (n: number) => Promise<string>): Promise<TurnSummary | undefined> {
  const stored = state.turnSummary;
  if (stored === undefined) return undefined;
  const { request, ends } = currentTurnExchanges(messages);
  if (request < 0 || ends[stored.steps - 1] !== stored.prefixN || stored.prefixN <= request) return undefined;
  return (await hash(stored.prefixN)) === stored.prefixHash ? { steps: stored.steps, text: stored.text } : undefined;
}

/** What a turn summary step needs. */
export interface TurnSummaryInputs {
  summarizer: Summarizer;
  messages: readonly MessageInput[];
  /** How the view shown fitted the current turn. */
  report: CurrentTurnReport;
  /** The summary the view was given, if any. */
  given: TurnSummary | undefined;
  limit: number;
  keep: KeepOptions;
  estimator: Estimator;
  chunkTokens: number;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/** The messages a new turn summary would stand for (see {@link turnSummarySpan}). */
export interface TurnSummarySpan {
  /** First message summarized: the end of the given summary's span, or the one after the request. */
  offset: number;
  /** End of the last exchange covered. */
  prefixN: number;
  /** Exchanges covered, counted from the turn's first. */
  steps: number;
  /** The given summary's text, which the new one extends. */
  previous: string | null;
}

/**
 * When the view excerpts exchanges of a long turn, the span to summarize: the turn's
 * first exchanges through {@link TURN_SUMMARY_AHEAD} past the excerpted ones (never
 * the newest), extending the summary given, so the messages summarized run from the
 * end of the given summary's span (or the request) to the end of the last exchange
 * covered. Null when nothing is excerpted or nothing is left to summarize.
 *
 * @example
 * ```ts
 * const span = turnSummarySpan({ messages, report: view.report.currentTurn, given });
 * ```
 */
export function turnSummarySpan(inputs: Pick<TurnSummaryInputs, "messages" | "report" | "given">): TurnSummarySpan | null {
  const { report, given, messages } = inputs;
  if (report.excerpted === 0) return null;
  const { request, ends } = currentTurnExchanges(messages);
  const covered = given?.steps ?? 0;
  const steps = Math.min(ends.length - 1, covered + report.excerpted + TURN_SUMMARY_AHEAD);
  if (request < 0 || steps <= covered) return null;
  const offset = covered > 0 ? (ends[covered - 1] as number) : request + 1;
  return { offset, prefixN: ends[steps - 1] as number, steps, previous: given?.text ?? null };
}

/**
 * Summarize a span of a long turn (see {@link turnSummarySpan}); on success, `next` is
 * the turn summary to store, keyed by `hash()`, the hash of the messages up to the
 * span's end.
 *
 * @example
 * ```ts
 * const { attempt, next } = await summarizeTurn(inputs, span, () => prefixHash(key, messages, span.prefixN, signal));
 * ```
 */
export async function summarizeTurn(
  inputs: Omit<TurnSummaryInputs, "report" | "given">,
  span: TurnSummarySpan,
  hash: () => Promise<string>,
): Promise<{ attempt: SummarizeAttempt; next?: Omit<NonNullable<CompactionState["turnSummary"]>, "createdAt"> }> {
  const { offset, prefixN, steps, previous } = span;
  const attempt = await summarizeAttempt(
    { summarizer: inputs.summarizer, messages: inputs.messages, offset, limit: inputs.limit, keep: inputs.keep, estimator: inputs.estimator, previous, chunkTokens: inputs.chunkTokens, timeoutMs: inputs.timeoutMs, signal: inputs.signal },
    prefixN,
  );
  if (attempt.status !== "ok") return { attempt };
  return { attempt, next: { prefixN, prefixHash: await hash(), steps, text: attempt.text } };
}
