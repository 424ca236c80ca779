import type { BaseMessage } from "@langchain/core/messages";
import { ContextBudgetError } from "../errors.js";
import { copyMessage } from "../messages.js";
import type { Estimator } from "../estimate.js";
import type { FixedPart } from "./charge-fixed-part.js";
import { HISTORY_LABEL, labelMessage } from "./head.js";
import type { HistoryAllocation, HistoryRoom } from "./allocate-history.js";
import { currentTurnFloor, fitCurrentTurn, type CurrentTurnFit } from "./current-turn-room.js";
import { fitLongTurn } from "./long-turn.js";
import { keepOlderTurnsInPlace } from "./older-form.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { CurrentTurnReport, TurnSummary } from "./types.js";

/** Most of the current turn's room the turn before it may keep when the current results would take it all. */
const PREVIOUS_TURN_SHARE = 0.15;
/** Most of the current turn's room a summary (durable evidence) may keep when the current results would take it all. */
const SUMMARY_SHARE = 0.25;
/** Most of the room the history (summary and older turns) keeps beside large current results. */
const HISTORY_SHARE = 0.5;

export { ToolResultCompactor } from "./tool-result-compactor.js";
import type { CompactOptions, ToolResultCompactor } from "./tool-result-compactor.js";

/** What {@link compactToFit} needs. */
export interface CompactToFitInput {
  fixed: FixedPart;
  limit: number;
  /** The prepared current turn, not yet compacted. */
  current: PreparedTurn;
  /** The history's room of the view: its older turns, the summary head's tokens (`claims.summaryTokens`) and their allocation. */
  history: HistoryRoom;
  compactor: ToolResultCompactor;
  options: CompactOptions;
  estimator: Estimator;
  /** The manager's summary of the current turn's first exchanges, used when the turn is long. */
  turnSummary?: TurnSummary | undefined;
}

/** The current turn as it enters the view, and the history's allocation beside it. */
export interface CompactedToFit {
  current: PreparedTurn;
  /** The history's room beside `current`, allocated (see {@link HistoryRoom}): the view is placed by it. */
  allocation: HistoryAllocation;
  /** How the current turn's exchanges entered the view. */
  currentTurn: CurrentTurnReport;
  /** Labels the current turn gained (or, negative, lost with excerpted exchanges) after it was prepared. */
  labels: number;
  /** Messages of the current turn shown as marked excerpts (the newest assistant message's prose, bounded to fit). */
  excerpted: number;
}

/**
 * Compact to fit: stage 4 of {@link buildContext}. Nothing is compacted while the
 * whole history fits. Otherwise older turns are micro-compacted as they are reached,
 * and the current turn takes one of its forms (see {@link chooseCurrentForm}): its
 * results sharing the room by size and never cleared ({@link fitCurrentTurn}), beside
 * the history the next call shows, in the form they keep once the turn ends, or — a
 * long turn — with its older exchanges degraded in steps ({@link fitLongTurn}). The
 * counts are read off the form chosen. Throws a {@link ContextBudgetError} when the
 * fixed part and the current turn do not fit the limit in any form.
 *
 * @example
 * ```ts
 * const { current, allocation } = compactToFit({ fixed, limit, current: prepared, history, compactor, options, estimator });
 * ```
 */
export function compactToFit(input: CompactToFitInput): CompactedToFit {
  const { fixed, limit, history, compactor } = input;
  const { older } = history;
  const headTokens = history.claims.summaryTokens;
  const exchanges = countExchanges(input.current);
  const room = limit - fixed.tokens;
  const fit = older.fitting(room - input.current.tokens - headTokens);
  if (fixed.tokens + input.current.tokens > limit) refuseEarly(input);
  if (fit.all && fixed.tokens + input.current.tokens + headTokens <= limit) {
    const allocation = history.at(room - input.current.tokens);
    return { current: input.current, allocation, currentTurn: everyExchangeKept(exchanges), labels: 0, excerpted: 0 };
  }
  older.compactWith((turn) => compactor.compact(turn));
  // The current turn's results are the newest: they take the first places kept whole, before older ones clear in steps.
  compactor.seeNewestResults(input.current.toolResults);
  const chosen = chooseCurrentForm(input, exchanges);
  compactor.countCurrentTurn(chosen.fit, chosen.cleared);
  const current = chosen.fit.turn;
  return { current, allocation: history.at(room - current.tokens), currentTurn: chosen.report, labels: chosen.labels, excerpted: chosen.excerpted };
}

/** The current turn in the form chosen for the view, and what that form did. */
interface CurrentForm {
  fit: CurrentTurnFit;
  /** Results cleared to markers (older exchanges of a long turn). */
  cleared: number;
  report: CurrentTurnReport;
  labels: number;
  excerpted: number;
}

/**
 * The current turn's form, chosen once among its candidates, each fitted once:
 *
 * 1. **all the room**: its results share the room left after the fixed part
 *    ({@link fitCurrentTurn}); a turn whose messages alone exceed the room is long,
 *    and skips to 4;
 * 2. when that compacts results and leaves no older turn room: **beside the history**
 *    ({@link besideHistory}), taken when it fits and narrows no more results;
 * 3. when it compacts nothing: **in its older form** ({@link keepOlderTurnsInPlace}),
 *    taken when that keeps more older turns;
 * 4. when the form so far is over the limit, or narrows results of a turn of several
 *    exchanges: **as a long turn** ({@link fitLongTurn}), taken when over or when it
 *    narrows fewer results.
 *
 * A result narrowed to its totals loses every row the model would read, so fewer
 * narrowed results is worth more than history; among equals, history is worth more.
 */
function chooseCurrentForm(input: CompactToFitInput, exchanges: number): CurrentForm {
  const { fixed, limit, estimator, options } = input;
  const room = limit - fixed.tokens;
  // A turn whose messages alone exceed the room is long: compacting its results cannot fit it.
  const surelyLong = exchanges > 1 && currentTurnFloor(input.current, estimator) > room;
  let form: CurrentTurnFit = { turn: input.current, compacted: 0, narrowed: 0 };
  if (!surelyLong) {
    form = fitCurrentTurn(input.current, room, estimator, options.recallToolName);
    const other = form.compacted + form.narrowed > 0 ? besideHistory(input, room, form) : keepOlderTurnsInPlace({ ...input, room }, form);
    form = other ?? form;
  }
  const shown = (fit: CurrentTurnFit): CurrentForm => ({ fit, cleared: 0, report: everyExchangeKept(exchanges), labels: 0, excerpted: 0 });
  // A long turn: only the request and the newest exchange are mandatory; older exchanges
  // degrade in steps. Also when sharing the room narrowed results to their totals: the
  // newest exchange then keeps its results, which the next call is decided from.
  const over = fixed.tokens + form.turn.tokens > limit;
  if (!over && !(exchanges > 1 && form.narrowed > 0)) return shown(form);
  const long = fitLongTurn({ current: input.current, room, options, estimator, summary: input.turnSummary });
  if (!over && !("fit" in long && long.fit.narrowed < form.narrowed)) return shown(form);
  if (!("fit" in long)) throw mandatoryPartError(fixed, limit, long.request, long.newestExchange);
  return { fit: long.fit, cleared: long.cleared, report: long.report, labels: long.labels, excerpted: long.excerpted };
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
  if (fixed.tokens + floor > limit) throw mandatoryPartError(fixed, limit, request, floor - request);
}

/** The budget error for a mandatory part (the request and the newest exchange, at their least) that does not fit beside the fixed part. */
function mandatoryPartError(fixed: FixedPart, limit: number, request: number, newestExchange: number): ContextBudgetError {
  const current = request + newestExchange;
  return new ContextBudgetError({
    limit,
    required: fixed.tokens + current,
    parts: { system: fixed.systemTokens, memories: fixed.memoryTokens, tools: fixed.toolTokens, current, request, newestExchange },
  });
}

/** Exchanges after the request: assistant messages (a tool-call message brings all its results). */
function countExchanges(turn: PreparedTurn): number {
  let exchanges = 0;
  for (const message of turn.messages) if (message.type === "ai") exchanges++;
  return exchanges;
}

/** How a current turn of `exchanges` shown as prepared entered the view: every exchange kept. */
function everyExchangeKept(exchanges: number): CurrentTurnReport {
  return { exchanges, kept: exchanges, compacted: 0, cleared: 0, excerpted: 0, summarized: 0 };
}


/**
 * The current results fitted beside the history, when they take the whole room and no
 * older turn fits beside them — undefined when that narrows more results or does not fit:
 *
 * 1. beside the history the next call will show: the summary and the older turns
 *    (already compacted) when all of them fit {@link HISTORY_SHARE} of the room. The
 *    history then stays where it was on the previous call and stays on the next: the
 *    prompt's prefix, and a provider's cache of it, hold;
 * 2. otherwise beside the summary (when at most {@link SUMMARY_SHARE} of the room), the
 *    turn before them (kept in its compacted form when at most {@link PREVIOUS_TURN_SHARE}
 *    of the room, compacted further to that otherwise) and, without a summary, the
 *    excerpts of the turns before it: the model keeps the thread of the conversation
 *    and still answers from every row's reference.
 */
function besideHistory(input: CompactToFitInput, room: number, fitted: CurrentTurnFit): CurrentTurnFit | undefined {
  const { history, compactor, estimator } = input;
  const { older } = history;
  const headTokens = history.claims.summaryTokens;
  if (older.fitting(room - fitted.turn.tokens - headTokens).fit > 0) return undefined;
  const besides = (reserve: number) => {
    const again = fitCurrentTurn(input.current, room - reserve, estimator, input.options.recallToolName);
    return input.fixed.tokens + again.turn.tokens > input.limit || again.narrowed > fitted.narrowed ? undefined : again;
  };
  const historyRoom = Math.floor(room * HISTORY_SHARE) - headTokens;
  const whole = historyRoom > 0 ? older.fitting(historyRoom) : undefined;
  if (whole !== undefined && whole.fit > 0 && whole.all) {
    let reserve = headTokens;
    for (let j = 0; j < whole.fit; j++) reserve += older.prepared[j]!.tokens;
    const kept = besides(reserve);
    if (kept !== undefined) return kept;
  }
  const head = headTokens <= Math.floor(room * SUMMARY_SHARE) ? headTokens : 0;
  // The turn before, in the form it takes beside them: shown so only when these results are.
  const newest = older.newest === undefined ? undefined : compactor.shrink(older.newest, Math.floor(room * PREVIOUS_TURN_SHARE));
  // Older turns beyond the newest go: without a summary, their excerpts keep room too (see chooseOlderTurns).
  const excerpts = newest !== undefined && headTokens === 0 && older.hasMoreThanNewest() && input.options.excerptBudget > 0 ? input.options.excerptBudget + estimator.estimateMessage(labelMessage(HISTORY_LABEL)) : 0;
  const reserve = head + (newest?.tokens ?? 0) + excerpts;
  const beside = reserve === 0 ? undefined : besides(reserve);
  if (beside !== undefined && newest !== undefined) older.replaceNewest(newest);
  return beside;
}
