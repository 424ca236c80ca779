import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, createEstimator, type BuildContextInput, type ContextView } from "@contextview/core";
import { conversation, conversationArb, deepFreeze, itHoldsOver, refusedCase, snapshot, viewProblems, type LawCase } from "@contextview/test-support";

/** The default estimator: every view here is built with it. */
const estimator = createEstimator();

/**
 * DESIGN.md laws 1–5 and 7 over random conversations and budgets, one `it` per law so
 * a failure names its law. The views are built once (150 random conversations; the
 * seed is printed on failure, FUZZ_SEED replays it) and every law reads them.
 */
describe("buildContext laws (property)", () => {
  const budgetArb = fc.record({ promptBudget: fc.integer({ min: 300, max: 16000 }), dropStep: fc.constantFrom(0, 0.25, 0.5), clearStep: fc.constantFrom(1, 4, 32), cacheBreakpoints: fc.boolean(), serialized: fc.boolean(), summary: fc.boolean(), recallBudget: fc.constantFrom(0, 1000, 4000) });
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const cases: LawCase[] = [];

  beforeAll(() => {
    for (const [{ turns, system }, { promptBudget, dropStep, clearStep, cacheBreakpoints, serialized, summary, recallBudget }] of fc.sample(fc.tuple(conversationArb, budgetArb), { numRuns: 150, seed })) {
      const built: BaseMessage[] = conversation(turns, system);
      const messages = deepFreeze(serialized ? (JSON.parse(JSON.stringify(built)) as Record<string, unknown>[]) : built);
      const before = snapshot(messages);
      const summaryMessage = summary ? new AIMessage("Evidence of earlier turns: the user tracks a monthly budget.") : undefined;
      const input: BuildContextInput = { messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, dropStep, clearStep, cacheBreakpoints, recallBudget, ...(summaryMessage ? { summaryMessage } : {}) };
      let view: ContextView;
      try {
        view = buildContext(input);
      } catch (error) {
        cases.push(refusedCase(error, snapshot(messages) === before));
        continue;
      }
      cases.push({ problems: viewProblems({ conversation: built, messages, before, estimator, rebuild: () => buildContext(input).messages }, view) });
    }
  });

  itHoldsOver(cases, seed, "over random conversations");
});
