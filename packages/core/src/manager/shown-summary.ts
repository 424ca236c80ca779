import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import type { CompactionState } from "../store/contracts.js";
import { summaryMessage } from "../summarize/summary-message.js";
import { HISTORY_LABEL, labelMessage } from "../view/head.js";
import { historyWithin } from "../view/history-evidence.js";
import { EXCERPT_MARKER_TOKENS, fitExcerpt } from "../view/older.js";
import type { ContextView } from "../view/types.js";
import type { RequestViews } from "./view-builder.js";

/** A summary excerpt shorter than this (estimated tokens) says too little to stand for its span. */
export const MIN_SUMMARY_EXCERPT_TOKENS = 100;

/** The view of one request with the summary as it is shown. */
export interface ShownSummary {
  view: ContextView;
  /** First message after what the shown summary stands for (`lead` when none is shown). */
  offset: number;
  /** The summary text shown, or null. */
  text: string | null;
  /** True when `text` is an excerpt of the summary, cut to this view's room. */
  excerpted: boolean;
}

/**
 * The view with the summary in the form that fits it. A summary the view cannot
 * show whole (a large current turn, or one stored before summaries were bounded)
 * is cut to a marked excerpt of the room left beside the evidence; with no room for
 * a useful excerpt, its span goes back to the older turns — dropped and counted
 * like any other, with their excerpts — and the evidence stands alone. Nothing is
 * then represented by a summary the model never sees. The stored summary is not
 * changed. `built` is the view `views` already built with the whole summary, if any.
 *
 * @example
 * ```ts
 * const { view, offset, text } = showSummary(views, summary, lead, evidence, estimator);
 * ```
 */
export function showSummary(
  views: RequestViews,
  summary: CompactionState["summary"] | null,
  lead: number,
  evidence: BaseMessage | null,
  estimator: Estimator,
  built?: ContextView,
): ShownSummary {
  if (!summary) return { view: built ?? views.build(lead, null, evidence), offset: lead, text: null, excerpted: false };
  const whole = built ?? views.build(summary.prefixN, summary.text, evidence);
  if (whole.report.history.included) return { view: whole, offset: summary.prefixN, text: summary.text, excerpted: false };
  const { report } = whole;
  const t = report.tokens;
  // The room of the history slot: the summary goes before any older turn.
  const room = report.limit - (t.total - t.history - t.summary);
  // Beside the evidence as the view shows it: within its share of the limit (see historyWithin).
  const head = historyWithin(summaryMessage("", summary.prefixN, evidence), Math.floor(views.options.evidenceShare * report.limit), estimator).message;
  const overhead = estimator.estimateMessages([labelMessage(HISTORY_LABEL), ...(head === null ? [] : [head])]);
  const textRoom = room - overhead - EXCERPT_MARKER_TOKENS;
  if (textRoom >= MIN_SUMMARY_EXCERPT_TOKENS) {
    const text = fitExcerpt(summary.text, textRoom, estimator);
    const view = views.build(summary.prefixN, text, evidence);
    if (view.report.history.included) return { view, offset: summary.prefixN, text, excerpted: true };
  }
  return { view: views.build(lead, null, evidence), offset: lead, text: null, excerpted: false };
}
