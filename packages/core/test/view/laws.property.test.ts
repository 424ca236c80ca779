import { AIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextBudgetError, createEstimator } from "@contextview/core";
import { conversation, conversationArb, deepFreeze, snapshot } from "../support/conversation";

const estimator = createEstimator();

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
        let view: BaseMessage[];
        let first: ReturnType<typeof buildContext>;
        try {
          first = buildContext(input);
          view = first.messages;
        } catch (error) {
          // Law 4: the only refusal is a typed error with figures over the limit.
          expect(ContextBudgetError.isBudgetError(error)).toBe(true);
          expect((error as ContextBudgetError).required).toBeGreaterThan((error as ContextBudgetError).limit);
          expect(snapshot(messages)).toBe(before);
          return;
        }
        // Law 1: the input is untouched.
        expect(snapshot(messages)).toBe(before);

        // Law 4: within the limit, and the report's total is the real estimate.
        expect(estimator.estimateMessages(view)).toBe(first.report.tokens.total);
        expect(first.report.tokens.total).toBeLessThanOrEqual(first.report.limit);
        expect(first.report.messages.kept + first.report.messages.dropped).toBe(first.report.messages.in);

        // Law 2: the newest user message is whole, and every kept tool call has its original arguments.
        const lastHuman = [...built].reverse().find((m) => m.type === "human");
        if (lastHuman) expect(view.find((m) => m.id === lastHuman.id)?.content).toEqual(lastHuman.content);
        const originalCalls = new Map(built.flatMap((m) => ((m as AIMessage).tool_calls ?? []).map((c) => [c.id, c.args] as const)));
        for (const m of view) for (const call of (m as AIMessage).tool_calls ?? []) expect(call.args).toEqual(originalCalls.get(call.id));

        // Law 3: a tool-call message is followed at once by all its results; no result without its call.
        for (let i = 0; i < view.length; i++) {
          const m = view[i] as BaseMessage;
          const calls = m.type === "ai" ? ((m as AIMessage).tool_calls ?? []) : [];
          if (calls.length > 0) {
            const results = view.slice(i + 1, i + 1 + calls.length) as ToolMessage[];
            expect(results.map((r) => r.type)).toEqual(calls.map(() => "tool"));
            expect(new Set(results.map((r) => r.tool_call_id))).toEqual(new Set(calls.map((c) => c.id)));
            expect(view[i + 1 + calls.length]?.type).not.toBe("tool");
            i += calls.length;
          } else {
            expect(m.type).not.toBe("tool");
          }
        }

        // Law 5: system only first; first non-system is a user message; tool calls follow a user message or results.
        view.forEach((m, i) => {
          if (m.type === "system") expect(i).toBe(0);
        });
        const start = view[0]?.type === "system" ? 1 : 0;
        if (view.length > start) expect(view[start]?.type).toBe("human");
        view.forEach((m, i) => {
          if (m.type === "ai" && ((m as AIMessage).tool_calls?.length ?? 0) > 0) expect(["human", "tool"]).toContain(view[i - 1]?.type);
        });

        // Law 7: the same input gives the same view.
        expect(JSON.stringify(buildContext(input).messages)).toBe(JSON.stringify(view));
      }),
      // A failure reports within a bounded time instead of shrinking for minutes on a loaded machine.
      { numRuns: 150, plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })] },
    );
  });
});
