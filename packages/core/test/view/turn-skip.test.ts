import { buildContext, createEstimator, type Estimator } from "@contextview/core";
import { OPENING_REQUEST_LABEL } from "../../src/view/pinned.js";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** An older turn of `steps` tool exchanges, then the current request. */
function longTurn(steps: number): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ id: "h0", content: "Start a long job" })];
  for (let i = 0; i < steps; i++) {
    messages.push(new AIMessage({ id: `c${i}`, content: "", tool_calls: [{ id: `k${i}`, name: "step", args: { i } }] }));
    messages.push(new ToolMessage({ id: `t${i}`, tool_call_id: `k${i}`, content: `result ${i} `.repeat(20) }));
  }
  messages.push(new AIMessage({ id: "done", content: "All done." }), new HumanMessage({ id: "now", content: "What next?" }));
  return messages;
}

/** The default estimator, counting the messages it is asked to estimate. */
function countingEstimator(): Estimator & { messages: number } {
  const inner = createEstimator();
  const counting = {
    messages: 0,
    estimateText: (text: string) => inner.estimateText(text),
    estimateMessage: (message: BaseMessage) => {
      counting.messages++;
      return inner.estimateMessage(message);
    },
    estimateMessages: (list: readonly BaseMessage[]) => list.reduce((sum, message) => sum + counting.estimateMessage(message), 0),
    estimateTools: (tools: readonly unknown[]) => inner.estimateTools(tools),
  };
  return counting;
}

describe("skipping an older turn that cannot fit", () => {
  it.each([600, 20_000])("estimates no message of an older turn of %i tool exchanges that cannot fit", (steps) => {
    const estimator = countingEstimator();
    const view = buildContext({ messages: longTurn(steps), budget: { promptBudget: 2000 }, estimator, excerptBudget: 0 });
    // The current request, and the opening request pinned (with its label) since its turn left the view.
    expect(view.messages.map((m) => m.id)).toEqual([undefined, "h0", "now"]);
    expect(view.messages[0]?.content).toBe(OPENING_REQUEST_LABEL);
    expect(view.report.pinned.openingRequest?.placement).toBe("pinned");
    // Left out: the part of the older turn the walk read (dropped) and the rest (unread), but h0, pinned from there.
    expect(view.report.messages.dropped + view.report.messages.unread).toBe(2 * steps + 2);
    // What is estimated is what the view keeps and its head, whatever the turn's length.
    expect(estimator.messages).toBeLessThan(20);
    // The turn was read only as far back as needed to know it cannot fit.
    expect(view.report.messages.unread).toBeGreaterThan(steps);
  });

  it("still keeps an older turn that fits, and excerpts a dropped long turn from its two ends", () => {
    const fits = buildContext({ messages: longTurn(3), budget: { promptBudget: 2000 } });
    expect(fits.messages.some((m) => m.id === "done")).toBe(true);
    const dropped = buildContext({ messages: longTurn(5000), budget: { promptBudget: 2000 } });
    const excerpt = dropped.messages.find((m) => m.type === "ai" && String(m.content).includes("Start a long job"));
    expect(String(excerpt?.content)).toContain("All done.");
  });
});
