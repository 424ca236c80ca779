import fc from "fast-check";
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, createEstimator, InMemoryContextStore, type ManagedView } from "@contextview/core";
import { rebuildView, viewRecordOf } from "@contextview/core/internal";
import { toolTurn } from "../support/provider-shapes";
import { budgetOf, loopCalls, loopCaseArb, loopRelation } from "../support/reasoning-loops";

// Issue 50, item 2, through the context manager: within a tool loop whose replies carry
// reasoning, what the loop's first call chose holds — no summary is made mid-loop, older
// results keep their form, the held evidence stays — so each call sends the previous
// call's messages, or them with whole messages gone from the front, then the new step.

const estimator = createEstimator();
const relation = (view: ManagedView, previous: ManagedView) => loopRelation(view.messages, previous.messages);

describe("a reasoning loop through the context manager", () => {
  it("with a summarizer: each call of the loop is the previous one with the step appended, or cut from the front, while the loop itself fits", async () => {
    const seen = { appended: 0, front: 0, other: 0 };
    await fc.assert(
      fc.asyncProperty(loopCaseArb(), async (loopCase) => {
        const { calls, system, turn } = loopCalls(loopCase);
        const budget = budgetOf(loopCase);
        const manager = createContextManager({ budget, store: new InMemoryContextStore(), summarizer: async () => "Summary: the earlier ledgers were reconciled." });
        const key = { userId: "u", conversationId: "c" };
        let previous: ManagedView | undefined;
        for (const [k, messages] of calls.entries()) {
          let view: ManagedView;
          try {
            view = await manager.build({ messages, key });
          } catch {
            return;
          }
          if (previous !== undefined) {
            const r = relation(view, previous);
            // The system message, the request and the loop alone over the limit: no whole message can leave, the view is built as any other.
            const lean = estimator.estimateMessages([system, ...turn.slice(0, 1 + 2 * k)]) > view.report.limit;
            if (!lean) expect(r).not.toBe("other");
            seen[r]++;
          }
          previous = view;
        }
      }),
      { numRuns: 60, seed: 50 },
    );
    expect(seen.appended).toBeGreaterThan(50);
    expect(seen.front).toBeGreaterThan(5);
  });

  it("every call of a loop, appended or cut from the front, is recorded and rebuilds to a match", async () => {
    const history: BaseMessage[] = [new SystemMessage("You reconcile ledgers.")];
    for (let t = 0; t < 6; t++) history.push(...toolTurn("anthropic", t, 2, 900, 400));
    // Eight steps: the last still fits beside the system message and the request, every older turn gone.
    const turn = toolTurn("anthropic", 6, 8, 900);
    const store = new InMemoryContextStore();
    const key = { userId: "u", conversationId: "recorded" };
    const manager = createContextManager({ budget: { promptBudget: 4000 }, store });
    const checkpoints: BaseMessage[][] = [];
    const kinds = new Set<string>();
    let previous: ManagedView | undefined;
    for (let k = 0; k <= 8; k++) {
      const messages = [...history, ...turn.slice(0, 1 + 2 * k)];
      const view = await manager.build({ messages, key });
      await store.recordView(key, viewRecordOf({ key, messages }, view, { source: "test" }));
      checkpoints.push(messages);
      if (previous !== undefined) kinds.add(relation(view, previous));
      previous = view;
    }
    expect([...kinds].sort()).toEqual(["appended", "front"]);
    const stored = await store.listViews(key);
    expect(stored).toHaveLength(checkpoints.length);
    stored.forEach((record, k) => {
      const rebuilt = rebuildView(record, checkpoints[k] as BaseMessage[]);
      expect({ k, status: rebuilt.status, problems: rebuilt.problems }).toEqual({ k, status: "match", problems: [] });
    });
  });
});
