import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, createEstimator, InMemoryContextStore, type BuildContextInput, type ContextView } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { conversation, conversationArb, deepFreeze, itHoldsOver, refusedCase, snapshot, viewProblems, type LawCase } from "@contextview/test-support";

/** The default estimator: every view here is built with it. */
const estimator = createEstimator();

/**
 * DESIGN.md laws 1–5 and 7 over random conversations and budgets, one `it` per law so
 * a failure names its law. The views are built once (150 random conversations; the
 * seed is printed on failure, FUZZ_SEED replays it) and every law reads them.
 */
describe("buildContext laws (property)", () => {
  const budgetArb = fc.record({ promptBudget: fc.integer({ min: 300, max: 16000 }), dropStep: fc.constantFrom(0, 0.25, 0.5), clearStep: fc.constantFrom(1, 4, 32), cacheBreakpoints: fc.boolean(), serialized: fc.boolean(), summary: fc.constantFrom("none", "text", "evidence"), evidenceShare: fc.constantFrom(0, 0.1, 0.3, 1), recallBudget: fc.constantFrom(0, 1000, 4000), excludeTools: fc.constantFrom([], ["read_note"], ["read_note", "search_transactions"]) });
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const cases: LawCase[] = [];
  /** Views whose evidence was cut to its share (the sample must reach that path). */
  let evidenceCut = 0;
  /** Views that left out evidence excerpts of messages they show (the sample must reach that path too). */
  let evidenceBeside = 0;
  /** Results of tools in `excludeTools` a view cleared outside a long current turn (none may be). */
  const clearedExcluded: string[] = [];
  /** Views whose `excludeTools` spared results the same view without it clears (the sample must reach that path). */
  let spared = 0;

  beforeAll(async () => {
    for (const [{ turns, system }, { promptBudget, dropStep, clearStep, cacheBreakpoints, serialized, summary, evidenceShare, recallBudget, excludeTools }] of fc.sample(fc.tuple(conversationArb, budgetArb), { numRuns: 150, seed })) {
      const built: BaseMessage[] = conversation(turns, system);
      const messages = deepFreeze(serialized ? (JSON.parse(JSON.stringify(built)) as Record<string, unknown>[]) : built);
      const before = snapshot(messages);
      // A history message: the application's text, or the durable evidence of this conversation (cut to its share).
      const evidence = summary === "evidence" ? (await new InMemoryContextStore().update("u", "c", built)).asMessage() : null;
      const historyMessage = summary === "text" ? new AIMessage("Evidence of earlier turns: the user tracks a monthly budget.") : (evidence ?? undefined);
      const input: BuildContextInput = { messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, dropStep, clearStep, cacheBreakpoints, recallBudget, evidenceShare, excludeTools, ...(historyMessage ? { historyMessage } : {}) };
      let view: ContextView;
      try {
        view = buildContext(input);
      } catch (error) {
        cases.push(refusedCase(error, snapshot(messages) === before));
        continue;
      }
      if (view.report.history.evidenceOmitted > 0) evidenceCut++;
      if (view.report.history.evidenceShown > 0) evidenceBeside++;
      if (excludeTools.length > 0) {
        // Only the oldest exchanges of a long current turn (after the request, the view's last user message) may still clear them, to let the newest one fit.
        let request = view.messages.length - 1;
        while (request >= 0 && view.messages[request]?.type !== "human") request--;
        const older = clearedOf(view.messages.slice(0, Math.max(0, request)), excludeTools);
        if (older > 0) clearedExcluded.push(`${cases.length}: ${older} cleared before the request`);
        // One view the option spares results in is enough to show the path is reached: later ones are not built twice.
        if (spared === 0 && clearedOf(buildContext({ ...input, excludeTools: [] }).messages, excludeTools) > clearedOf(view.messages, excludeTools)) spared++;
      }
      cases.push({ problems: viewProblems({ conversation: built, messages, before, estimator, rebuild: () => buildContext(input).messages }, view) });
    }
  });

  itHoldsOver(cases, seed, "over random conversations");

  it("never clears a result of a tool in excludeTools outside a long current turn, and reaches views where that spares results", () => {
    expect({ seed, clearedExcluded, spared: spared > 0 }).toEqual({ seed, clearedExcluded: [], spared: true });
  });

  it("reaches views whose evidence is cut to its share, and views that leave out excerpts of messages they show", () => {
    expect({ seed, evidenceCut: evidenceCut > 0, evidenceBeside: evidenceBeside > 0 }).toEqual({ seed, evidenceCut: true, evidenceBeside: true });
  });
});

/** Tool results of the given tools a view shows cleared to a marker. */
function clearedOf(messages: readonly BaseMessage[], tools: readonly string[]): number {
  return messages.filter((m) => m.type === "tool" && tools.includes(String((m as { name?: string }).name)) && compactionMarkerOf(m)?.form === "cleared").length;
}
