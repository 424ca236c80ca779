// A fuzz suite over core's public API, as a hostile user would call it: random and
// hostile messages and options. Properties: the input is never mutated, and every call
// ends in a typed error (ContextViewError / ContextBudgetError) or a view that obeys
// the laws of DESIGN.md. Bounded in time; the seed is printed on failure
// (replay with FUZZ_SEED=<seed> pnpm exec jest packages/core/test/fuzz).
import fc from "fast-check";
import { buildContext, ContextBudgetError, ContextViewError, createContextManager, type ContextView } from "@contextview/core";
import { conversation, conversationArb, providersAccepting, viewProblems } from "@contextview/test-support";
import { fingerprint, messageArb, optionsArb, providersOfInput, runProperty } from "./support/hostile";

/** Outcomes per property, printed once: a fuzz run that only ever meets errors tests little. */
const outcomes: Record<string, Record<string, number>> = {};
const count = (name: string, kind: string) => {
  const tally = (outcomes[name] ??= {});
  tally[kind] = (tally[kind] ?? 0) + 1;
};
afterAll(() => console.log(`fuzz outcomes: ${JSON.stringify(outcomes)}`));

function isTyped(error: unknown): boolean {
  return ContextViewError.isInstance(error) || ContextBudgetError.isBudgetError(error);
}

describe("fuzz: core public API (typed error or a valid view)", () => {
  it("buildContext over hostile messages and options", () =>
    runProperty(
      "buildContext",
      fc.property(fc.array(messageArb, { maxLength: 12 }), fc.option(messageArb, { nil: undefined }), optionsArb, (messages, last, options) => {
        const input = last === undefined ? messages : [...messages, last];
        const before = fingerprint(input);
        let view: ContextView;
        try {
          view = buildContext({ ...(options as object), messages: input } as never);
        } catch (error) {
          if (!isTyped(error)) throw new Error(`untyped ${(error as Error)?.name}: ${(error as Error)?.message}`);
          expect(fingerprint(input)).toBe(before);
          count("buildContext", (error as ContextViewError).code);
          return;
        }
        count("buildContext", "views");
        expect(viewProblems({ providers: providersOfInput(input) }, view)).toEqual([]);
        expect(fingerprint(input)).toBe(before);
        // Law 7: the same input gives the same view.
        expect(fingerprint(buildContext({ ...(options as object), messages: input } as never).messages)).toBe(fingerprint(view.messages));
      }),
      400,
    ));

  it("buildContext over valid random conversations keeps the laws under random options", () =>
    runProperty(
      "buildContext laws",
      fc.property(conversationArb, optionsArb, ({ turns, system }, options) => {
        const input = conversation(turns, system);
        try {
          expect(viewProblems({ providers: providersAccepting(input) }, buildContext({ ...(options as object), messages: input } as never))).toEqual([]);
          count("laws", "views");
        } catch (error) {
          if (!isTyped(error)) throw error;
          count("laws", (error as ContextViewError).code);
        }
      }),
      150,
    ));

  it("the context manager over hostile messages and per-request overrides", () =>
    runProperty(
      "createContextManager",
      fc.asyncProperty(
        fc.array(messageArb, { maxLength: 10 }),
        fc.record({ promptBudget: fc.constantFrom<unknown>(100, 3000, -1, "x") }, { requiredKeys: [] }),
        fc.constantFrom<unknown>(undefined, { summarize: false }, { keepMinTokens: -1 }, { triggerRatio: 2 }, { dropStep: 0.5 }, "nope"),
        async (messages, budget, overrides) => {
          const manager = createContextManager({ summarizer: async () => "A summary of older turns." });
          const before = fingerprint(messages);
          try {
            const view = await manager.build({ messages: messages as never, key: { userId: "u", conversationId: "c" }, overrides: { ...(overrides as object), budget } as never });
            expect(viewProblems({ providers: providersOfInput(messages) }, view)).toEqual([]);
            count("manager", "views");
          } catch (error) {
            if (!isTyped(error)) throw new Error(`untyped ${(error as Error)?.name}: ${(error as Error)?.message}`);
            count("manager", (error as ContextViewError).code);
          }
          expect(fingerprint(messages)).toBe(before);
        },
      ),
      150,
    ));
});
