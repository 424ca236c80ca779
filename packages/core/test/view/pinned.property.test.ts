import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextBudgetError, createEstimator, OPENING_REQUEST_LABEL, pinMessage, type BuildContextInput } from "@contextview/core";
import { conversation, conversationArb, deepFreeze, snapshot, viewProblems } from "@contextview/test-support";

/** The default estimator: every view here is built with it. */
const estimator = createEstimator();

/** Random conversations with random pins, pin bounds, budgets and summarized prefixes: every law holds. */
describe("buildContext with pinned context (property)", () => {
  const settingsArb = fc.record({
    pins: fc.array(fc.nat(), { maxLength: 8 }),
    pinOpeningRequest: fc.boolean(),
    maxOpeningRequestTokens: fc.integer({ min: 50, max: 2000 }),
    pinnedBudget: fc.integer({ min: 0, max: 4000 }),
    promptBudget: fc.integer({ min: 300, max: 16000 }),
    serialized: fc.boolean(),
    summary: fc.boolean(),
    /** Share of the history before the current request moved into `priorMessages` (a summarized prefix). */
    priorShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  });

  it("holds every law, keeps pins in conversation order, and never shows a pinned AI message first", () => {
    const seen = { pinsShown: 0, openingPinned: 0, excerpted: 0, dropped: 0, prior: 0 };
    fc.assert(
      fc.property(conversationArb, settingsArb, ({ turns, system }, s) => {
        const plain = conversation(turns, system);
        const pinnedAt = new Set(plain.length > 0 ? s.pins.map((p) => p % plain.length) : []);
        const built = plain.map((m, i) => (pinnedAt.has(i) ? pinMessage(m) : m));
        const lead = built.findIndex((m) => m.type !== "system");
        const lastHuman = built.map((m) => m.type).lastIndexOf("human");
        let kept: BaseMessage[] = built;
        let prior: BaseMessage[] = [];
        if (s.priorShare !== undefined && lead >= 0 && lastHuman > lead) {
          const k = lead + Math.floor(s.priorShare * (lastHuman - lead));
          prior = built.slice(lead, k);
          kept = [...built.slice(0, lead), ...built.slice(k)];
        }
        const asInput = (list: BaseMessage[]) => deepFreeze(s.serialized ? (JSON.parse(JSON.stringify(list)) as Record<string, unknown>[]) : list);
        const messages = asInput(kept);
        const before = snapshot(messages);
        const input: BuildContextInput = {
          messages,
          budget: { contextWindow: 32768, promptBudget: s.promptBudget, responseReserve: 4096 },
          pinOpeningRequest: s.pinOpeningRequest,
          maxOpeningRequestTokens: s.maxOpeningRequestTokens,
          pinnedBudget: s.pinnedBudget,
          ...(prior.length > 0 ? { priorMessages: asInput(prior) } : {}),
          ...(s.summary ? { summaryMessage: new AIMessage("Evidence of earlier turns: the user tracks a monthly budget.") } : {}),
        };
        let result: ReturnType<typeof buildContext>;
        try {
          result = buildContext(input);
        } catch (error) {
          expect(ContextBudgetError.isBudgetError(error)).toBe(true);
          expect((error as ContextBudgetError).required).toBeGreaterThan((error as ContextBudgetError).limit);
          expect(snapshot(messages)).toBe(before);
          return;
        }
        expect(viewProblems({ conversation: built, messages, before, estimator, rebuild: () => buildContext(input).messages }, result)).toEqual([]);
        const { messages: view, report } = result;
        if (report.pinned.messages.length > 0) seen.pinsShown++;
        if (report.pinned.openingRequest?.placement === "pinned") seen.openingPinned++;
        if (report.pinned.excerpted > 0) seen.excerpted++;
        if (report.pinned.dropped > 0) seen.dropped++;
        if (prior.length > 0) seen.prior++;

        // Pinned messages appear in the view in conversation order.
        const position = new Map(built.map((m, i) => [m.id as string, i]));
        const order = report.pinned.messages.map((m) => position.get(m.id as string) as number);
        expect(order).toEqual([...order].sort((a, b) => a - b));
        for (const pinned of report.pinned.messages) expect(view.some((m) => m.id === pinned.id)).toBe(true);

        // The opening request, when pinned, comes right after the system message, labelled, verbatim unless excerpted.
        const start = view[0]?.type === "system" ? 1 : 0;
        const opening = report.pinned.openingRequest;
        if (opening?.placement === "pinned") {
          expect(view[start]?.content).toBe(OPENING_REQUEST_LABEL);
          const original = built.find((m) => m.type === "human") as BaseMessage;
          expect(view[start + 1]?.id).toBe(original.id);
          if (!opening.excerpted) expect(view[start + 1]?.content).toEqual(original.content);
        }
        if (!s.pinOpeningRequest) expect(opening).toBeNull();

        // With nothing left out, every pinned user message is in the view.
        if (report.pinned.dropped === 0 && s.pinnedBudget > 0) {
          for (const i of pinnedAt) {
            const m = built[i] as BaseMessage;
            if (m.type === "human") expect(view.some((v) => v.id === m.id)).toBe(true);
          }
        }
      }),
      // Bounded in time; fast-check prints the seed and path of any failure.
      { numRuns: 120, plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })] },
    );
    // The runs reached every path: pins shown, the opening pinned, excerpts, pins left out, prior messages.
    expect(Object.values(seen).every((count) => count > 0)).toBe(true);
  });
});
