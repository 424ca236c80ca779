// A tool loop whose replies carry reasoning is sent as its first call's view with the loop
// appended (reasoning-loop.ts). loopParts decides beforehand, from the loop alone, when no
// view could go on from the first call's: then the view is built once, not first as the
// first call's view and again as any other.
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { findTurns } from "../../src/view/find-turns.js";
import { loopParts, reasoningLoop } from "../../src/view/reasoning-loop.js";
import { assistantStep, resultText, toolTurn } from "../support/provider-shapes";

const estimator = createEstimator();

/** Older turns, then a request answered by a loop of `steps` reasoning steps with results of `chars` characters. */
function loopConversation(steps: number, chars: number): BaseMessage[] {
  const messages: BaseMessage[] = [...toolTurn("anthropic", 0, 2, 800), new HumanMessage({ id: "req", content: "Reconcile the March ledger." })];
  for (let s = 0; s < steps; s++) {
    messages.push(assistantStep("anthropic", `loop${s}`, `Step ${s}: checking.`, `lc${s}`));
    messages.push(new ToolMessage({ id: `lr${s}`, tool_call_id: `lc${s}`, name: "lookup", content: resultText(`L${s}`, chars) }));
  }
  return messages;
}

function partsOf(messages: BaseMessage[], limit: number) {
  const walk = findTurns(messages);
  const loop = reasoningLoop(walk, false);
  if (loop === undefined) throw new Error("not a reasoning loop");
  return loopParts(walk, loop, estimator, false, limit);
}

describe("loopParts: whether a view may go on from the loop's first call", () => {
  it("prepares the request and the whole turn once, when the loop fits beside the request", () => {
    const messages = loopConversation(3, 400);
    const parts = partsOf(messages, 8000);
    expect(parts).toBeDefined();
    expect(parts!.request.messages.map((m) => m.id)).toEqual(["req"]);
    expect(parts!.turn.messages.length).toBe(7);
    expect(parts!.turn.tokens).toBe(estimator.estimateMessages(parts!.turn.messages));
  });

  it("says no when the request and the loop alone exceed the limit: no first view could hold them", () => {
    const messages = loopConversation(6, 4000);
    const turnTokens = estimator.estimateMessages(messages.slice(messages.findIndex((m) => m.id === "req")));
    expect(partsOf(messages, turnTokens - 1)).toBeUndefined();
    expect(partsOf(messages, turnTokens)).toBeDefined();
    // The view is still built, as any other (its results compacted to fit), with the newest result.
    const view = buildContext({ messages, budget: { promptBudget: turnTokens - 1 } });
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    expect(view.report.currentTurn.form).not.toBe("whole");
    expect(view.messages.some((m) => m.id === "lr5")).toBe(true);
  });

  it("says no when the loop holds an orphan result, which a view leaves out", () => {
    const messages = loopConversation(3, 400);
    messages.splice(messages.length - 1, 0, new ToolMessage({ id: "ghost", tool_call_id: "nobody", content: "late result" }));
    expect(partsOf(messages, 8000)).toBeUndefined();
  });
});
