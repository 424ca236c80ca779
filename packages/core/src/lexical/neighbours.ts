import type { RankedMessage } from "./bm25.js";

/**
 * Share of a ranked message's score its neighbours in the conversation take, per
 * step away: the reply to a matching message, and the message a match answers, rank
 * at this fraction of the match unless they rank higher on their own; the messages
 * two steps away (in a chat, the same speaker's turn before and after) at its square.
 */
export const NEIGHBOUR_SHARE = 0.6;

/**
 * How many steps away from a match its neighbours are lifted: the message before and
 * after it, and the one before and after those. In a chat the same speaker's next turn
 * often carries on what the matching one said ("We adopted a puppy!" — "What's its
 * name?" — "Biscuit, and he chews everything."). Measured with `pnpm eval recall`
 * (buildContext's evidence recall at 4,000 / 8,000 tokens, against 1 step): LoCoMo
 * 86.2 / 90.5% (83.8 / 88.6%; all 1,536 questions 86.1 / 90.9%, 83.5 / 88.7%), the
 * generated chats 68.0 / 80.7% (the same), LoCoMo woven with three other chats
 * 81.9 / 86.7% (80.8 / 85.9%); 3 steps lose the generated chats' answers (64.5% at 4,000).
 */
export const NEIGHBOUR_REACH = 2;

/** The share of a match's score a neighbour `distance` steps away takes: {@link NEIGHBOUR_SHARE} to that power. */
export const neighbourShare = (distance: number): number => NEIGHBOUR_SHARE ** distance;

/**
 * Messages ranked with their neighbours, best first, ties by index, read one at a
 * time: a view reads a few dozen of them, so no more are ordered.
 */
export class NeighbourOrder {
  private readonly out: RankedMessage[] = [];
  private readonly emitted = new Set<number>();
  /** Next message of `ranked` to read. */
  private own = 0;
  /**
   * Per distance (index 0: one step away), the next neighbour to read: of
   * `ranked[near >> 1]`, before it when even, after it when odd. Each distance's
   * neighbours come best first, as their sources do.
   */
  private readonly near: number[] = Array.from({ length: NEIGHBOUR_REACH }, () => 0);

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
   * Take the best of the next own score and the next neighbour's of each distance:
   * lists each best first, ties by index (the neighbours', once the messages already
   * taken are skipped: two matches next to each other are both taken at their own
   * scores first), so the first time a message comes is at its best score.
   */
  private step(): boolean {
    let next = this.peekOwn();
    let from = -1;
    for (let d = 0; d < NEIGHBOUR_REACH; d++) {
      const near = this.peekNear(d);
      if (near !== undefined && (next === undefined || near.score > next.score || (near.score === next.score && near.index < next.index))) [next, from] = [near, d];
    }
    if (next === undefined) return false;
    if (from < 0) this.own++;
    else this.near[from] = (this.near[from] as number) + 1;
    this.emitted.add(next.index);
    this.out.push(next);
    return true;
  }

  private peekOwn(): RankedMessage | undefined {
    while (this.own < this.ranked.length && this.emitted.has((this.ranked[this.own] as RankedMessage).index)) this.own++;
    return this.ranked[this.own];
  }

  /** The next neighbour `d + 1` steps away not taken yet, with its share of its source's score. */
  private peekNear(d: number): RankedMessage | undefined {
    const end = 2 * Math.min(this.lifting, this.ranked.length);
    for (let near = this.near[d] as number; near < end; near++) {
      const source = this.ranked[near >> 1] as RankedMessage;
      const index = near & 1 ? source.index + d + 1 : source.index - d - 1;
      if (!this.accept(index) || this.emitted.has(index)) continue;
      this.near[d] = near;
      return { index, score: neighbourShare(d + 1) * source.score };
    }
    this.near[d] = end;
    return undefined;
  }
}

/**
 * A message's score with its neighbours': for each of the `lifting` best ranked
 * messages, of score `s`, the messages up to {@link NEIGHBOUR_REACH} steps away that
 * `accept` admits score at least {@link neighbourShare}(distance) × `s` (0.6 × `s`
 * one step away, 0.36 × `s` two); each message keeps its best score.
 * In a chat the answer to a question is often the turn after the one that shares
 * its words, and the same speaker's next turn carries on. `ranked`: best first, ties
 * by index, as `rankMessages` gives them.
 *
 * @example
 * ```ts
 * const order = withNeighbours([{ index: 7, score: 2 }], (i) => i < 10, 32);
 * [order.at(0), order.at(1), order.at(2), order.at(3)]; // #7: 2, #6: 1.2, #8: 1.2, #5: 0.72
 * ```
 */
export function withNeighbours(ranked: readonly RankedMessage[], accept: (index: number) => boolean, lifting: number): NeighbourOrder {
  return new NeighbourOrder(ranked, accept, lifting);
}
