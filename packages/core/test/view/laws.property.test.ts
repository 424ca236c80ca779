import { AIMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextBudgetError } from "@contextview/core";
import { conversation, conversationArb, deepFreeze, snapshot } from "../support/conversation";
import { expectViewLaws } from "../support/view-laws";

/** DESIGN.md laws 1–5 and 7 over random conversations and budgets. */
describe("buildContext laws (property)", () => {
  const budgetArb = fc.record({ promptBudget: fc.integer({ min: 300, max: 16000 }), dropStep: fc.constantFrom(0, 0.25, 0.5), clearStep: fc.constantFrom(1, 4), cacheBreakpoints: fc.boolean(), serialized: fc.boolean(), summary: fc.boolean() });

  it("holds for every conversation", () => {
    fc.assert(
      fc.property(conversationArb, budgetArb, ({ turns, system }, { promptBudget, dropStep, clearStep, cacheBreakpoints, serialized, summary }) => {
        const built = conversation(turns, system);
        const messages = deepFreeze(serialized ? (JSON.parse(JSON.stringify(built)) as Record<string, unknown>[]) : built);
        const before = snapshot(messages);
        const summaryMessage = summary ? new AIMessage("Evidence of earlier turns: the user tracks a monthly budget.") : undefined;
        const input = { messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, dropStep, clearStep, cacheBreakpoints, ...(summaryMessage ? { summaryMessage } : {}) };
        let first: ReturnType<typeof buildContext>;
        try {
          first = buildContext(input);
        } catch (error) {
          // Law 4: the only refusal is a typed error with figures over the limit.
          expect(ContextBudgetError.isBudgetError(error)).toBe(true);
          expect((error as ContextBudgetError).required).toBeGreaterThan((error as ContextBudgetError).limit);
          expect(snapshot(messages)).toBe(before);
          return;
        }
        expectViewLaws(built, input, first, before);
      }),
      // A failure reports within a bounded time instead of shrinking for minutes on a loaded machine.
      { numRuns: 150, plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })] },
    );
  });
});
