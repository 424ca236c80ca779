import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { idleView } from "../eval/metrics.js";

// The eval's "idle views" column (issue 48): a view that leaves more than a quarter of the
// limit unused while the newest turn it leaves out would fit with its results cleared.
const estimator = createEstimator();
const count = (messages: readonly BaseMessage[]) => estimator.estimateMessages(messages);

/** A turn whose bulk is one tool result of `chars` characters. */
function turn(i: number, chars: number): BaseMessage[] {
  return [
    new HumanMessage({ id: `h${i}`, content: `Question ${i}?` }),
    new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "search", args: { i }, type: "tool_call" }] }),
    new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: "x".repeat(chars) }),
    new AIMessage({ id: `f${i}`, content: `Answer ${i}.` }),
  ];
}

describe("idleView", () => {
  const history = [...turn(0, 30_000), ...turn(1, 300), new HumanMessage({ id: "q", content: "And now?" })];
  // The view keeps turn 1 and the request: turn 0 is left out, and cleared it is small.
  const view = history.slice(4);
  const used = count(view);

  it("is idle when more than a quarter of the limit is unused and the turn left out fits cleared", () => {
    expect(idleView(view, history, used * 4, used, count)).toBe(true);
  });

  it("is not idle when at most a quarter is unused, or when the turn left out does not fit even cleared", () => {
    expect(idleView(view, history, Math.floor((used * 4) / 3), used, count)).toBe(false);
    const huge = [new HumanMessage({ id: "h0", content: "y".repeat(60_000) }), ...history.slice(1)];
    expect(idleView(view, huge, used * 4, used, count)).toBe(false);
  });

  it("looks past turns the view shows, and finds none left out when it shows every turn", () => {
    // Only the request shown, turn 1 left out too: the newest left out is turn 1, which fits cleared.
    expect(idleView([history[8]!], history, 10_000, count([history[8]!]), count)).toBe(true);
    expect(idleView(history, history, count(history) * 4, count(history), count)).toBe(false);
  });
});
