import { compactionMarkerOf, microCompact } from "../compact/index.js";
import type { Estimator } from "../estimate.js";
import { keptInTurn, type ClearStepState } from "./clear-step.js";
import { withMessages, type PreparedTurn } from "./prepare-turn.js";
import type { ViewOptions } from "./types.js";
import type { NoteOptions } from "./options.js";

/** Room left per tool result for its message framing (overhead, name, tool_call_id). */
const RESULT_FRAMING_TOKENS = 24;

export type CompactOptions = Pick<
  Required<ViewOptions>,
  | "keepRecentToolResults"
  | "maxToolResultTokens"
  | "clearStep"
  | "excerptBudget"
  | "dropStep"
  | "maxOlderMessageTokens"
  | "maxToolCallProseTokens"
  | "recallBudget"
  | "excludeTools"
> &
  NoteOptions;

/**
 * Tool results of older turns shown in a view that the view cleared or compacted: each
 * result of `shown[j]` that differs from `prepared[j]` (the same turn as prepared; forms
 * keep positions, and unchanged messages are the same objects, as `microCompact` returns
 * them), once, by the form it is shown in — however many passes it took (compacted, then
 * shrunk or cleared).
 *
 * @example
 * ```ts
 * const { cleared, compacted } = shownResultCounts(shownOlderTurns, olderTurns.read);
 * ```
 */
export function shownResultCounts(shown: readonly PreparedTurn[], prepared: readonly PreparedTurn[]): { cleared: number; compacted: number } {
  let cleared = 0;
  let compacted = 0;
  shown.forEach((turn, j) => {
    const given = prepared[j];
    if (given === undefined || given === turn) return;
    const before = given.messages.filter((m) => m.type === "tool");
    const after = turn.messages.filter((m) => m.type === "tool");
    after.forEach((message, i) => {
      if (message === before[i]) return;
      const form = compactionMarkerOf(message)?.form;
      if (form === "cleared") cleared++;
      else if (form !== undefined) compacted++;
    });
  });
  return { cleared, compacted };
}

/**
 * Micro-compaction of a view's older turns: the newest `keepRecentToolResults` results
 * are kept (compacted to `maxToolResultTokens` when larger) and older ones cleared in
 * steps of about `clearStep` results (see {@link keptInTurn}). Turns are given newest
 * first with one running count (`OlderTurns` holds it), so the newest results are the
 * ones kept. Holds no state of its own: what a view cleared and compacted is counted off
 * the turns it shows (see {@link shownResultCounts}).
 *
 * @example
 * ```ts
 * const compactor = new ToolResultCompactor(options, estimator);
 * const state = { seen: current.toolResults, clearing: false };
 * const newest = compactor.compact(turns[0], state); // then turns[1], … with the same state
 * ```
 */
export class ToolResultCompactor {
  constructor(
    private readonly options: CompactOptions,
    private readonly estimator: Estimator,
  ) {}

  /**
   * An older turn compacted again so that it fits `maxTokens`, or undefined when it
   * cannot: its results share what its other messages leave. (Counted when shown:
   * {@link shownResultCounts}.)
   */
  shrink(turn: PreparedTurn, maxTokens: number): PreparedTurn | undefined {
    if (turn.tokens <= maxTokens) return turn;
    if (turn.toolResults === 0) return undefined;
    let other = 0;
    for (const message of turn.messages) if (message.type !== "tool") other += this.estimator.estimateMessage(message);
    const perResult = Math.floor((maxTokens - other) / turn.toolResults) - RESULT_FRAMING_TOKENS;
    if (perResult < 50) return undefined;
    const options = { ...this.noteAndExclusions(), keepRecentToolResults: turn.toolResults, maxToolResultTokens: perResult, estimator: this.estimator };
    const result = microCompact(turn.messages, options);
    const tokens = this.estimator.estimateMessages(result.messages);
    if (tokens > maxTokens) return undefined;
    return withMessages(turn, result.messages, tokens);
  }

  /**
   * The turn with its tool results compacted, `state` the results counted before it (newest
   * first), advanced past them; the same object when nothing changed.
   */
  compact(turn: PreparedTurn, state: ClearStepState): PreparedTurn {
    const { maxToolResultTokens } = this.options;
    const keepRecent = keptInTurn(turn.messages, state, this.options.keepRecentToolResults, this.options.clearStep);
    const options = { ...this.noteAndExclusions(), keepRecentToolResults: keepRecent, maxToolResultTokens, estimator: this.estimator };
    const result = microCompact(turn.messages, options);
    if (result.cleared === 0 && result.compacted === 0) return turn;
    return withMessages(turn, result.messages, this.estimator.estimateMessages(result.messages));
  }

  /** What every micro-compaction of the view names and spares: the bound recall tool, the tools in `excludeTools`. */
  private noteAndExclusions(): { recallToolName: string | undefined; excludeTools: readonly string[] } {
    return { recallToolName: this.options.recallToolName, excludeTools: this.options.excludeTools };
  }
}
