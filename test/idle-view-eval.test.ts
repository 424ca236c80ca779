import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { summaryMessage } from "../packages/core/src/summarize/summary-message.js";
import { idleView, summarizedBefore } from "../eval/metrics.js";

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

  it("counts a turn a shown summary stands for as in its summary form, not left out", () => {
    // contextview's summary of the first 4 messages (turn 0): nothing is left out.
    const summarized = [summaryMessage("Turn 0 searched.", 4), ...view];
    expect(summarizedBefore(summarized, history)).toBe(4);
    expect(idleView(summarized, history, used * 4, used, count)).toBe(false);
    // LangChain's summary in place of every message before the first one kept after it.
    const langchain = [new HumanMessage({ content: "Here is a summary of the conversation to date: …", additional_kwargs: { lc_source: "summarization" } }), ...view];
    expect(summarizedBefore(langchain, history)).toBe(4);
    expect(idleView(langchain, history, used * 4, used, count)).toBe(false);
  });

  it("still finds the newest turn left out after the summary's span", () => {
    // Three turns; the summary stands for turn 0 only; turn 1 is neither shown nor summarized.
    const longer = [...turn(0, 300), ...turn(1, 30_000).map((m) => withId(m, "b")), ...turn(2, 300).map((m) => withId(m, "c")), history[8]!];
    const shownView = [summaryMessage("Turn 0 searched.", 4), ...longer.slice(8)];
    const usedHere = count(shownView);
    expect(summarizedBefore(shownView, longer)).toBe(4);
    expect(idleView(shownView, longer, usedHere * 4, usedHere, count)).toBe(true);
    // A view with no summary and no left-out turn counts 0 summarized messages.
    expect(summarizedBefore(history, history)).toBe(0);
  });
});

/** `message` with its id (and its call's id) prefixed by `tag`, as another turn's. */
function withId(message: BaseMessage, tag: string): BaseMessage {
  if (message instanceof ToolMessage) return new ToolMessage({ id: `${tag}${message.id}`, tool_call_id: `${tag}${message.tool_call_id}`, content: message.content });
  if (message instanceof AIMessage) {
    const calls = (message.tool_calls ?? []).map((call) => ({ ...call, id: `${tag}${call.id}` }));
    return new AIMessage({ id: `${tag}${message.id}`, content: message.content, tool_calls: calls });
  }
  return new HumanMessage({ id: `${tag}${message.id}`, content: message.content });
}
