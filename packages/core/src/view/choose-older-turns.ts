import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import type { HistoryAllocation } from "./allocate-history.js";
import type { TurnWalk } from "./find-turns.js";
import { dropTurnExcerpts, HISTORY_LABEL, labelMessage } from "./head.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { ViewOptions } from "./types.js";
import type { NoteOptions } from "./options.js";

/** What {@link chooseOlderTurns} needs. */
export interface ChooseOlderInput {
  walk: TurnWalk;
  /** The history's room as {@link allocateHistory} split it. */
  allocation: HistoryAllocation;
  /** The summary head (label and summary), empty when no summary was given. */
  summaryHead: BaseMessage[];
  options: Pick<Required<ViewOptions>, "excerptBudget"> & NoteOptions;
  /** Messages of the thread before `walk.source`'s (a summarized prefix), for the indices recall reads by. @default 0 */
  shift?: number;
  estimator: Estimator;
}

/** The older part of the view. */
export interface ChosenOlderTurns {
  /** How many of the newest older turns are kept. */
  kept: number;
  /** Messages before the kept turns: the summary, or excerpts of dropped turns, with their label. */
  head: BaseMessage[];
  headTokens: number;
  summaryIncluded: boolean;
  /** Excerpt lines of dropped turns in `head`. */
  excerptCount: number;
  /**
   * The oldest kept turns as shown with their tool results cleared, newest first (whole,
   * they would not have fit the room the newer turns leave; see `clearedBand`): the last
   * `cleared.length` of the `kept` turns. Use {@link shownOlderTurn}.
   */
  cleared: readonly PreparedTurn[];
}

/**
 * Older turn `j` (0 = the newest) as the view shows it: its form with results cleared
 * when it is one of {@link ChosenOlderTurns.cleared}, else as prepared.
 *
 * @example
 * ```ts
 * for (let j = chosen.kept - 1; j >= 0; j--) messages.push(...shownOlderTurn(chosen, older.reached, j).messages);
 * ```
 */
export function shownOlderTurn(chosen: Pick<ChosenOlderTurns, "kept" | "cleared">, olderNewestFirst: readonly PreparedTurn[], j: number): PreparedTurn {
  const firstCleared = chosen.kept - chosen.cleared.length;
  return j >= firstCleared ? (chosen.cleared[j - firstCleared] as PreparedTurn) : (olderNewestFirst[j] as PreparedTurn);
}

/**
 * Choose older turns: the view's history from its allocation (see
 * {@link allocateHistory}). The summary when it was allotted room; the newest older
 * turns it keeps (the oldest maybe with their results cleared); when older turns go and
 * no summary is shown, excerpts of them in the room kept for them.
 *
 * @example
 * ```ts
 * const chosen = chooseOlderTurns({ walk, allocation: allocateHistory({ older, room, summaryTokens, options, estimator }), summaryHead, options, estimator });
 * ```
 */
export function chooseOlderTurns(input: ChooseOlderInput): ChosenOlderTurns {
  const { walk, allocation, options, estimator } = input;
  const { summaryIncluded, cleared } = allocation;
  const kept = allocation.kept + (cleared?.cleared.length ?? 0);
  let head = summaryIncluded ? input.summaryHead : [];
  let headTokens = allocation.headTokens;
  let excerptCount = 0;
  if (allocation.reserve > 0) {
    const dropped = (k: number) => {
      const start = walk.olderTurnStart(kept + k);
      return start === undefined ? undefined : { start, end: walk.olderTurnEnd(kept + k) };
    };
    const labelTokens = estimator.estimateMessage(labelMessage(HISTORY_LABEL));
    const recall = options.recallToolName === undefined ? undefined : { toolName: options.recallToolName, shift: input.shift ?? 0 };
    const excerpts = dropTurnExcerpts(walk.source, (i) => walk.kind(i), dropped, allocation.reserve - labelTokens, estimator, recall);
    if (excerpts.message) {
      head = [labelMessage(HISTORY_LABEL), excerpts.message];
      headTokens = estimator.estimateMessages(head);
      excerptCount = excerpts.count;
    }
  }
  return { kept, head, headTokens, summaryIncluded, excerptCount, cleared: cleared?.cleared ?? [] };
}
