import type { RankedMessage } from "./bm25.js";

/**
 * Share of a ranked message's score its two neighbours in the conversation
 * take: the reply to a matching message, and the message a match answers, rank
 * at this fraction of the match unless they rank higher on their own.
 */
export const NEIGHBOUR_SHARE = 0.6;

/** Messages ranked with their neighbours, and the score above which that order is final. */
export interface NeighbourRanking {
  /** Best first, ties by index. */
  ranked: RankedMessage[];
  /**
   * Every entry scored above this is where it would be if every message had been
   * ranked; the entries at or below it may change when more are: the score of the
   * last message of a truncated ranking, else 0 (the order is final).
   */
  exactAbove: number;
}

/**
 * A message's score with its neighbours': for each ranked message `i` of score
 * `s`, its neighbours `i - 1` and `i + 1` that `accept` admits score at least
 * {@link NEIGHBOUR_SHARE} × `s`; each message keeps its best score. In a chat the
 * answer to a question is often the turn after the one that shares its words.
 * `truncated`: `ranked` is the best messages only, not every one that matched.
 *
 * @example
 * ```ts
 * withNeighbours([{ index: 7, score: 2 }], (i) => i < 10, false).ranked; // #7: 2, #6: 1.2, #8: 1.2
 * ```
 */
export function withNeighbours(ranked: readonly RankedMessage[], accept: (index: number) => boolean, truncated: boolean): NeighbourRanking {
  const best = new Map<number, number>();
  const offer = (index: number, score: number) => {
    if (score > (best.get(index) ?? 0)) best.set(index, score);
  };
  for (const { index, score } of ranked) {
    offer(index, score);
    if (accept(index - 1)) offer(index - 1, NEIGHBOUR_SHARE * score);
    if (accept(index + 1)) offer(index + 1, NEIGHBOUR_SHARE * score);
  }
  const all = [...best].map(([index, score]) => ({ index, score }));
  all.sort((a, b) => b.score - a.score || a.index - b.index);
  return { ranked: all, exactAbove: truncated && ranked.length > 0 ? (ranked[ranked.length - 1] as RankedMessage).score : 0 };
}
