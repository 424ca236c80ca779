import type { BaseMessage } from "@langchain/core/messages";
import type { ContextView } from "@contextview/core";

/**
 * Issue 48's idle view: when `view` leaves more than a quarter of its limit unused, the
 * newest older turn of `messages` it leaves out (no message of it shown by id), if that
 * turn's tokens in some form (`tokensOf`, a turn's messages) fit the unused room; else
 * undefined.
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
    const tokens = tokensOf(turn);
    return tokens <= unused ? `turn ${k} left out (${tokens} tokens in its form) with ${unused} of ${view.report.limit} unused` : undefined;
  }
  return undefined;
}
