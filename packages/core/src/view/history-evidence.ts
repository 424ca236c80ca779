import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { evidenceWithin } from "../evidence/evidence-within.js";
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
