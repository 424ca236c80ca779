import { AIMessage, HumanMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { createEstimator } from "@contextview/core";
import type { RankedMessage } from "../../src/lexical/bm25";
import { NEIGHBOUR_REACH, NEIGHBOUR_SHARE, neighbourShare, withNeighbours, type NeighbourOrder } from "../../src/lexical/neighbours";
import { recallBlock } from "../../src/view/recall";

const estimator = createEstimator();

/** Every entry of an order. */
const entries = (order: NeighbourOrder): RankedMessage[] => {
  const out: RankedMessage[] = [];
  for (let k = 0, next = order.at(0); next !== undefined; next = order.at(++k)) out.push(next);
  return out;
};

/** The definition, all at once: each message its best score, own or a neighbour's share (up to NEIGHBOUR_REACH steps away); sorted. */
function definition(ranked: readonly RankedMessage[], accept: (i: number) => boolean, lifting: number): RankedMessage[] {
  const best = new Map<number, number>();
  const offer = (index: number, score: number) => {
    if (score > (best.get(index) ?? 0)) best.set(index, score);
  };
  ranked.forEach(({ index, score }, k) => {
    offer(index, score);
    for (let d = 1; k < lifting && d <= NEIGHBOUR_REACH; d++) for (const near of [index - d, index + d]) if (accept(near)) offer(near, neighbourShare(d) * score);
  });
  return [...best].map(([index, score]) => ({ index, score })).sort((a, b) => b.score - a.score || a.index - b.index);
}

describe("ranking with neighbours", () => {
  it("gives each neighbour of a ranked message its share of the score, and each message its best", () => {
    expect(NEIGHBOUR_REACH).toBe(2);
    const order = withNeighbours([{ index: 7, score: 2 }, { index: 8, score: 1.5 }], (i) => i >= 0 && i < 12, 2);
    // #8 keeps its own 1.5 (above 0.6 × 2); #9 gets 0.6 × 1.5 (above 0.36 × 2); #6 gets
    // 0.6 × 2; two steps away, #5 gets 0.36 × 2 and #10 0.36 × 1.5.
    expect(entries(order)).toEqual([
      { index: 7, score: 2 },
      { index: 8, score: 1.5 },
      { index: 6, score: NEIGHBOUR_SHARE * 2 },
      { index: 9, score: NEIGHBOUR_SHARE * 1.5 },
      { index: 5, score: NEIGHBOUR_SHARE ** 2 * 2 },
      { index: 10, score: NEIGHBOUR_SHARE ** 2 * 1.5 },
    ]);
    expect(order.at(6)).toBeUndefined();
  });

  it("lifts two steps away a message whose own score is lower, not one that ranks higher on its own", () => {
    // #3 is two steps from #5 (0.36 × 5 = 1.8 > its own 1); #9 is two from #7 (0.36 × 4 = 1.44 < its own 1.5).
    const order = withNeighbours([{ index: 5, score: 5 }, { index: 7, score: 4 }, { index: 9, score: 1.5 }, { index: 3, score: 1 }], (i) => i >= 0 && i < 12, 2);
    expect(entries(order)).toEqual([
      { index: 5, score: 5 },
      { index: 7, score: 4 },
      { index: 4, score: 3 },
      { index: 6, score: 3 },
      { index: 8, score: NEIGHBOUR_SHARE * 4 },
      { index: 3, score: NEIGHBOUR_SHARE ** 2 * 5 },
      { index: 9, score: 1.5 },
    ]);
  });

  it("leaves out the neighbours `accept` refuses, and ranks ties by index", () => {
    const order = withNeighbours([{ index: 0, score: 1 }, { index: 4, score: 1 }], (i) => i >= 0 && i < 5, 2);
    // #1 and #3 one step away, then #2 (two steps from both); -1, -2, 5 and 6 are refused.
    expect(entries(order).map((r) => r.index)).toEqual([0, 4, 1, 3, 2]);
  });

  it("reads, one at a time, the order of the definition: each message at its best score (random rankings, ties included)", () => {
    const rankedArb = fc.array(fc.integer({ min: 1, max: 6 }).map((n) => n / 2), { maxLength: 40 }).chain((scores) =>
      fc.shuffledSubarray([...Array(48).keys()], { minLength: scores.length, maxLength: scores.length }).map((indices) =>
        indices.map((index, k) => ({ index, score: scores[k] as number })).sort((a, b) => b.score - a.score || a.index - b.index),
      ),
    );
    fc.assert(
      fc.property(rankedArb, fc.integer({ min: 0, max: 45 }), (ranked, lifting) => {
        const accept = (i: number) => i >= 0 && i < 48 && i % 7 !== 3;
        expect(entries(withNeighbours(ranked, accept, lifting))).toEqual(definition(ranked, accept, lifting));
      }),
      { numRuns: 500, seed: 5 },
    );
  });

  it("read from the best ranked until they run out, then from more, gives the order of all ranked at once (random scores)", () => {
    const scoresArb = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 8 }).map((n) => n / 4)), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(scoresArb, fc.integer({ min: 1, max: 20 }), (scores, first) => {
        const accept = (i: number) => i >= 0 && i < scores.length && i % 5 !== 2;
        const all = scores.map((score, index) => ({ index, score })).filter((r) => r.score > 0 && accept(r.index)).sort((a, b) => b.score - a.score || a.index - b.index);
        const read: RankedMessage[] = [];
        let order = withNeighbours(all.slice(0, first), accept, first);
        let widened = all.length <= first;
        for (let k = 0; ; k++) {
          if (!widened && order.ranOut(k)) {
            order = withNeighbours(all, accept, first);
            widened = true;
          }
          const next = order.at(k);
          if (next === undefined) break;
          read.push(next);
        }
        expect(read).toEqual(definition(all, accept, first));
      }),
      { numRuns: 500, seed: 11 },
    );
  });

  it("brings back the answer to a matching question although it holds none of the request's words", () => {
    const filler = Array.from({ length: 60 }, (_, i) => [new HumanMessage({ id: `u${i}`, content: `Turn ${i}: nothing much, cooked pasta again.` }), new AIMessage({ id: `a${i}`, content: `Sounds calm, tell me more about turn ${i}.` })]).flat();
    const conversation = [
      new HumanMessage({ id: "ask", content: "Did you manage to get tickets for the jazz festival in Montreux?" }),
      new AIMessage({ id: "answer", content: "Yes: two passes for Saturday the 12th, row F." }),
      ...filler,
      new HumanMessage({ id: "q", content: "So, those jazz festival tickets?" }),
    ];
    const end = conversation.length - 1 - 20;
    const block = recallBlock({ conversation, lead: 0, end, request: conversation.length - 1, shownIds: new Set(), budget: 400, queryFromTurn: false, estimator });
    // The match, its answer, and the turn two steps after the match (nothing else holds a word of the request).
    expect(block.indices).toEqual([0, 1, 2]);
    expect(String(block.messages[1]?.content)).toContain("row F");
  });
});
