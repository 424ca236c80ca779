import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { evidenceWithin } from "../evidence/evidence-within.js";
import { evidenceWithout, type QuotedMessage } from "../evidence/held-evidence.js";
import { DERIVED_ID_PREFIX } from "../evidence/snapshot.js";
import { toBaseMessage, type MessageInput } from "../messages.js";
import { historyHolds, summaryMessage, summaryParts } from "../summarize/summary-message.js";

/** The history message a view shows, and the evidence excerpts it left out (see {@link historyWithin}). */
export interface HistoryWithin {
  /** The history message to show, or null when it held evidence only and no excerpt fits. */
  message: BaseMessage | null;
  /** Evidence excerpts left out to keep the evidence within its share (`report.history.evidenceOmitted`). */
  evidenceOmitted: number;
}

/**
 * The history message with its durable evidence — alone (`EvidenceState.asMessage()`)
 * or riding along with a summary — within `maxEvidenceTokens` (`evidenceShare` of the
 * prompt limit): the oldest excerpts of the largest bucket leave first (see
 * {@link evidenceWithin}); a summary's own text is never cut here. Evidence is one claim
 * on the history's room among others: past its share, the room goes to the newest
 * turns and to the messages the request asks for (the recalled block). Any other
 * message is shown as given.
 *
 * @example
 * ```ts
 * const { message, evidenceOmitted } = historyWithin(evidence, Math.floor(0.1 * limit), estimator);
 * ```
 */
export function historyWithin(history: BaseMessage, maxEvidenceTokens: number, estimator: Estimator): HistoryWithin {
  const holds = historyHolds(history);
  if (!holds.evidence) return { message: history, evidenceOmitted: 0 };
  if (!holds.summary) {
    const { message, omitted } = evidenceWithin(history, maxEvidenceTokens, estimator);
    return { message, evidenceOmitted: omitted };
  }
  const parts = summaryParts(history);
  if (parts === null) return { message: history, evidenceOmitted: 0 };
  const { message: evidence, omitted } = evidenceWithin(parts.evidence, maxEvidenceTokens, estimator);
  if (omitted === 0) return { message: history, evidenceOmitted: 0 };
  return { message: summaryMessage(parts.text, parts.prefixN, evidence), evidenceOmitted: omitted };
}

/** The history message a view shows beside the messages it keeps (see {@link historyWithout}). */
export interface HistoryWithout {
  /** The history message to show, or null when it held evidence only and the view shows every message it quotes. */
  message: BaseMessage | null;
  /** Evidence excerpts left out because the view shows the message they quote (`report.history.evidenceShown`). */
  evidenceShown: number;
}

/**
 * The history message without the evidence excerpts whose message the view shows
 * itself (`shown`, see {@link evidenceWithout}): an excerpt is never chosen beside the
 * message it quotes. Evidence alone gives null once it quotes nothing else; a summary
 * keeps its text whatever its evidence loses. Any other message is shown as given.
 *
 * @example
 * ```ts
 * const { message, evidenceShown } = historyWithout(history, (quoted) => viewIds.has(quoted.messageId));
 * ```
 */
export function historyWithout(history: BaseMessage, shown: (quoted: QuotedMessage) => boolean): HistoryWithout {
  const holds = historyHolds(history);
  if (!holds.evidence) return { message: history, evidenceShown: 0 };
  if (!holds.summary) {
    const { message, removed } = evidenceWithout(history, shown);
    return { message, evidenceShown: removed.length };
  }
  const parts = summaryParts(history);
  if (parts === null) return { message: history, evidenceShown: 0 };
  const { message: evidence, removed } = evidenceWithout(parts.evidence, shown);
  if (removed.length === 0) return { message: history, evidenceShown: 0 };
  return { message: summaryMessage(parts.text, parts.prefixN, evidence), evidenceShown: removed.length };
}

/** The history message a view shows once it left out the evidence of messages it shows (see {@link historyBeside}). */
export interface HistoryBeside {
  /** The history message to show, or null when it held evidence only and nothing else of it is left. */
  message: BaseMessage | null;
  /** Evidence excerpts left out because the view shows the message they quote. */
  evidenceShown: number;
  /** Evidence excerpts left out to keep it within its room (see {@link historyWithin}); absent when as the share left them. */
  evidenceOmitted?: number;
}

/**
 * The history message of a view that shows some messages its evidence quotes: the
 * given message (`given`, before its share was applied) without the excerpts of those
 * messages (see {@link historyWithout}), within the room the evidence shown (`shownHistory`)
 * held and at most `maxEvidenceTokens` — so excerpts that left for the share may come back
 * in the room the redundant ones held, and the view never grows. Undefined when the shown
 * evidence quotes none of them.
 *
 * @example
 * ```ts
 * const beside = historyBeside(given, shownHistory, (q) => viewIds.has(q.messageId), Math.floor(0.1 * limit), estimator);
 * ```
 */
export function historyBeside(
  given: BaseMessage,
  shownHistory: BaseMessage,
  shown: (quoted: QuotedMessage) => boolean,
  maxEvidenceTokens: number,
  estimator: Estimator,
): HistoryBeside | undefined {
  const trimmed = historyWithout(shownHistory, shown);
  if (trimmed.evidenceShown === 0) return undefined;
  const rest = historyWithout(given, shown);
  const before = evidencePartOf(shownHistory);
  const bound = Math.min(maxEvidenceTokens, before === null ? 0 : estimator.estimateMessage(before));
  const refilled = rest.message === null ? { message: null, evidenceOmitted: 0 } : historyWithin(rest.message, bound, estimator);
  const tokens = (message: BaseMessage | null) => (message === null ? 0 : estimator.estimateMessage(message));
  // Estimates of a part and of a whole may differ by a token: never more than the view held.
  if (tokens(refilled.message) > tokens(shownHistory)) return trimmed;
  return { message: refilled.message, evidenceShown: rest.evidenceShown, evidenceOmitted: refilled.evidenceOmitted };
}

/** The evidence a history message holds, as a message of the envelope alone, or null. */
function evidencePartOf(history: BaseMessage): BaseMessage | null {
  const holds = historyHolds(history);
  if (!holds.evidence) return null;
  return holds.summary ? (summaryParts(history)?.evidence ?? null) : history;
}

/**
 * Whether a view shows the message an evidence excerpt quotes: one with an id among
 * `ids` (the view's messages, its pinned block included), or one without an id (quoted
 * by its derived position key) at or past `from`, the view's cut in the conversation's
 * positions, past which the view shows every message.
 *
 * @example
 * ```ts
 * historyWithout(history, quotedIn(new Set(view.messages.map((m) => m.id ?? "")), view.report.cut));
 * ```
 */
export function quotedIn(ids: ReadonlySet<string>, from: number): (quoted: QuotedMessage) => boolean {
  return (quoted) => ids.has(quoted.messageId) || (quoted.index >= from && quoted.messageId.startsWith(DERIVED_ID_PREFIX));
}

/**
 * The history message without the evidence excerpts of messages every view of this input
 * shows: `source[i]` for `i` in `[from, source.length)` where `shows(i)` (all of them by
 * default). `shift` counts the summarized prefix before `source`'s turns, since evidence
 * quotes by position in the whole conversation; a message without an id is matched by that
 * position. Used before any room is split, so such an excerpt never takes room beside its message.
 *
 * @example
 * ```ts
 * const { message, evidenceShown } = historyBesideShown(history, messages, loopStart, prior.length);
 * ```
 */
export function historyBesideShown(
  history: BaseMessage,
  source: readonly MessageInput[],
  from: number,
  shift: number,
  shows: (i: number) => boolean = () => true,
): HistoryWithout {
  const ids = new Set<string>();
  for (let i = from; i < source.length; i++) {
    const id = shows(i) ? toBaseMessage(source[i] as MessageInput, i).id : undefined;
    if (id !== undefined) ids.add(id);
  }
  const at = (index: number) => index - shift >= from && index - shift < source.length && shows(index - shift);
  return historyWithout(history, (quoted) => ids.has(quoted.messageId) || (quoted.messageId.startsWith(DERIVED_ID_PREFIX) && at(quoted.index)));
}
