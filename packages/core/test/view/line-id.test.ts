import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext } from "@contextview/core";
import { RECALL_LABEL } from "../../src/view/recall.js";
import { ID_TAIL, lineId, matchesLineId, WHOLE_ID } from "../../src/view/line-id";

const budget = { contextWindow: 32768, responseReserve: 4096, promptBudget: 4000 };
/** A UUID-shaped id from a number, as LangGraph gives messages without one (deterministic here). */
const uuid = (n: number) => `${n.toString(16).padStart(8, "0")}-1b7d-4c3e-9a2f-${(n * 7919).toString(16).padStart(12, "0")}`;

/** A 300-turn chat where many turns match the question, with the ids `id` gives. */
function chat(id: (n: number) => string): BaseMessage[] {
  const messages: BaseMessage[] = [];
  for (let i = 0; i < 300; i++) {
    messages.push(new HumanMessage({ id: id(2 * i), content: `Turn ${i}: the garden needed water again and the tomatoes ${i % 3 ? "grew" : "wilted"}.` }));
    messages.push(new AIMessage({ id: id(2 * i + 1), content: `Noted, turn ${i}. Anything else for the week?` }));
  }
  messages.push(new HumanMessage({ id: id(600), content: "What happened to the tomatoes in the garden?" }));
  return messages;
}
const recalledText = (messages: readonly BaseMessage[]) => String(messages[messages.findIndex((m) => m.content === RECALL_LABEL) + 1]?.content ?? "");

describe("a message id in a recalled line", () => {
  it("is whole up to 16 characters, else its last 8 after an ellipsis", () => {
    expect(lineId("D3:12")).toBe("D3:12");
    expect(lineId("x".repeat(WHOLE_ID))).toBe("x".repeat(WHOLE_ID));
    expect(lineId(`a${"x".repeat(WHOLE_ID - 8)}12345678`)).toBe("…12345678");
    expect(lineId("5f3c2a9e-1b7d-4c3e-9a2f-0e8d7c6b5a41")).toBe("…7c6b5a41");
    expect(lineId("5f3c2a9e-1b7d-4c3e-9a2f-0e8d7c6b5a41")).toHaveLength(ID_TAIL + 1);
    expect(matchesLineId("5f3c2a9e-1b7d-4c3e-9a2f-0e8d7c6b5a41", "…7c6b5a41")).toBe(true);
    // Only the shortened form of a long id: not a short id's tail, not a bare tail.
    expect(matchesLineId("msg-0007c6b5a41", "…7c6b5a41")).toBe(false);
    expect(matchesLineId("5f3c2a9e-1b7d-4c3e-9a2f-0e8d7c6b5a41", "7c6b5a41")).toBe(false);
  });

  it("costs a UUID's last characters, not all of it: the same block as with ids that are those characters", () => {
    // dropStep 0: the cache steps' anchors are chosen by the messages' ids, so the older turns would differ.
    const short = buildContext({ messages: chat((n) => lineId(uuid(n))), budget, dropStep: 0 });
    const long = buildContext({ messages: chat(uuid), budget, dropStep: 0 });
    const block = recalledText(long.messages);
    expect(block).toMatch(/\[#\d+ · user · id …[0-9a-f]{8}\]/);
    expect(block).not.toContain("-1b7d-");
    expect(long.report.recall.outcome).toBe("recalled");
    expect(long.report.tokens.total).toBeLessThanOrEqual(long.report.limit);
    // A whole UUID would be about 30 more tokens a line, as much as these turns' text.
    expect(block).toBe(recalledText(short.messages));
    expect(long.report.recall.recalled).toBe(short.report.recall.recalled);
  });
});
