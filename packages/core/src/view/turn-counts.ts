import { addCounts, type SegmentCounts } from "./exchanges.js";

/**
 * What preparing one turn left out of it or changed in it: each prepared turn carries its
 * own (`PreparedTurn.counts`), and a view's report sums them over the turns it
 * read (what it left out) or shows (what it changed).
 */
export interface TurnCounts {
  /** What grouping left out: orphan results, unfinished calls and their exchanges, misplaced system messages. */
  readonly segments: Readonly<SegmentCounts>;
  /** Older messages whose text became an excerpt, or whose prose was bounded. */
  readonly excerpted: number;
  /** Images replaced by placeholders. */
  readonly imagesReplaced: number;
  /** User-role labels inserted for provider ordering rules. */
  readonly labels: number;
  /** Reasoning blocks and items cleared from an older turn (see `withoutReasoning`). */
  readonly reasoningCleared: number;
}

/** Counts of a part that left nothing out and changed nothing. */
export const NO_COUNTS: TurnCounts = Object.freeze({
  segments: Object.freeze({ orphanResults: 0, unfinishedCalls: 0, unfinishedExchanges: 0, misplacedSystem: 0 }),
  excerpted: 0,
  imagesReplaced: 0,
  labels: 0,
  reasoningCleared: 0,
});

/**
 * The counts of `parts` summed.
 *
 * @example
 * ```ts
 * sumCounts([current.counts, ...older.read.map((turn) => turn.counts)]).segments.orphanResults;
 * ```
 */
export function sumCounts(parts: Iterable<TurnCounts>): TurnCounts {
  const segments: SegmentCounts = { ...NO_COUNTS.segments };
  let [excerpted, imagesReplaced, labels, reasoningCleared] = [0, 0, 0, 0];
  for (const part of parts) {
    addCounts(segments, part.segments);
    excerpted += part.excerpted;
    imagesReplaced += part.imagesReplaced;
    labels += part.labels;
    reasoningCleared += part.reasoningCleared;
  }
  return { segments, excerpted, imagesReplaced, labels, reasoningCleared };
}
