import { microCompact } from "../compact/index.js";
import { ContextBudgetError } from "../errors.js";
import type { Estimator } from "../estimate.js";
import type { FixedPart } from "./charge-fixed-part.js";
import type { OlderFit, OlderTurns } from "./older-turns.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { keptInTurn, type ClearStepState } from "./clear-step.js";
import type { ViewOptions } from "./types.js";

/** Room left per tool result for its message framing (overhead, name, tool_call_id). */
const RESULT_FRAMING_TOKENS = 24;

type CompactOptions = Pick<Required<ViewOptions>, "keepRecentToolResults" | "maxToolResultTokens" | "clearStep">;

interface CompactorState {
  results: ClearStepState;
  cleared: number;
  compacted: number;
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
    this.state = { results: { seen: 0, clearing: false }, cleared: 0, compacted: 0 };
  }

  /** Tool results cleared so far. */
  get cleared(): number {
    return this.state.cleared;
  }

  /** Kept tool results compacted so far. */
  get compacted(): number {
    return this.state.compacted;
  }

  /** The turn with its tool results compacted; the same object when nothing changed. */
  compact(turn: PreparedTurn, fallbackResultTokens = this.options.maxToolResultTokens): PreparedTurn {
    const { maxToolResultTokens } = this.options;
    const keepRecent = keptInTurn(turn.messages, this.state.results, this.options.keepRecentToolResults, this.options.clearStep);
    const result = microCompact(turn.messages, { keepRecent, maxResultTokens: maxToolResultTokens, fallbackResultTokens, estimator: this.estimator });
    this.state.cleared += result.cleared;
    this.state.compacted += result.compacted;
    if (result.cleared === 0 && result.compacted === 0) return turn;
    return { ...turn, messages: result.messages, tokens: this.estimator.estimateMessages(result.messages) };
  }

  /** A copy of the counts, to undo a try with {@link ToolResultCompactor.restore}. */
  save(): CompactorState {
    return { ...this.state, results: { ...this.state.results } };
  }

  restore(state: CompactorState): void {
    this.state = { ...state, results: { ...state.results } };
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
 * whole history fits. Otherwise micro-compaction starts, on the current turn first
 * (its results may use the room the current turn has, so the results the model
 * answers from are not cleared while there is room), then on older turns as they
 * are reached. Throws a {@link ContextBudgetError} when the fixed part and the
 * current turn do not fit the limit.
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
    const uncompacted = current;
    const before = compactor.save();
    current = compactor.compact(uncompacted, currentResultRoom(uncompacted, limit - fixed.tokens, input.options, input.estimator));
    if (fixed.tokens + current.tokens > limit) {
      compactor.restore(before);
      current = compactor.compact(uncompacted);
    }
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

/** The room each kept result of the current turn may use: the turn's room shared evenly. */
function currentResultRoom(turn: PreparedTurn, room: number, options: CompactOptions, estimator: Estimator): number {
  let other = 0;
  for (const message of turn.messages) if (message.type !== "tool") other += estimator.estimateMessage(message);
  const kept = Math.max(1, Math.min(turn.toolResults, options.keepRecentToolResults));
  return Math.max(options.maxToolResultTokens, Math.floor((room - other) / kept) - RESULT_FRAMING_TOKENS);
}
