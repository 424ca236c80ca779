// The grounding column of `pnpm eval` (eval/grounding.ts): which argument values count as
// read from the conversation, and when a view shows them.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { appears, grounding } from "../eval/grounding.js";

const call = (id: string, args: Record<string, unknown>, content = "") => new AIMessage({ content, tool_calls: [{ id, name: "lookup", args }] });

test("a value seen earlier counts; the view of its call shows it or not", () => {
  const transcript: BaseMessage[] = [
    new HumanMessage("Check order ORD-1234 please."),
    call("c1", { order: "ORD-1234", date: "2026-09-14" }),
    new ToolMessage({ tool_call_id: "c1", content: JSON.stringify({ order: "ORD-1234", customer: "CUS-77" }) }),
    call("c2", { order: "ORD-1234", customer: "CUS-77", date: "2026-09-14" }),
  ];
  // Call 2 (at index 3) reuses ORD-1234 (user text), CUS-77 (a tool result) and 2026-09-14 (call 1's arguments).
  const shownAll = grounding(transcript, [1, 3], [transcript.slice(0, 1), transcript.slice(0, 3)], [true, true]);
  expect(shownAll).toEqual({ values: 4, visible: 4, ratio: 1, calls: 2 });
  // A view without the tool result shows ORD-1234 and the date (the request, the earlier call) but not CUS-77.
  const withoutResult = grounding(transcript, [1, 3], [transcript.slice(0, 1), transcript.slice(0, 2)], [true, true]);
  expect(withoutResult).toEqual({ values: 4, visible: 3, ratio: 3 / 4, calls: 2 });
  // A view over the limit shows nothing.
  expect(grounding(transcript, [1, 3], [transcript.slice(0, 1), transcript.slice(0, 3)], [true, false]).visible).toBe(1);
});

test("values are whole tokens", () => {
  expect(appears("paid 2500 EUR", "250")).toBe(false);
  expect(appears("paid 250 EUR", "250")).toBe(true);
  expect(appears("id=ORD-1234,", "ORD-1234")).toBe(true);
});
