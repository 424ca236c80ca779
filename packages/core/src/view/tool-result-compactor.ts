import { microCompact } from "../compact/index.js";
import type { Estimator } from "../estimate.js";
import { keptInTurn, type ClearStepState } from "./clear-step.js";
import type { CurrentTurnFit } from "./current-turn-room.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { ViewOptions } from "./types.js";
import type { NoteOptions } from "./options.js";

/** Room left per tool result for its message framing (overhead, name, tool_call_id). */
const RESULT_FRAMING_TOKENS = 24;

export type CompactOptions = Pick<
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
