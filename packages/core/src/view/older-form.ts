import { ToolMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import { splitContent } from "../compact/compact-tool-result.js";
import { isClearedToolResult } from "../compact/marker.js";
import type { Estimator } from "../estimate.js";
import { allocateHistory } from "./allocate-history.js";
import { keptInTurn } from "./clear-step.js";
import type { CurrentTurnFit } from "./current-turn-room.js";
import type { OlderTurns } from "./older-turns.js";
import { EVERY_TOOL_RESULT, type NoteOptions } from "./options.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { ViewOptions } from "./types.js";

type OlderFormOptions = Pick<
  Required<ViewOptions>,
  "keepRecentToolResults" | "maxToolResultTokens" | "clearStep" | "excerptBudget" | "dropStep" | "recallBudget" | "excludeTools"
> &
  NoteOptions;

/** What {@link keepOlderTurnsInPlace} needs from the view being compacted. */
export interface OlderFormInput {
  older: OlderTurns;
  /** The limit less the fixed part: room for the current turn and the history. */
  room: number;
  /** Tokens of the summary head, 0 when none is given. */
  headTokens: number;
  /** The head is durable evidence alone (see `AllocateHistoryInput.evidenceOnly`). */
  evidenceOnly?: boolean | undefined;
  options: OlderFormOptions;
  estimator: Estimator;
}

/**
 * Current results that fit whole but would push older turns out of the view are
 * shown in the form they keep once their turn ends (see {@link inOlderForm}) when
 * that keeps more older turns, counted as {@link chooseOlderTurns} keeps them.
 * Shown whole, they would hold that room for this call only: on the next call they
 * are compacted anyway, the dropped turns come back, and the head of the view moves
 * twice (a provider's prefix cache is lost both times). Not while older results wait
 * for their summary ({@link EVERY_TOOL_RESULT}): a context manager summarizes the
 * turns the view drops, and they do not come back. Undefined when the older form
 * keeps no more older turns than `fitted` (the results whole).
 *
 * @example
 * ```ts
 * fitted = keepOlderTurnsInPlace({ older, room: limit - fixed.tokens, headTokens, options, estimator }, fitted) ?? fitted;
 * ```
 */
export function keepOlderTurnsInPlace(input: OlderFormInput, fitted: CurrentTurnFit): CurrentTurnFit | undefined {
  const { older, room, headTokens, evidenceOnly, options, estimator } = input;
  if (options.keepRecentToolResults === EVERY_TOOL_RESULT || fitted.compacted + fitted.narrowed > 0) return undefined;
  // Older turns kept beside a current turn of `tokens`, allocated as placeHistory will allocate them.
  const beside = (tokens: number) => allocateHistory({ older, room: room - tokens, summaryTokens: headTokens, evidenceOnly, options, estimator });
  const whole = beside(fitted.turn.tokens);
  if (whole.all) return undefined;
  // The most the older form could free: every result over the limit cut to it.
  const most = overLimitTokens(fitted.turn, options.maxToolResultTokens, estimator);
  if (most === 0 || beside(fitted.turn.tokens - most).kept <= whole.kept) return undefined;
  const olderForm = inOlderForm(fitted.turn, options, estimator);
  return olderForm.compacted === 0 || beside(olderForm.turn.tokens).kept <= whole.kept ? undefined : olderForm;
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
  return { turn: { ...turn, messages, tokens: estimator.estimateMessages(messages) }, compacted, narrowed: 0 };
}

/** Tokens of the turn's tool results past `limit` each: what compacting them to it frees at most. */
function overLimitTokens(turn: PreparedTurn, limit: number, estimator: Estimator): number {
  let over = 0;
  for (const message of turn.messages) if (ToolMessage.isInstance(message)) over += Math.max(0, estimator.estimateText(splitContent(message.content).text) - limit);
  return over;
}
