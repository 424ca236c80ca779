import { AIMessage, HumanMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { createEstimator } from "@contextview/core";
import { NEIGHBOUR_SHARE, withNeighbours } from "../../src/lexical/neighbours";
import { recallBlock } from "../../src/view/recall";

const estimator = createEstimator();

describe("ranking with neighbours", () => {
  it("gives each neighbour of a ranked message its share of the score, and each message its best", () => {
    const { ranked, exactAbove } = withNeighbours([{ index: 7, score: 2 }, { index: 8, score: 1.5 }], (i) => i >= 0 && i < 10, false);
    // #8 keeps its own 1.5 (above 0.6 × 2); #9 gets 0.6 × 1.5; #6 gets 0.6 × 2.
    expect(ranked).toEqual([
      { index: 7, score: 2 },
      { index: 8, score: 1.5 },
      { index: 6, score: NEIGHBOUR_SHARE * 2 },
      { index: 9, score: NEIGHBOUR_SHARE * 1.5 },
    ]);
    expect(exactAbove).toBe(0);
  });

  it("leaves out the neighbours `accept` refuses, and ranks ties by index", () => {
    const { ranked } = withNeighbours([{ index: 0, score: 1 }, { index: 4, score: 1 }], (i) => i >= 0 && i < 5, false);
    expect(ranked.map((r) => r.index)).toEqual([0, 4, 1, 3]);
  });

  it("above `exactAbove`, a truncated ranking gives the order of the whole one (random scores)", () => {
    const scoresArb = fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 8 }).map((n) => n / 4)), { minLength: 1, maxLength: 60 });
    fc.assert(
      fc.property(scoresArb, fc.integer({ min: 1, max: 20 }), (scores, max) => {
        const accept = (i: number) => i >= 0 && i < scores.length && i % 5 !== 2;
        const all = scores.map((score, index) => ({ index, score })).filter((r) => r.score > 0 && accept(r.index)).sort((a, b) => b.score - a.score || a.index - b.index);
        const whole = withNeighbours(all, accept, false).ranked;
        const part = withNeighbours(all.slice(0, max), accept, all.length > max);
        const exact = part.ranked.filter((r) => r.score > part.exactAbove);
        expect(exact).toEqual(whole.slice(0, exact.length));
        expect(whole.filter((r) => r.score > part.exactAbove)).toHaveLength(exact.length);
      }),
      { numRuns: 300, seed: 11 },
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
    expect(block.indices).toEqual([0, 1]);
    expect(String(block.messages[1]?.content)).toContain("row F");
  });
});
