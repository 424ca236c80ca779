// A fuzz suite over the integrations' public API: the node and the wrapper with hostile
// messages and hostile per-request config (`config.configurable.context`, user and
// thread ids). Every call ends in a typed error (ContextViewError, ContextBudgetError,
// ContextIntegrationError) or a view that obeys the laws; inputs are never mutated.
// Bounded in time; the seed is printed on failure (replay with FUZZ_SEED=<seed>).
import { ContextBudgetError, ContextViewError, InMemoryContextStore } from "@contextview/core";
import { ContextIntegrationError, createContextNode, withContext } from "@contextview/langgraph";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import fc from "fast-check";
import { viewProblems } from "@contextview/test-support";
import { fingerprint, messageArb, providersOfInput, runProperty } from "../../core/test/support/hostile";

const typed = (error: unknown) => ContextViewError.isInstance(error) || ContextBudgetError.isBudgetError(error) || ContextIntegrationError.isInstance(error);

const throwingGetter = () => Object.defineProperty({}, "budget", { get: () => { throw new Error("getter"); }, enumerable: true });

/** Per-request settings: mostly valid, sometimes hostile. */
const contextArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>(undefined, {}, { summarize: false }, { budget: { promptBudget: 2000 } }, { dropStep: 0.5, keepRecentToolResults: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(5, "x", [], { budget: { promptBudget: -1 } }, { budgt: {} }, { triggerRatio: 2 }, Object.create(null), { budget: 5 }) },
  { weight: 1, arbitrary: fc.constant(null).map(throwingGetter) },
);

const keyArb = fc.record({
  thread_id: fc.constantFrom<unknown>("t-1", "t-2", "", 5, undefined),
  user_id: fc.constantFrom<unknown>("u-1", "u-2", "", null),
});

describe("fuzz: node and wrapper (typed error or a valid view)", () => {
  const store = new InMemoryContextStore();
  const node = createContextNode({ store, budget: { promptBudget: 4000 } });
  const seen: BaseMessage[][] = [];
  const model = withContext(
    RunnableLambda.from(async (messages: BaseMessage[]) => {
      seen.push(messages);
      return new AIMessage(`saw ${messages.length}`);
    }),
    { store, budget: { promptBudget: 4000 } },
  );

  it("the node and the wrapper over hostile messages and per-request config", () =>
    runProperty(
      "integrations",
      fc.asyncProperty(fc.array(messageArb, { maxLength: 10 }), keyArb, contextArb, fc.boolean(), async (messages, key, context, viaNode) => {
        const configurable: Record<string, unknown> = { ...key };
        if (context !== undefined) configurable["context"] = context;
        const before = fingerprint(messages);
        try {
          if (viaNode) {
            const update = await node.invoke({ messages: messages as never }, { configurable });
            expect(viewProblems({ providers: providersOfInput(messages) }, update.llmInputMessages)).toEqual([]);
          } else {
            seen.length = 0;
            await model.invoke(messages as never, { configurable });
            expect(seen).toHaveLength(1);
            expect(viewProblems({ providers: providersOfInput(messages) }, seen[0] as BaseMessage[])).toEqual([]);
          }
        } catch (error) {
          if (!typed(error)) throw new Error(`untyped ${(error as Error)?.name}: ${(error as Error)?.message}`);
        }
        expect(fingerprint(messages)).toBe(before);
      }),
      200,
    ));
});
