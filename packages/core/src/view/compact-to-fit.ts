import { microCompact } from "../compact/index.js";
import { ContextBudgetError } from "../errors.js";
import type { Estimator } from "../estimate.js";
import type { FixedPart } from "./charge-fixed-part.js";
import type { OlderFit, OlderTurns } from "./older-turns.js";
import { fitCurrentTurn, type CurrentTurnFit } from "./current-turn-room.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { ViewOptions } from "./types.js";

type CompactOptions = Pick<Required<ViewOptions>, "keepRecentToolResults" | "maxToolResultTokens">;

interface CompactorState {
  keepLeft: number;
  cleared: number;
  compacted: number;
  narrowed: number;
}

/**
 * Micro-compaction across the turns of one view: the newest
 * `keepRecentToolResults` results are kept (compacted to `maxToolResultTokens`
 * when larger) and older ones cleared. Turns are given newest first, so the newest
 * results are the ones kept. Counts what it cleared and compacted.
 */
export class ToolResultCompactor {
  private state: CompactorState;

  constructor(
    private readonly options: CompactOptions,
    private readonly estimator: Estimator,
  ) {
    this.state = { keepLeft: options.keepRecentToolResults, cleared: 0, compacted: 0, narrowed: 0 };
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
    this.state.keepLeft = Math.max(0, this.state.keepLeft - results);
    this.state.compacted += fitted.compacted;
    this.state.narrowed += fitted.narrowed;
  }

  /** The turn with its tool results compacted; the same object when nothing changed. */
  compact(turn: PreparedTurn): PreparedTurn {
    const { maxToolResultTokens } = this.options;
    const result = microCompact(turn.messages, { keepRecent: this.state.keepLeft, maxResultTokens: maxToolResultTokens, estimator: this.estimator });
    this.state.keepLeft = Math.max(0, this.state.keepLeft - turn.toolResults);
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
}

/**
 * Compact to fit: stage 4 of {@link buildContext}. Nothing is compacted while the
 * whole history fits. Otherwise the current turn's results share the room left
 * after the fixed part, the request and the calls, in proportion to their size,
 * and are never cleared (see {@link fitCurrentTurn}); then micro-compaction runs
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
  const fit = older.fitting(limit - fixed.tokens - current.tokens - headTokens);
  if (!fit.all || fixed.tokens + current.tokens + headTokens > limit) {
    older.compactWith((turn) => compactor.compact(turn));
    const fitted = fitCurrentTurn(current, limit - fixed.tokens, input.estimator);
    compactor.countCurrentTurn(current.toolResults, fitted);
    current = fitted.turn;
  }
  if (fixed.tokens + current.tokens > limit) {
    throw new ContextBudgetError({
      limit,
      required: fixed.tokens + current.tokens,
      parts: { system: fixed.systemTokens, memories: fixed.memoryTokens, tools: fixed.toolTokens, current: current.tokens },
    });
  }
  return { current, fit };
}

