import fc from "fast-check";
import { ContextBudgetError, InMemoryContextStore, createContextManager, type Summarizer } from "@contextview/core";
import { rebuildView, viewRecordOf } from "@contextview/core/internal";
import { conversation, conversationArb, deepFreeze } from "@contextview/test-support";

const summarizer: Summarizer = async (transcript) => `Summary of ${transcript.length} characters.`;

/** A recorded view always rebuilds to the same report from the same messages (DESIGN.md law 7, through the store). */
describe("rebuildView (property)", () => {
  it("rebuilds every recorded view to an equal report, with and without summaries, from LangChain or serialized messages", async () => {
    const seed = Date.now();
    process.stdout.write(`rebuildView property seed ${seed}\n`);
    await fc.assert(
      fc.asyncProperty(
        conversationArb,
        fc.record({ promptBudget: fc.integer({ min: 600, max: 12000 }), summarize: fc.boolean(), serialized: fc.boolean(), keepRecentToolResults: fc.integer({ min: 0, max: 4 }) }),
        async ({ turns, system }, { promptBudget, summarize, serialized, keepRecentToolResults }) => {
          const built = conversation(turns, system);
          const messages = deepFreeze(serialized ? (JSON.parse(JSON.stringify(built)) as Record<string, unknown>[]) : built);
          const store = new InMemoryContextStore();
          const manager = createContextManager({ store, budget: { promptBudget }, keepRecentToolResults, ...(summarize ? { summarizer } : {}) });
          const key = { userId: "u", conversationId: "c" };
          const request = { messages, key, systemPrompt: "Be exact.", memories: ["Prefers EUR."] };
          let view;
          try {
            view = await manager.build(request);
          } catch (error) {
            if (ContextBudgetError.isBudgetError(error)) return;
            throw error;
          }
          const recorded = await store.recordView(key, viewRecordOf(request, view, { source: "property" }));
          const [stored] = await store.listViews(key);
          expect(stored?.record).toEqual(recorded);
          const rebuilt = rebuildView(stored!, messages);
          expect(rebuilt.problems).toEqual([]);
          expect(rebuilt.status).toBe("match");
          expect(rebuilt.view?.messages.length).toBe(view.messages.length);
        },
      ),
      { seed, numRuns: 60, interruptAfterTimeLimit: 60_000 },
    );
  });
});
