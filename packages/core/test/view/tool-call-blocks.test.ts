import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, InMemoryContextStore, type MessageInput } from "@contextview/core";
import { deepFreeze, snapshot, viewProblems } from "@contextview/test-support";
import { copyMessage, hasToolCalls, toBaseMessage, toolCallsOf } from "../../src/messages.js";

// Issue 24, item 9: an assistant message whose content holds a tool call as a block
// (Anthropic's `tool_use`, LangChain v1's `tool_call`, a streamed fragment) but whose
// `tool_calls` is empty — a provider adapter's or a hand-built message. The rule: such a
// block is a tool call (LangChain derives `tool_calls` from these blocks the same way),
// so it pairs with its results, is left out and counted without them, and its prose is
// never evidence.

const PROSE = "PROSE-SECRET: I decided to look up the ledger first.";
const budget = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096 };
const toolUse = (id: string, input: unknown = { q: "ledger" }) => ({ type: "tool_use", id, name: "lookup", input });
/** An AIMessage with prose and a raw `tool_use` block and no `tool_calls`. */
const rawCall = (id = "a1", callId = "toolu_1") => new AIMessage({ id, content: [{ type: "text", text: PROSE }, toolUse(callId)] });

describe("toolCallsOf reads tool-call content blocks", () => {
  it.each<[string, MessageInput, { id: string | undefined; name: string; args: unknown }[]]>([
    ["a tool_use block", rawCall(), [{ id: "toolu_1", name: "lookup", args: { q: "ledger" } }]],
    ["a tool_use block whose input is streamed JSON text", new AIMessage({ content: [toolUse("toolu_1", '{"q":"ledger"}')] }), [{ id: "toolu_1", name: "lookup", args: { q: "ledger" } }]],
    ["a tool_use block with empty streamed input", new AIMessage({ content: [toolUse("toolu_1", "")] }), [{ id: "toolu_1", name: "lookup", args: {} }]],
    ["a v1 tool_call block outside v1 output", new AIMessage({ content: [{ type: "tool_call", id: "c1", name: "lookup", args: { q: 1 } }] }), [{ id: "c1", name: "lookup", args: { q: 1 } }]],
    ["a dict with a tool_use block", { type: "ai", content: [toolUse("toolu_1")] }, [{ id: "toolu_1", name: "lookup", args: { q: "ledger" } }]],
    ["a stored dict with a tool_use block", { type: "ai", data: { content: [toolUse("toolu_1")] } }, [{ id: "toolu_1", name: "lookup", args: { q: "ledger" } }]],
    [
      "a tool_use block already in tool_calls (ChatAnthropic's own shape): one call",
      new AIMessage({ content: [toolUse("toolu_1")], tool_calls: [{ id: "toolu_1", name: "lookup", args: { q: "ledger" } }] }),
      [{ id: "toolu_1", name: "lookup", args: { q: "ledger" } }],
    ],
    [
      "a tool_use block beside another call in tool_calls: both",
      new AIMessage({ content: [toolUse("toolu_2")], tool_calls: [{ id: "toolu_1", name: "lookup", args: {} }] }),
      [
        { id: "toolu_1", name: "lookup", args: {} },
        { id: "toolu_2", name: "lookup", args: { q: "ledger" } },
      ],
    ],
    ["an input_json_delta of a tool_use block in the same message: one call", new AIMessage({ content: [{ ...toolUse("toolu_1", ""), index: 1 }, { type: "input_json_delta", index: 1, input: "{}" }] }), [{ id: "toolu_1", name: "lookup", args: {} }]],
    ["an input_json_delta alone: a call without an id", new AIMessage({ content: [{ type: "input_json_delta", index: 0, input: '{"q":1}' }] }), [{ id: undefined, name: "", args: { q: 1 } }]],
    ["a server_tool_use block (run by the provider): no call", new AIMessage({ content: [{ type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} }] }), []],
    ["a HumanMessage never has calls", new HumanMessage({ content: [{ type: "text", text: "hi" }] }), []],
  ])("%s", (_name, value, expected) => {
    const calls = toolCallsOf(toBaseMessage(value, 0)).map((call) => ({ id: call.id, name: call.name, args: call.args }));
    expect(calls).toEqual(expected);
    expect(hasToolCalls(value, 0)).toBe(expected.length > 0);
  });

  it("a copy carries the calls in tool_calls and keeps the block: read again, the same calls", () => {
    const message = rawCall();
    const copy = copyMessage(message, "ai") as AIMessage;
    expect(copy.tool_calls?.map((call) => call.id)).toEqual(["toolu_1"]);
    expect(copy.content).toEqual(message.content);
    expect(toolCallsOf(copy)).toEqual(toolCallsOf(message));
    expect(message.tool_calls).toEqual([]);
  });
});

describe("a raw tool_use message in a view", () => {
  it("with its result, it is a normal exchange: paired, in order, every law holds", () => {
    const messages = deepFreeze<BaseMessage[]>([
      new SystemMessage({ id: "sys", content: "You are helpful." }),
      new HumanMessage({ id: "h0", content: "What is in the ledger?" }),
      rawCall(),
      new ToolMessage({ id: "t1", tool_call_id: "toolu_1", content: "rent 900" }),
      new AIMessage({ id: "a2", content: "Rent is 900." }),
      new HumanMessage({ id: "h1", content: "And groceries?" }),
    ]);
    const before = snapshot(messages);
    const view = buildContext({ messages, budget });
    expect(view.messages.map((m) => m.type)).toEqual(["system", "human", "ai", "tool", "ai", "human"]);
    expect(view.messages.slice(1).map((m) => m.id)).toEqual(["h0", "a1", "t1", "a2", "h1"]);
    expect((view.messages[2] as AIMessage).tool_calls?.map((call) => call.id)).toEqual(["toolu_1"]);
    expect(view.report.unfinishedCalls).toBe(0);
    expect(view.report.orphanResults).toBe(0);
    expect(viewProblems({ conversation: messages, messages, before, limit: 16000, requireUserMessage: true, awaitsAnswer: true }, view)).toEqual([]);
  });

  it("as the current turn's newest exchange with its result, it is kept", () => {
    const messages = [new HumanMessage({ id: "h0", content: "What is in the ledger?" }), rawCall(), new ToolMessage({ id: "t1", tool_call_id: "toolu_1", content: "rent 900" })];
    const view = buildContext({ messages, budget });
    expect(view.messages.map((m) => m.id)).toEqual(["h0", "a1", "t1"]);
    expect(viewProblems({ conversation: messages, limit: 16000 }, view)).toEqual([]);
  });

  it.each<[string, BaseMessage[]]>([
    ["in an older turn", [new HumanMessage({ id: "h0", content: "What is in the ledger?" }), rawCall(), new AIMessage({ id: "a2", content: "Sorry, no." }), new HumanMessage({ id: "h1", content: "And groceries?" })]],
    ["as the newest message", [new HumanMessage({ id: "h0", content: "What is in the ledger?" }), rawCall()]],
  ])("without a result (%s), it is an unfinished call: left out and counted", (_name, messages) => {
    const view = buildContext({ messages, budget });
    expect(view.messages.map((m) => m.id)).not.toContain("a1");
    expect(view.report.unfinishedCalls).toBe(1);
    expect(JSON.stringify(view.messages)).not.toContain("toolu_1");
    expect(viewProblems({ conversation: messages, limit: 16000, requireUserMessage: true }, view)).toEqual([]);
  });

  it("a result answering a different id leaves the call unfinished and the result an orphan", () => {
    const messages = [
      new HumanMessage({ id: "h0", content: "What is in the ledger?" }),
      rawCall(),
      new ToolMessage({ id: "t1", tool_call_id: "other", content: "rent 900" }),
      new HumanMessage({ id: "h1", content: "And groceries?" }),
    ];
    const view = buildContext({ messages, budget });
    expect(view.messages.map((m) => m.id)).toEqual(["h0", "h1"]);
    expect(view.report.unfinishedCalls).toBe(1);
    expect(view.report.orphanResults).toBe(1);
  });
});

describe("evidence never keeps the prose of a raw tool_use message", () => {
  it.each<[string, (m: AIMessage) => MessageInput]>([
    ["as a message", (m) => m],
    ["as a dict", (m) => ({ type: "ai", id: m.id, content: m.content })],
    ["as a stored dict", (m) => ({ type: "ai", data: { id: m.id, content: m.content } })],
  ])("%s, answered or not", async (_name, shape) => {
    for (const answered of [true, false]) {
      const messages: MessageInput[] = [
        new SystemMessage({ id: "sys", content: "You are helpful." }),
        new HumanMessage({ id: "h0", content: "What is in the ledger?" }),
        shape(rawCall()),
        ...(answered ? [new ToolMessage({ id: "t1", tool_call_id: "toolu_1", content: "rent 900" })] : []),
        new AIMessage({ id: "a2", content: "Rent is 900, we decided." }),
        new HumanMessage({ id: "h1", content: "And groceries?" }),
      ];
      const state = await new InMemoryContextStore().update("u", "c", messages);
      const json = JSON.stringify(state);
      expect(json).not.toContain("PROSE-SECRET");
      expect(json).toContain("Rent is 900");
    }
  });
});

describe("the law checker reads raw call blocks on its own", () => {
  it("a view sending a tool_use block without its result breaks 'tool calls answered'", () => {
    const sent = [new HumanMessage({ id: "h0", content: "What is in the ledger?" }), rawCall(), new HumanMessage({ id: "h1", content: "And groceries?" })];
    expect(viewProblems({}, sent).map((p) => p.law)).toContain("tool calls answered");
  });
});
