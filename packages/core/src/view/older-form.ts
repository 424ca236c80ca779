import { ToolMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import { splitContent } from "../compact/compact-tool-result.js";
import { isClearedToolResult } from "../compact/marker.js";
import type { Estimator } from "../estimate.js";
import { keepsMoreHistory, type HistoryRoom } from "./allocate-history.js";
import { keptInTurn } from "./clear-step.js";
import type { CurrentTurnFit } from "./current-turn-room.js";
import { EVERY_TOOL_RESULT, type NoteOptions } from "./options.js";
import { withMessages, type PreparedTurn } from "./prepare-turn.js";
import type { ViewOptions } from "./types.js";

type OlderFormOptions = Pick<
  Required<ViewOptions>,
  "keepRecentToolResults" | "maxToolResultTokens" | "clearStep" | "excludeTools"
> &
  NoteOptions;

/** What {@link keepOlderTurnsInPlace} needs from the view being compacted. */
export interface OlderFormInput {
  /** The history's room of the view: the older turns' allocation beside each form of the current turn. */
  history: HistoryRoom;
  /** The limit less the fixed part: room for the current turn and the history. */
  room: number;
  options: OlderFormOptions;
  estimator: Estimator;
}

/**
 * The `olderForm` candidate of the current turn: current results that fit whole but
 * push older turns out of the view, in the form they keep once their turn ends (see
 * {@link inOlderForm}). Shown whole, they would hold that room for this call only: on
 * the next call they are compacted anyway, the dropped turns come back, and the head of
 * the view moves twice (a provider's prefix cache is lost both times). Proposed only when
 * it could win — when compacting every result to `maxToolResultTokens` would keep more
 * history ({@link keepsMoreHistory}); the rule of `chooseCurrentForm` weighs it against
 * the results whole by the allocation each leaves. Not while older results wait for their
 * summary ({@link EVERY_TOOL_RESULT}): a context manager summarizes the turns the view
 * drops, and they do not come back. Undefined when not proposed, or when it compacts nothing.
 *
 * @example
 * ```ts
 * const olderForm = keepOlderTurnsInPlace({ history, room: limit - fixed.tokens, options, estimator }, fitted);
 * if (olderForm !== undefined) candidates.push(olderForm);
 * ```
 */
export function keepOlderTurnsInPlace(input: OlderFormInput, fitted: CurrentTurnFit): CurrentTurnFit | undefined {
  const { history, room, options, estimator } = input;
  if (options.keepRecentToolResults === EVERY_TOOL_RESULT || fitted.compacted + fitted.narrowed > 0) return undefined;
  // Older turns kept beside a current turn of `tokens`: the allocation the view is placed by when that form is chosen.
  const beside = (tokens: number) => history.at(room - tokens);
  const whole = beside(fitted.turn.tokens);
  if (whole.all) return undefined;
  // The most the older form could free: every result over the limit cut to it.
  const most = overLimitTokens(fitted.turn, options.maxToolResultTokens, estimator);
  if (most === 0 || !keepsMoreHistory(beside(fitted.turn.tokens - most), whole)) return undefined;
  const olderForm = inOlderForm(fitted.turn, options, estimator);
  return olderForm.compacted === 0 ? undefined : olderForm;
}

/**
 * The current turn as micro-compaction will show it once it is the newest older
 * turn: the results it keeps (see {@link keptInTurn}) compacted to
 * `maxToolResultTokens` by the same {@link microCompact} call, so byte for byte the
 * same text. A result it would clear, or could not compact safely, stays whole: the
 * current turn's results are never cleared, and its form changes on the next call
 * in any case.
 *
 * @example
 * ```ts
 * const { turn, compacted } = inOlderForm(current, options, estimator);
 * ```
 */
type InOlderFormOptions = Pick<OlderFormOptions, "keepRecentToolResults" | "maxToolResultTokens" | "clearStep" | "recallToolName" | "excludeTools">;

export function inOlderForm(turn: PreparedTurn, options: InOlderFormOptions, estimator: Estimator): CurrentTurnFit {
  const keep = keptInTurn(turn.messages, { seen: 0, clearing: false }, options.keepRecentToolResults, options.clearStep);
  const { maxToolResultTokens, recallToolName, excludeTools } = options;
  const compactedTurn = microCompact(turn.messages, { keepRecentToolResults: keep, maxToolResultTokens, estimator, recallToolName, excludeTools });
  let compacted = 0;
  const messages = turn.messages.map((message, i) => {
    const shown = compactedTurn.messages[i]!;
    if (shown === message || isClearedToolResult(shown)) return message;
    compacted++;
    return shown;
  });
  if (compacted === 0) return { turn, compacted: 0, narrowed: 0 };
  return { turn: withMessages(turn, messages, estimator.estimateMessages(messages)), compacted, narrowed: 0 };
}

/** Tokens of the turn's tool results past `limit` each: what compacting them to it frees at most. */
function overLimitTokens(turn: PreparedTurn, limit: number, estimator: Estimator): number {
  let over = 0;
  for (const message of turn.messages) if (ToolMessage.isInstance(message)) over += Math.max(0, estimator.estimateText(splitContent(message.content).text) - limit);
  return over;
}
