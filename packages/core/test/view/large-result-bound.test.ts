// A current result whose length alone puts it over the room is compacted without being
// estimated whole (see textTokensAtLeast): the bound is below every default estimate, and
// the view it gives is the one an estimator that reads every text gives.
import fc from "fast-check";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator, type Estimator } from "@contextview/core";
import { estimateTextTokens } from "@contextview/core/estimators";
import { textTokensAtLeast } from "../../src/estimate";
import * as textTokens from "../../src/estimators/text-tokens";

// Random texts from the clock's seed, or FUZZ_SEED's (printed by fast-check on failure).
const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);

/** Counts as the default estimator does, but through a tokenizer: its count is not known, so it reads every text. */
function readingEstimator(): { estimator: Estimator; longest: () => number } {
  let longest = 0;
  const estimator = createEstimator({
    tokenizer: (text) => {
      longest = Math.max(longest, text.length);
      return estimateTextTokens(text);
    },
  });
  return { estimator, longest: () => longest };
}

function rows(count: number, prefix: string): string {
  const row = (i: number) => ({ id: `${prefix}-${i}`, date: `2024-0${1 + (i % 9)}-1${i % 10}`, amount: i * 1.25, payee: `Payee ${i % 50}` });
  return JSON.stringify(Array.from({ length: count }, (_, i) => row(i)));
}

function conversation(results: readonly string[]): BaseMessage[] {
  const calls = results.map((_, k) => ({ id: `c${k}`, name: "search", args: { page: k }, type: "tool_call" as const }));
  return [
    new HumanMessage({ id: "h0", content: "What did I spend last year?" }),
    new AIMessage({ id: "a0", content: "You spent 1,200 in all." }),
    new HumanMessage({ id: "h1", content: "List every transaction of the year." }),
    new AIMessage({ id: "a1", content: "", tool_calls: calls }),
    ...results.map((content, k) => new ToolMessage({ id: `t${k}`, tool_call_id: `c${k}`, name: "search", content })),
  ];
}

/** The view without its timing. */
function shown(view: ReturnType<typeof buildContext>) {
  const { elapsedMs: _elapsed, ...report } = view.report;
  return { messages: view.messages.map((m) => ({ type: m.type, content: m.content, id: m.id })), report };
}

describe("a result over the room by its length alone", () => {
  it("is bounded below every default estimate: a tenth of a token a character, scaled", () => {
    const pieces = ["aaaaaaaa ", "word ", "a", " ", "  ", "\n", "\t", "1", "12345", ",", '":{"', "\\n", "é", "日本", "😀", "-"];
    const scaled = createEstimator({ scale: 0.5 });
    const plain = createEstimator();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 400 }), (parts) => {
        const text = parts.join("");
        expect(textTokensAtLeast(plain, text)).toBeLessThanOrEqual(plain.estimateText(text));
        expect(textTokensAtLeast(scaled, text)).toBeLessThanOrEqual(scaled.estimateText(text));
      }),
      { seed, numRuns: 300 },
    );
    // The cheapest run, a word of eight letters and a space, is 0.12 a character.
    const cheapest = "aaaaaaaa ".repeat(10_000);
    expect(textTokensAtLeast(plain, cheapest)).toBe(9_000);
    expect(plain.estimateText(cheapest)).toBeGreaterThanOrEqual(10_800);
    // An estimator whose count is not known has no bound.
    expect(textTokensAtLeast(readingEstimator().estimator, cheapest)).toBe(0);
  });

  it("gives the view an estimator that reads the whole text gives, and the default estimator never reads it whole", () => {
    const budget = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096 };
    const cases: string[][] = [[rows(10_000, "a")], [rows(8_000, "b"), rows(3, "c")], [rows(20, "d"), rows(6_000, "e")]];
    for (const results of cases) {
      const messages = conversation(results);
      const largest = Math.max(...results.map((r) => r.length));
      // With the opening request pinned, the pinned block gives way to the turn's least form: its notice
      // states the result's size, so that is read once. Without a pin, nothing reads the result whole.
      for (const pinOpeningRequest of [true, false]) {
        const reading = readingEstimator();
        const whole = buildContext({ messages, budget, pinOpeningRequest, estimator: reading.estimator });
        // The reading estimator read the largest result whole: what the bound saves.
        expect(reading.longest()).toBe(largest);
        // The default count, watched: an estimator made after the spy counts through it.
        const counted = jest.spyOn(textTokens, "estimateTextTokens");
        const bounded = buildContext({ messages, budget, pinOpeningRequest, estimator: createEstimator() });
        const read = counted.mock.calls.map(([text]) => text.length);
        counted.mockRestore();
        expect(read.length).toBeGreaterThan(0);
        if (!pinOpeningRequest) expect(Math.max(...read)).toBeLessThan(largest);
        expect(shown(bounded)).toEqual(shown(whole));
        expect(bounded.report.tokens.total).toBeLessThanOrEqual(bounded.report.limit);
        expect(bounded.report.toolResults.compacted + bounded.report.toolResults.narrowed).toBeGreaterThan(0);
      }
    }
  });

  it("still reports the size of a result it narrows to a notice, and the error's original size when read", () => {
    const budget = { contextWindow: 32768, promptBudget: 700, responseReserve: 256 };
    const text = "the service answered with a long log line and more words\n".repeat(20_000);
    const messages = conversation([text]);
    const view = buildContext({ messages, budget });
    const reading = buildContext({ messages, budget, estimator: readingEstimator().estimator });
    expect(shown(view)).toEqual(shown(reading));
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
  });
});
