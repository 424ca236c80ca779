import fc from "fast-check";
import { contentWords, sameWord, wordOverlap, wordsOf } from "../../src/lexical/words.js";

// Words drawn from a small alphabet with the endings sameWord tolerates, so matches are frequent.
const stemArb = fc.stringMatching(/^[abt]{1,5}$/);
const wordArb = fc.tuple(stemArb, fc.constantFrom("", "s", "es", "ed", "ing", "e")).map(([stem, ending]) => stem + ending);

describe("wordOverlap (private unit: the linear form of the memory ranking)", () => {
  it("counts exactly the query words the naive pairwise comparison finds", () => {
    const seed = Date.now();
    try {
      fc.assert(
        fc.property(fc.array(wordArb, { maxLength: 30 }), fc.array(fc.array(wordArb, { maxLength: 20 }), { maxLength: 10 }), (query, texts) => {
          const queryWords = [...new Set(query)];
          const overlap = wordOverlap(queryWords);
          for (const words of texts) {
            const naive = queryWords.filter((q) => words.some((w) => sameWord(q, w))).length;
            expect(overlap(words)).toBe(naive);
          }
        }),
        { seed, numRuns: 500, plugins: [fc.interruptAfterTimeLimit(20_000, { failOnInterrupt: false })] },
      );
    } catch (error) {
      throw new Error(`wordOverlap property failed with seed ${seed}: ${(error as Error).message}`);
    }
  });

  it("matches plurals and verb endings both ways, not unrelated prefixes", () => {
    const overlap = wordOverlap(contentWords("taxes budget notes"));
    expect(overlap(wordsOf("Tax budgeting"))).toBe(2);
    expect(overlap(wordsOf("nothing noted"))).toBe(0);
  });
});
