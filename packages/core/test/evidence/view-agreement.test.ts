import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, InMemoryContextStore, type MessageInput } from "@contextview/core";
import { EVIDENCE_BUCKETS } from "../../src/evidence/index.js";
import { hasToolCalls } from "../../src/messages.js";

const budget = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096 };
const DECISION = "I decided to use UTC everywhere.";

/** A finished turn whose assistant message is `answer`, then the next request. */
function turnWith(answer: MessageInput): MessageInput[] {
  return [
    new SystemMessage({ id: "sys", content: "You are helpful." }),
    new HumanMessage({ id: "h0", content: "Which time zone should the ledger use?" }),
    answer,
    new HumanMessage({ id: "h1", content: "Thanks. Next, the invoices table." }),
  ];
}

async function evidenceIds(messages: readonly MessageInput[]): Promise<string[]> {
  const state = await new InMemoryContextStore().update("u", "c", messages);
  return EVIDENCE_BUCKETS.flatMap((bucket) => state.buckets[bucket].map((entry) => entry.messageId));
}

/** The view's reading of the assistant message: shown as an answer (text, no calls) or as a tool call. */
function viewOf(messages: readonly MessageInput[], id: string): BaseMessage | undefined {
  return buildContext({ messages, budget }).messages.find((m) => m.id === id);
}

describe("evidence and the view agree on what an assistant answer is", () => {
  // Before one `toolCallsOf` rule, evidence counted `invalid_tool_calls` and a legacy
  // `function_call` as tool calls and left these answers' text out, while the view
  // showed them to the model as answers (no ToolMessage can pair with such a call).
  it.each<[string, MessageInput]>([
    ["an answer whose only calls are invalid", new AIMessage({ id: "a0", content: DECISION, invalid_tool_calls: [{ id: "bad", name: "lookup", args: "{", error: "Malformed args." }] })],
    ["an answer with a legacy function_call", new AIMessage({ id: "a0", content: DECISION, additional_kwargs: { function_call: { name: "lookup", arguments: "{}" } } })],
    ["a dict answer whose only calls are invalid", { type: "ai", id: "a0", content: DECISION, invalid_tool_calls: [{ id: "bad", name: "lookup", args: "{", error: "Malformed args." }] }],
  ])("%s is an answer in both", async (_name, answer) => {
    const messages = turnWith(answer);
    expect(hasToolCalls(answer, 2)).toBe(false);
    const shown = viewOf(messages, "a0");
    expect(shown?.type).toBe("ai");
    expect((shown as AIMessage).tool_calls ?? []).toEqual([]);
    expect(await evidenceIds(messages)).toContain("a0");
  });

  it("a tool-calling message is a tool call in both: the view pairs it, evidence keeps no prose of it", async () => {
    const messages: MessageInput[] = [
      new SystemMessage({ id: "sys", content: "You are helpful." }),
      new HumanMessage({ id: "h0", content: "Which time zone should the ledger use?" }),
      { type: "ai", id: "c0", content: DECISION, additional_kwargs: { tool_calls: [{ id: "call0", type: "function", function: { name: "lookup", arguments: "{}" } }] } },
      new ToolMessage({ id: "t0", tool_call_id: "call0", content: "UTC" }),
      new AIMessage({ id: "a0", content: "Done." }),
      new HumanMessage({ id: "h1", content: "Thanks. Next, the invoices table." }),
    ];
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      expect((viewOf(messages, "c0") as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["call0"]);
      expect(await evidenceIds(messages)).not.toContain("c0");
    } finally {
      warn.mockRestore();
    }
  });
});
