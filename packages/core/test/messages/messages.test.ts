import { AIMessage, AIMessageChunk, ChatMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { hasToolCalls, messageFields, newestRequestIndex, toBaseMessage, toolCallIdOf, toolCallsOf, type MessageInput } from "../../src/messages.js";

const CALL = { id: "c1", name: "search", args: { q: "x" } };
const OPENAI_CALL = { id: "c1", type: "function" as const, function: { name: "search", arguments: '{"q":"x"}' } };
const MALFORMED_OPENAI_CALL = { id: "c1", type: "function" as const, function: { name: "search", arguments: "{" } };
const INVALID_CALL = { id: "c1", name: "search", args: "{", error: "Malformed args." };
const ctor = (name: string, kwargs: Record<string, unknown>) => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", name], kwargs });

/** How the view reads a message's calls: constructed, then `toolCallsOf`. */
const viewCalls = (value: MessageInput) => toolCallsOf(toBaseMessage(value, 0));

// LangChain warns on every message that carries only OpenAI's raw tool calls; the cases below build many.
beforeAll(() => jest.spyOn(console, "warn").mockImplementation(() => undefined));
afterAll(() => jest.restoreAllMocks());

describe("toolCallsOf and hasToolCalls: one rule for every message shape", () => {
  const cases: [string, MessageInput, boolean][] = [
    ["AIMessage with tool_calls", new AIMessage({ content: "", tool_calls: [CALL] }), true],
    ["AIMessage without calls", new AIMessage("done"), false],
    ["AIMessage with only invalid_tool_calls", new AIMessage({ content: "answer", invalid_tool_calls: [INVALID_CALL] }), false],
    ["AIMessage with a legacy function_call", new AIMessage({ content: "answer", additional_kwargs: { function_call: { name: "f", arguments: "{}" } } }), false],
    ["AIMessageChunk with tool_call_chunks", new AIMessageChunk({ content: "", tool_call_chunks: [{ id: "c1", name: "search", args: "{}", index: 0 }] }), true],
    ["ChatMessage of role assistant with OpenAI calls", new ChatMessage({ role: "assistant", content: "", additional_kwargs: { tool_calls: [OPENAI_CALL] } }), true],
    ["HumanMessage", new HumanMessage("hi"), false],
    ["ToolMessage", new ToolMessage({ content: "r", tool_call_id: "c1" }), false],
    ["SystemMessage", new SystemMessage("s"), false],
    ["dict { type: ai, tool_calls }", { type: "ai", content: "", tool_calls: [CALL] }, true],
    ["dict { type: ai } without calls", { type: "ai", content: "done" }, false],
    ["dict with empty tool_calls", { type: "ai", content: "done", tool_calls: [] }, false],
    ["dict with only invalid_tool_calls", { type: "ai", content: "answer", invalid_tool_calls: [INVALID_CALL] }, false],
    ["dict with OpenAI calls in additional_kwargs", { type: "ai", content: "", additional_kwargs: { tool_calls: [OPENAI_CALL] } }, true],
    ["dict with malformed OpenAI calls in additional_kwargs", { type: "ai", content: "answer", additional_kwargs: { tool_calls: [MALFORMED_OPENAI_CALL] } }, false],
    ["dict with a legacy function_call", { type: "ai", content: "answer", additional_kwargs: { function_call: { name: "f", arguments: "{}" } } }, false],
    ["dict { role: assistant } in OpenAI form", { role: "assistant", content: "", tool_calls: [OPENAI_CALL] }, true],
    ["dict with v1 content blocks holding a call", { type: "ai", content: [{ type: "tool_call", ...CALL }], response_metadata: { output_version: "v1" } }, true],
    ["lc constructor AIMessage with calls", ctor("AIMessage", { content: "", tool_calls: [CALL] }), true],
    ["lc constructor AIMessage without calls", ctor("AIMessage", { content: "done" }), false],
    ["lc constructor AIMessageChunk with calls", ctor("AIMessageChunk", { content: "", tool_calls: [CALL] }), true],
    ["stored { type, data } with calls", { type: "ai", data: { content: "", tool_calls: [CALL] } }, true],
    ["stored { type, data } with only invalid calls", { type: "ai", data: { content: "answer", invalid_tool_calls: [INVALID_CALL] } }, false],
  ];

  it.each(cases)("%s", (_name, message, expected) => {
    expect(viewCalls(message).length > 0).toBe(expected);
    expect(hasToolCalls(message, 0)).toBe(expected);
  });

  it("agrees with the view on generated assistant dicts in every serialized shape", () => {
    const fields = fc.record(
      {
        content: fc.constantFrom<unknown>("answer", "", [{ type: "text", text: "answer" }], [{ type: "tool_call", ...CALL }]),
        tool_calls: fc.constantFrom<unknown>([], [CALL], [{ ...CALL, id: undefined }]),
        invalid_tool_calls: fc.constantFrom<unknown>([], [INVALID_CALL]),
        additional_kwargs: fc.constantFrom<unknown>({}, { tool_calls: [OPENAI_CALL] }, { tool_calls: [MALFORMED_OPENAI_CALL] }, { tool_calls: [{ id: "c2" }] }, { function_call: { name: "f", arguments: "{}" } }),
        response_metadata: fc.constantFrom<unknown>({}, { output_version: "v1" }),
      },
      { requiredKeys: ["content"] },
    );
    const shapes = fc.constantFrom(
      (f: Record<string, unknown>) => ({ type: "ai", ...f }),
      (f: Record<string, unknown>) => ({ role: "assistant", ...f }),
      (f: Record<string, unknown>) => ({ type: "ai", data: f }),
      (f: Record<string, unknown>) => ctor("AIMessage", f),
      (f: Record<string, unknown>) => ctor("AIMessageChunk", f),
    );
    fc.assert(
      fc.property(fields, shapes, (f, shape) => {
        const message = shape(f as Record<string, unknown>);
        let expected: boolean;
        try {
          expected = viewCalls(message).length > 0;
        } catch {
          return; // the view refuses it too; evidence reports the same INVALID_MESSAGES
        }
        expect(hasToolCalls(message, 0)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("messageFields", () => {
  it.each<[string, object, unknown]>([
    ["a BaseMessage", new HumanMessage({ id: "h1", content: "hi" }), "h1"],
    ["an lc constructor dict", ctor("HumanMessage", { id: "h1", content: "hi" }), "h1"],
    ["a stored { type, data } dict", { type: "human", data: { id: "h1", content: "hi" } }, "h1"],
    ["a plain dict", { role: "user", id: "h1", content: "hi" }, "h1"],
  ])("reads the fields of %s", (_name, value, id) => {
    expect(messageFields(value)["id"]).toBe(id);
  });
});

describe("toolCallIdOf", () => {
  it.each<[string, MessageInput, string | undefined]>([
    ["a ToolMessage", new ToolMessage({ content: "r", tool_call_id: "c1" }), "c1"],
    ["a tool dict", { role: "tool", content: "r", tool_call_id: "c1" }, "c1"],
    ["a stored tool dict", { type: "tool", data: { content: "r", tool_call_id: "c1" } }, "c1"],
    ["an AIMessage", new AIMessage({ content: "", tool_calls: [CALL] }), undefined],
  ])("reads the call %s answers", (_name, message, expected) => {
    expect(toolCallIdOf(toBaseMessage(message, 0))).toBe(expected);
  });
});

describe("newestRequestIndex", () => {
  it.each<[string, MessageInput[], number, number]>([
    ["no messages", [], 0, -1],
    ["no user message", [new SystemMessage("s"), new AIMessage("a")], 0, -1],
    ["the newest of several", [new HumanMessage("a"), new AIMessage("b"), new HumanMessage("c"), new AIMessage("d")], 0, 2],
    ["a user dict", [{ role: "user", content: "a" }, { role: "assistant", content: "b" }], 0, 0],
    ["nothing at or after `from`", [new HumanMessage("a"), new AIMessage("b")], 1, -1],
  ])("%s", (_name, messages, from, expected) => {
    expect(newestRequestIndex(messages, from)).toBe(expected);
  });
});
