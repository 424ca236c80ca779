import type { BaseMessage } from "@langchain/core/messages";
import { ContextBudgetError } from "../errors.js";
import { copyMessage } from "../messages.js";
import type { Estimator } from "../estimate.js";
import type { FixedPart } from "./charge-fixed-part.js";
import { HISTORY_LABEL, labelMessage } from "./head.js";
import type { OlderFit, OlderTurns } from "./older-turns.js";
import { currentTurnFloor, fitCurrentTurn, type CurrentTurnFit } from "./current-turn-room.js";
import { fitLongTurn } from "./long-turn.js";
import { keepOlderTurnsInPlace } from "./older-form.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { CurrentTurnReport, TurnSummary } from "./types.js";

/** Most of the current turn's room the turn before it may keep when the current results would take it all. */
const PREVIOUS_TURN_SHARE = 0.15;
/** Most of the current turn's room a summary (durable evidence) may keep when the current results would take it all. */
const SUMMARY_SHARE = 0.25;

export { ToolResultCompactor } from "./tool-result-compactor.js";
import type { CompactOptions, ToolResultCompactor } from "./tool-result-compactor.js";

/** What {@link compactToFit} needs. */
export interface CompactToFitInput {
  fixed: FixedPart;
  limit: number;
  /** The prepared current turn, not yet compacted. */
  current: PreparedTurn;
  /** Estimated tokens of the summary head, when one is given. */
  headTokens: number;
  /** The head is durable evidence alone (see `AllocateHistoryInput.evidenceOnly`). */
  evidenceOnly?: boolean | undefined;
  older: OlderTurns;
  compactor: ToolResultCompactor;
  options: CompactOptions;
  estimator: Estimator;
  /** The manager's summary of the current turn's first exchanges, used when the turn is long. */
  turnSummary?: TurnSummary | undefined;
}

/** The current turn as it enters the view, and how many older turns fit before compaction. */
export interface CompactedToFit {
  current: PreparedTurn;
  /** Older turns that fit the room left, measured before compaction started. */
  fit: OlderFit;
  /** How the current turn's exchanges entered the view. */
  currentTurn: CurrentTurnReport;
  /** Labels the current turn gained (or, negative, lost with excerpted exchanges) after it was prepared. */
  labels: number;
  /** Messages of the current turn shown as marked excerpts (the newest assistant message's prose, bounded to fit). */
  excerpted: number;
}

/**
 * Compact to fit: stage 4 of {@link buildContext}. Nothing is compacted while the
 * whole history fits. Otherwise the current turn's results share the room left
 * after the fixed part, the request and the calls, in proportion to their size,
 * and are never cleared (see {@link fitCurrentTurn}); results that would fit
 * whole may take the form they keep once their turn ends when that keeps older
 * turns in the view (see {@link keepOlderTurnsInPlace}); then micro-compaction runs
 * on older turns as they are reached. Throws a {@link ContextBudgetError} when the
 * fixed part and the current turn do not fit the limit.
 *
 * @example
 * ```ts
 * const { current, fit } = compactToFit({ fixed, limit, current: prepared, headTokens, older, compactor, options, estimator });
 * ```
 */
export function compactToFit(input: CompactToFitInput): CompactedToFit {
  const { fixed, limit, headTokens, older, compactor } = input;
  let current = input.current;
  const exchanges = countExchanges(current);
  let currentTurn: CurrentTurnReport = { exchanges, kept: exchanges, compacted: 0, cleared: 0, excerpted: 0, summarized: 0 };
  let labels = 0;
  let excerpted = 0;
  const fit = older.fitting(limit - fixed.tokens - current.tokens - headTokens);
  if (fixed.tokens + current.tokens > limit) refuseEarly(input);
  if (!fit.all || fixed.tokens + current.tokens + headTokens > limit) {
    older.compactWith((turn) => compactor.compact(turn));
    const room = limit - fixed.tokens;
    // A turn whose messages alone exceed the room is long: compacting its results cannot fit it.
    const surelyLong = exchanges > 1 && currentTurnFloor(current, input.estimator) > room;
    let fitted: CurrentTurnFit = surelyLong ? { turn: current, compacted: 0, narrowed: 0 } : fitCurrentTurn(current, room, input.estimator, input.options.recallToolName);
    compactor.countCurrentTurn(current.toolResults, fitted);
    if (!surelyLong) {
      fitted = leaveRoomForHistory(input, room, fitted);
      fitted = keepOlderTurnsInPlace({ older, compactor, room, headTokens, evidenceOnly: input.evidenceOnly, options: input.options, estimator: input.estimator }, fitted);
    }
    // A long turn: only the request and the newest exchange are mandatory; older exchanges
    // degrade in steps. Also when sharing the room narrowed results to their totals: the
    // newest exchange then keeps its results, which the next call is decided from.
    const over = fixed.tokens + fitted.turn.tokens > limit;
    const long = over || (exchanges > 1 && fitted.narrowed > 0) ? fitLongTurn({ current: input.current, room, options: input.options, estimator: input.estimator, summary: input.turnSummary }) : undefined;
    if (long !== undefined && (over || ("fit" in long && long.fit.narrowed < fitted.narrowed))) {
      if (!("fit" in long)) {
        const mandatory = long.request + long.newestExchange;
        throw new ContextBudgetError({
          limit,
          required: fixed.tokens + mandatory,
          parts: { system: fixed.systemTokens, memories: fixed.memoryTokens, tools: fixed.toolTokens, current: mandatory, request: long.request, newestExchange: long.newestExchange },
        });
      }
      compactor.recount(fitted, long.fit, long.cleared);
      fitted = long.fit;
      currentTurn = long.report;
      labels = long.labels;
      excerpted = long.excerpted;
    }
    current = fitted.turn;
  }
  return { current, fit, currentTurn, labels, excerpted };
}

/**
 * Throws the {@link ContextBudgetError} at once when even the least the mandatory part
 * can take does not fit: the request, and the newest exchange with its assistant
 * message's text gone and its results' text gone (the call and its arguments, every
 * result's framing). Fitting ten thousand parallel results one by one first would take
 * seconds to reach the same error.
 */
function refuseEarly({ fixed, limit, current, estimator }: CompactToFitInput): void {
  const messages = current.messages;
  let first = messages.findIndex((m) => m.type === "ai");
  if (first < 0) first = messages.length;
  let newest = messages.length - 1;
  while (newest >= first && messages[newest]?.type !== "ai") newest--;
  const head = messages.slice(0, first);
  // The newest exchange as small as any form of it can be, estimated as one list (whatever the estimator sums).
  const emptied = (m: BaseMessage): BaseMessage => (m.type === "tool" ? copyMessage(m, "tool", { content: "" }) : m);
  const exchange = newest < first ? [] : [copyMessage(messages[newest] as BaseMessage, "ai", { content: "" }), ...messages.slice(newest + 1).map(emptied)];
  const request = estimator.estimateMessages(head);
  const floor = estimator.estimateMessages([...head, ...exchange]);
  if (fixed.tokens + floor <= limit) return;
  throw new ContextBudgetError({
    limit,
    required: fixed.tokens + floor,
    parts: { system: fixed.systemTokens, memories: fixed.memoryTokens, tools: fixed.toolTokens, current: floor, request, newestExchange: floor - request },
  });
}

/** Exchanges after the request: assistant messages (a tool-call message brings all its results). */
function countExchanges(turn: PreparedTurn): number {
  let exchanges = 0;
  for (const message of turn.messages) if (message.type === "ai") exchanges++;
  return exchanges;
}


/**
 * When the current turn's results take the whole room, everything before them
 * would go. The summary (when given and at most a quarter of the room) and the
 * turn before them (kept in its usual compacted form when that is at most 15% of the room, compacted further to that otherwise) keep their
 * room instead, as long as the results still need no narrowing: the model keeps
 * the thread of the conversation and still answers from every row's reference.
 */
function leaveRoomForHistory(input: CompactToFitInput, room: number, fitted: CurrentTurnFit): CurrentTurnFit {
  const { older, compactor, headTokens, estimator } = input;
  if (fitted.compacted + fitted.narrowed === 0 || older.fitting(room - fitted.turn.tokens - headTokens).fit > 0) return fitted;
  const kept = keepHistory(input, room, fitted);
  if (kept !== undefined) return kept;
  const head = headTokens <= Math.floor(room * SUMMARY_SHARE) ? headTokens : 0;
  const newest = older.shrinkNewest((turn) => compactor.shrink(turn, Math.floor(room * PREVIOUS_TURN_SHARE)));
  // Older turns beyond the newest go: without a summary, their excerpts keep room too (see chooseOlderTurns).
  const excerpts = newest !== undefined && headTokens === 0 && older.hasMoreThanNewest() && input.options.excerptBudget > 0 ? input.options.excerptBudget + estimator.estimateMessage(labelMessage(HISTORY_LABEL)) : 0;
  const reserve = head + (newest?.tokens ?? 0) + excerpts;
  if (reserve === 0) return fitted;
  const again = fitCurrentTurn(input.current, room - reserve, estimator, input.options.recallToolName);
  if (input.fixed.tokens + again.turn.tokens > input.limit || again.narrowed > fitted.narrowed) return fitted;
  compactor.recount(fitted, again);
  return again;
}

/** Most of the room the history (summary and older turns) keeps beside large current results. */
const HISTORY_SHARE = 0.5;

/**
 * The current results fitted beside the history the next call will show — the
 * summary and the older turns (already compacted) that fit half the room — when
 * that narrows no more of them. The history then stays where it was on the previous
 * call and stays on the next: the prompt's prefix, and a provider's cache of it, hold.
 */
function keepHistory(input: CompactToFitInput, room: number, fitted: CurrentTurnFit): CurrentTurnFit | undefined {
  const { older, headTokens } = input;
  const historyRoom = Math.floor(room * HISTORY_SHARE) - headTokens;
  if (historyRoom <= 0) return undefined;
  const fit = older.fitting(historyRoom);
  if (fit.fit === 0 || !fit.all) return undefined;
  let reserve = headTokens;
  for (let j = 0; j < fit.fit; j++) reserve += older.prepared[j]!.tokens;
  const again = fitCurrentTurn(input.current, room - reserve, input.estimator, input.options.recallToolName);
  if (input.fixed.tokens + again.turn.tokens > input.limit || again.narrowed > fitted.narrowed) return undefined;
  input.compactor.recount(fitted, again);
  return again;
}
