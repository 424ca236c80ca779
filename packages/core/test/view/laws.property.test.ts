import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextBudgetError, createEstimator, type BuildContextInput, type ContextView } from "@contextview/core";
import { conversation, conversationArb, deepFreeze, LAWS, problemsOf, snapshot, viewProblems, type ViewProblem } from "@contextview/test-support";

/** The default estimator: every view here is built with it. */
const estimator = createEstimator();

/**
 * DESIGN.md laws 1–5 and 7 over random conversations and budgets, one `it` per law so
 * a failure names its law. The views are built once (150 random conversations; the
 * seed is printed on failure, FUZZ_SEED replays it) and every law reads them.
 */
describe("buildContext laws (property)", () => {
  const budgetArb = fc.record({ promptBudget: fc.integer({ min: 300, max: 16000 }), dropStep: fc.constantFrom(0, 0.25, 0.5), clearStep: fc.constantFrom(1, 4, 32), cacheBreakpoints: fc.boolean(), serialized: fc.boolean(), summary: fc.boolean() });
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const cases: { problems: ViewProblem[]; refusal?: string }[] = [];

  beforeAll(() => {
    for (const [{ turns, system }, { promptBudget, dropStep, clearStep, cacheBreakpoints, serialized, summary }] of fc.sample(fc.tuple(conversationArb, budgetArb), { numRuns: 150, seed })) {
      const built: BaseMessage[] = conversation(turns, system);
      const messages = deepFreeze(serialized ? (JSON.parse(JSON.stringify(built)) as Record<string, unknown>[]) : built);
      const before = snapshot(messages);
      const summaryMessage = summary ? new AIMessage("Evidence of earlier turns: the user tracks a monthly budget.") : undefined;
      const input: BuildContextInput = { messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, dropStep, clearStep, cacheBreakpoints, ...(summaryMessage ? { summaryMessage } : {}) };
      let view: ContextView;
      try {
        view = buildContext(input);
      } catch (error) {
        // Law 4: the only refusal is a typed error with figures over the limit (and law 1 still holds).
        const typed = ContextBudgetError.isBudgetError(error) && (error as ContextBudgetError).required > (error as ContextBudgetError).limit;
        const problems: ViewProblem[] = snapshot(messages) === before ? [] : [{ law: "inputs untouched", detail: "the input messages changed during a refused build" }];
        cases.push(typed ? { problems } : { problems, refusal: String(error) });
        continue;
      }
      cases.push({ problems: viewProblems({ conversation: built, messages, before, estimator, rebuild: () => buildContext(input).messages }, view) });
    }
  });

  it.each(LAWS.filter((law) => law !== "something to answer"))("%s holds over random conversations", (law) => {
    const broken = cases.flatMap((c, i) => problemsOf(law, c.problems).map((detail) => `conversation ${i}: ${detail}`));
    expect({ seed, broken }).toEqual({ seed, broken: [] });
  });

  it("refuses only with a typed budget error whose figures are over the limit", () => {
    const refusals = cases.flatMap((c, i) => (c.refusal === undefined ? [] : [`conversation ${i}: ${c.refusal}`]));
    expect({ seed, refusals }).toEqual({ seed, refusals: [] });
  });
});
