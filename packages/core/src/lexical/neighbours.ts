import type { RankedMessage } from "./bm25.js";

/**
 * Share of a ranked message's score its two neighbours in the conversation
 * take: the reply to a matching message, and the message a match answers, rank
 * at this fraction of the match unless they rank higher on their own.
 */
export const NEIGHBOUR_SHARE = 0.6;

/**
 * Messages ranked with their neighbours, best first, ties by index, read one at a
 * time: a view reads a few dozen of them, so no more are ordered.
 */
export class NeighbourOrder {
  private readonly out: RankedMessage[] = [];
  private readonly emitted = new Set<number>();
  /** Next message of `ranked` to read. */
  private own = 0;
  /** Next neighbour to read: of `ranked[near >> 1]`, before it when even, after it when odd. */
  private near = 0;

  /** `lifting`: how many of the best in `ranked` lift their neighbours. */
  constructor(private readonly ranked: readonly RankedMessage[], private readonly accept: (index: number) => boolean, private readonly lifting: number) {}

  /** The `k`-th message (from 0), or undefined past the last. */
  at(k: number): RankedMessage | undefined {
    while (this.out.length <= k && this.step());
    return this.out[k];
  }

  /**
   * True when the `k`-th message may be one ranked after the last of `ranked`: every
   * one of them came before it. Ranking more messages (the same best first) then
   * gives an order whose first `k` are these.
   */
  ranOut(k: number): boolean {
    if (k > 0) this.at(k - 1);
    return this.out.length >= k && this.peekOwn() === undefined;
  }

  /**
   * Take the better of the next own score and the next neighbour's: two lists each
   * best first, ties by index (the neighbours', once the messages already taken are
   * skipped: two matches next to each other are both taken at their own scores
   * first), so the first time a message comes is at its best score.
   */
  private step(): boolean {
    const own = this.peekOwn();
    const near = this.peekNear();
    if (own === undefined && near === undefined) return false;
    const takeOwn = near === undefined || (own !== undefined && (own.score > near.score || (own.score === near.score && own.index < near.index)));
    const next = (takeOwn ? own : near) as RankedMessage;
    if (takeOwn) this.own++;
    else this.near++;
    this.emitted.add(next.index);
    this.out.push(next);
    return true;
  }

  private peekOwn(): RankedMessage | undefined {
    while (this.own < this.ranked.length && this.emitted.has((this.ranked[this.own] as RankedMessage).index)) this.own++;
    return this.ranked[this.own];
  }

  private peekNear(): RankedMessage | undefined {
    for (; this.near < 2 * Math.min(this.lifting, this.ranked.length); this.near++) {
      const source = this.ranked[this.near >> 1] as RankedMessage;
      const index = this.near & 1 ? source.index + 1 : source.index - 1;
      if (this.accept(index) && !this.emitted.has(index)) return { index, score: NEIGHBOUR_SHARE * source.score };
    }
    return undefined;
  }
}

/**
 * A message's score with its neighbours': for each of the `lifting` best ranked
 * messages, of score `s`, its neighbours `i - 1` and `i + 1` that `accept` admits
 * score at least {@link NEIGHBOUR_SHARE} × `s`; each message keeps its best score.
 * In a chat the answer to a question is often the turn after the one that shares
 * its words. `ranked`: best first, ties by index, as `rankMessages` gives them.
 *
 * @example
 * ```ts
 * const order = withNeighbours([{ index: 7, score: 2 }], (i) => i < 10, 32);
 * [order.at(0), order.at(1), order.at(2)]; // #7: 2, #6: 1.2, #8: 1.2
 * ```
 */
export function withNeighbours(ranked: readonly RankedMessage[], accept: (index: number) => boolean, lifting: number): NeighbourOrder {
  return new NeighbourOrder(ranked, accept, lifting);
}
