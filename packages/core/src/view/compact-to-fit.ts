import { microCompact } from "../compact/index.js";
import { ContextBudgetError } from "../errors.js";
import type { Estimator } from "../estimate.js";
import type { FixedPart } from "./charge-fixed-part.js";
import { HISTORY_LABEL, labelMessage } from "./head.js";
import type { OlderFit, OlderTurns } from "./older-turns.js";
import { currentTurnFloor, fitCurrentTurn, type CurrentTurnFit } from "./current-turn-room.js";
import { fitLongTurn } from "./long-turn.js";
import { keepOlderTurnsInPlace } from "./older-form.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { keptInTurn, type ClearStepState } from "./clear-step.js";
import type { CurrentTurnReport, ViewOptions } from "./types.js";
import type { NoteOptions } from "./options.js";

/** Room left per tool result for its message framing (overhead, name, tool_call_id). */
const RESULT_FRAMING_TOKENS = 24;

/** Most of the current turn's room the turn before it may keep when the current results would take it all. */
const PREVIOUS_TURN_SHARE = 0.15;
/** Most of the current turn's room a summary (durable evidence) may keep when the current results would take it all. */
const SUMMARY_SHARE = 0.25;

type CompactOptions = Pick<
  Required<ViewOptions>,
  "keepRecentToolResults" | "maxToolResultTokens" | "clearStep" | "excerptBudget" | "dropStep" | "maxOlderMessageTokens" | "maxToolCallProseTokens" | "recallBudget"
> & NoteOptions;

interface CompactorState {
  results: ClearStepState;
  cleared: number;
  compacted: number;
  narrowed: number;
}

/**
 * Micro-compaction across the turns of one view: the newest
 * `keepRecentToolResults` results are kept (compacted to `maxToolResultTokens`
 * when larger) and older ones cleared in steps of about `clearStep` results (see
 * {@link keptInTurn}). Turns are given newest first, so the newest results are the
 * ones kept. Counts what it cleared and compacted.
 */
export class ToolResultCompactor {
  private state: CompactorState;

  constructor(
    private readonly options: CompactOptions,
    private readonly estimator: Estimator,
  ) {
    this.state = { results: { seen: 0, clearing: false }, cleared: 0, compacted: 0, narrowed: 0 };
  }

  /** Tool results cleared so far. */
  get cleared(): number {
    return this.state.cleared;
  }

  /** Kept tool results compacted so far. */
  get compacted(): number {
    return this.state.compacted;
  }

  /** Results of the current turn shown as their totals, with a notice to narrow the query. */
  get narrowed(): number {
    return this.state.narrowed;
  }

  /**
   * Record the current turn, fitted by {@link fitCurrentTurn}: its results are the
   * newest, so they use up the results kept whole before older ones are cleared.
   */
  countCurrentTurn(results: number, fitted: CurrentTurnFit): void {
    // They are the newest results: they take the first places kept whole, before older ones clear in steps.
    this.state.results.seen += results;
    this.state.compacted += fitted.compacted;
    this.state.narrowed += fitted.narrowed;
  }

  /** Replace the counts of one fit of the current turn by those of another (that cleared `cleared` of its results). */
  recount(before: CurrentTurnFit, after: CurrentTurnFit, cleared = 0): void {
    this.state.compacted += after.compacted - before.compacted;
    this.state.narrowed += after.narrowed - before.narrowed;
    this.state.cleared += cleared;
  }

  /**
   * An older turn compacted again so that it fits `maxTokens`, or undefined when it
   * cannot: its results share what its other messages leave. Counts move from
   * compacted to cleared for results that had to be cleared.
   */
  shrink(turn: PreparedTurn, maxTokens: number): PreparedTurn | undefined {
    if (turn.tokens <= maxTokens) return turn;
    if (turn.toolResults === 0) return undefined;
    let other = 0;
    for (const message of turn.messages) if (message.type !== "tool") other += this.estimator.estimateMessage(message);
    const perResult = Math.floor((maxTokens - other) / turn.toolResults) - RESULT_FRAMING_TOKENS;
    if (perResult < 50) return undefined;
    const result = microCompact(turn.messages, { keepRecentToolResults: turn.toolResults, maxToolResultTokens: perResult, estimator: this.estimator, recallToolName: this.options.recallToolName });
    const tokens = this.estimator.estimateMessages(result.messages);
    if (tokens > maxTokens) return undefined;
    this.state.cleared += result.cleared;
    this.state.compacted += result.compacted - result.cleared;
    return { ...turn, messages: result.messages, tokens };
  }

  /** The turn with its tool results compacted; the same object when nothing changed. */
  compact(turn: PreparedTurn): PreparedTurn {
    const { maxToolResultTokens } = this.options;
    const keepRecent = keptInTurn(turn.messages, this.state.results, this.options.keepRecentToolResults, this.options.clearStep);
    const result = microCompact(turn.messages, { keepRecentToolResults: keepRecent, maxToolResultTokens, estimator: this.estimator, recallToolName: this.options.recallToolName });
    this.state.cleared += result.cleared;
    this.state.compacted += result.compacted;
    if (result.cleared === 0 && result.compacted === 0) return turn;
    return { ...turn, messages: result.messages, tokens: this.estimator.estimateMessages(result.messages) };
  }
}

/** What {@link compactToFit} needs. */
export interface CompactToFitInput {
  fixed: FixedPart;
  limit: number;
  /** The prepared current turn, not yet compacted. */
  current: PreparedTurn;
  /** Estimated tokens of the summary head, when one is given. */
  headTokens: number;
  older: OlderTurns;
  compactor: ToolResultCompactor;
  options: CompactOptions;
  estimator: Estimator;
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
  let currentTurn: CurrentTurnReport = { exchanges, kept: exchanges, compacted: 0, cleared: 0, excerpted: 0 };
  let labels = 0;
  const fit = older.fitting(limit - fixed.tokens - current.tokens - headTokens);
  if (!fit.all || fixed.tokens + current.tokens + headTokens > limit) {
    older.compactWith((turn) => compactor.compact(turn));
    const room = limit - fixed.tokens;
    // A turn whose messages alone exceed the room is long: compacting its results cannot fit it.
    const surelyLong = exchanges > 1 && currentTurnFloor(current, input.estimator) > room;
    let fitted: CurrentTurnFit = surelyLong ? { turn: current, compacted: 0, narrowed: 0 } : fitCurrentTurn(current, room, input.estimator, input.options.recallToolName);
    compactor.countCurrentTurn(current.toolResults, fitted);
    if (!surelyLong) {
      fitted = leaveRoomForHistory(input, room, fitted);
      fitted = keepOlderTurnsInPlace({ older, compactor, room, headTokens, options: input.options, estimator: input.estimator }, fitted);
    }
    // A long turn: only the request and the newest exchange are mandatory; older exchanges
    // degrade in steps. Also when sharing the room narrowed results to their totals: the
    // newest exchange then keeps its results, which the next call is decided from.
    const over = fixed.tokens + fitted.turn.tokens > limit;
    const long = over || (exchanges > 1 && fitted.narrowed > 0) ? fitLongTurn({ current: input.current, room, options: input.options, estimator: input.estimator }) : undefined;
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
    }
    current = fitted.turn;
  }
  return { current, fit, currentTurn, labels };
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
