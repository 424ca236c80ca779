import { compactionMarkerOf, microCompact } from "../compact/index.js";
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

interface CompactorState {
  results: ClearStepState;
  /** The current turn's results, as its last fit left them; older turns' are counted from the turns shown (see {@link shownResultCounts}). */
  cleared: number;
  compacted: number;
  narrowed: number;
}

/** Each older turn a view compacted or cleared, and that turn as prepared, before any of it. */
const preparedOf = new WeakMap<PreparedTurn, PreparedTurn>();

/**
 * `to`, made from `from` by compacting or clearing results (positions kept, unchanged
 * messages the same objects, as `microCompact` returns them): remembered, so that
 * {@link shownResultCounts} compares it with the turn as prepared.
 */
export function derivedTurn(from: PreparedTurn, to: PreparedTurn): PreparedTurn {
  if (to !== from) preparedOf.set(to, preparedOf.get(from) ?? from);
  return to;
}

/** The turn as prepared, before the view compacted or cleared any of it (see {@link derivedTurn}). */
export function preparedTurnOf(turn: PreparedTurn): PreparedTurn {
  return preparedOf.get(turn) ?? turn;
}

/**
 * Tool results of older turns shown in a view that the view cleared or compacted:
 * each result that differs from its turn as prepared, once, by the form it is shown
 * in — however many passes it took (compacted, then shrunk or cleared), and none of
 * a turn that is not shown.
 */
export function shownResultCounts(turns: readonly PreparedTurn[]): { cleared: number; compacted: number } {
  let cleared = 0;
  let compacted = 0;
  for (const turn of turns) {
    const prepared = preparedOf.get(turn);
    if (prepared === undefined) continue;
    const before = prepared.messages.filter((m) => m.type === "tool");
    const after = turn.messages.filter((m) => m.type === "tool");
    after.forEach((message, i) => {
      if (message === before[i]) return;
      const form = compactionMarkerOf(message)?.form;
      if (form === "cleared") cleared++;
      else if (form !== undefined) compacted++;
    });
  }
  return { cleared, compacted };
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

  /** Tool results of the current turn cleared (older exchanges of a long turn). */
  get cleared(): number {
    return this.state.cleared;
  }

  /** Tool results of the current turn compacted. */
  get compacted(): number {
    return this.state.compacted;
  }

  /** Results of the current turn shown as their totals, with a notice to narrow the query. */
  get narrowed(): number {
    return this.state.narrowed;
  }

  /**
   * The current turn's `results` are the newest: they take the first places kept whole,
   * before older ones clear in steps. Called once, before any older turn is compacted.
   */
  seeNewestResults(results: number): void {
    this.state.results.seen += results;
  }

  /** Count the current turn in the form the view shows it (see `chooseCurrentForm`), which cleared `cleared` of its results. */
  countCurrentTurn(fitted: CurrentTurnFit, cleared: number): void {
    this.state.compacted = fitted.compacted;
    this.state.narrowed = fitted.narrowed;
    this.state.cleared = cleared;
  }

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
    return derivedTurn(turn, { ...turn, messages: result.messages, tokens });
  }

  /** The turn with its tool results compacted; the same object when nothing changed. */
  compact(turn: PreparedTurn): PreparedTurn {
    const { maxToolResultTokens } = this.options;
    const keepRecent = keptInTurn(turn.messages, this.state.results, this.options.keepRecentToolResults, this.options.clearStep);
    const options = { ...this.noteAndExclusions(), keepRecentToolResults: keepRecent, maxToolResultTokens, estimator: this.estimator };
    const result = microCompact(turn.messages, options);
    if (result.cleared === 0 && result.compacted === 0) return turn;
    return derivedTurn(turn, { ...turn, messages: result.messages, tokens: this.estimator.estimateMessages(result.messages) });
  }

  /** What every micro-compaction of the view names and spares: the bound recall tool, the tools in `excludeTools`. */
  private noteAndExclusions(): { recallToolName: string | undefined; excludeTools: readonly string[] } {
    return { recallToolName: this.options.recallToolName, excludeTools: this.options.excludeTools };
  }
}
