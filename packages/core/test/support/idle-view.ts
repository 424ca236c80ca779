import type { BaseMessage } from "@langchain/core/messages";
import type { ContextView } from "@contextview/core";

/** The opening of the block of excerpts of earlier turns a view shows (core's view/head.ts). */
const EXCERPTS_OPENING = "Excerpts of earlier turns that are no longer shown in full.";

/** The turn's first text (its request's, else its answer's), as an excerpt line begins. */
function firstText(turn: readonly BaseMessage[]): string | undefined {
  for (const message of turn) {
    const text = typeof message.content === "string" ? message.content.trim() : "";
    if (text !== "" && (message.type === "human" || message.type === "ai")) return `${message.type === "human" ? "user" : "assistant"}: ${squeeze(text).slice(0, 40)}`;
  }
  return undefined;
}

/** Runs of whitespace as one space: excerpt lines are written so. */
const squeeze = (text: string) => text.replace(/\s+/g, " ");

/** Whether `view` shows `turn` in excerpt form: its block of excerpts quotes the turn's first text. */
function excerpted(view: ContextView, turn: readonly BaseMessage[]): boolean {
  const line = firstText(turn);
  if (line === undefined) return false;
  return view.messages.some((m) => m.type === "ai" && typeof m.content === "string" && m.content.startsWith(EXCERPTS_OPENING) && squeeze(m.content).includes(line));
}

/**
 * Issue 48's idle view: when `view` leaves more than a quarter of its limit unused, the
 * newest older turn of `messages` it does not show (no message of it shown by id), if that
 * turn's tokens in some form (`tokensOf`, a turn's messages) fit the unused room; else
 * undefined. A turn the view's excerpts of earlier turns quote is in a form, the least of
 * them: it is idle too when its form of `tokensOf` would fit the room beside them (a turn
 * is kept in its best form that fits before its excerpt).
 *
 * @example
 * ```ts
 * expect(idleFor(view, messages, (turn) => estimator.estimateMessages(clearedForm(turn)))).toBeUndefined();
 * ```
 */
export function idleFor(view: ContextView, messages: readonly BaseMessage[], tokensOf: (turn: BaseMessage[]) => number): string | undefined {
  const unused = view.report.limit - view.report.tokens.total;
  if (unused <= view.report.limit / 4) return undefined;
  const shown = new Set(view.messages.map((m) => m.id));
  const starts = messages.flatMap((m, i) => (m.type === "human" ? [i] : []));
  for (let k = starts.length - 2; k >= 0; k--) {
    const turn = messages.slice(starts[k], starts[k + 1]);
    if (turn.some((m) => shown.has(m.id))) continue;
    const form = excerpted(view, turn) ? "shown as an excerpt" : "left out";
    const tokens = tokensOf(turn);
    return tokens <= unused ? `turn ${k} ${form} (${tokens} tokens in its form) with ${unused} of ${view.report.limit} unused` : undefined;
  }
  return undefined;
}
