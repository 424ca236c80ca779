import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { anthropicOrderProblems, geminiOrderProblems, openAIOrderProblems, providerOrderProblems } from "@contextview/test-support";

// The provider checkers are themselves specified: views every provider accepts pass
// all three; each rule, broken alone, is named by the checkers whose provider has it.
const call = (id: string) => ({ id, name: "search", args: { q: id }, type: "tool_call" as const });
const system = new SystemMessage("You are careful.");
const h0 = new HumanMessage("Find my booking.");
const a0 = new AIMessage({ content: "", tool_calls: [call("c1"), call("c2")] });
const t1 = new ToolMessage({ tool_call_id: "c1", content: "one" });
const t2 = new ToolMessage({ tool_call_id: "c2", content: "two" });
const a1 = new AIMessage("Done.");
const label = new HumanMessage("[Conversation continues.]");
const good: BaseMessage[] = [system, h0, a0, t1, t2, a1];

type Checker = (view: readonly BaseMessage[]) => string[];
const checkers: [string, Checker][] = [
  ["openai", openAIOrderProblems],
  ["anthropic", anthropicOrderProblems],
  ["gemini", geminiOrderProblems],
];

describe("provider order checkers", () => {
  it.each<[string, BaseMessage[]]>([
    ["a tool loop with parallel calls and an answer", good],
    ["no system prompt", good.slice(1)],
    ["results in another order than the calls", [system, h0, a0, t2, t1, a1]],
    ["a labelled tool call after assistant prose", [system, h0, new AIMessage("Let me think."), label, new AIMessage({ content: "", tool_calls: [call("c3")] }), new ToolMessage({ tool_call_id: "c3", content: "x" })]],
    ["a user message after tool results (merged into their user turn)", [system, h0, a0, t1, t2, label, a1]],
    ["calls as Anthropic tool_use blocks with tool_calls", [system, h0, new AIMessage({ content: [{ type: "text", text: "Looking." }, { type: "tool_use", id: "c1", name: "search", input: { q: "c1" } }], tool_calls: [call("c1")] }), t1]],
    ["an image and text blocks in the request", [new HumanMessage({ content: [{ type: "text", text: "See" }, { type: "image_url", image_url: { url: "data:image/png;base64,iVBO" } }] }), a1]],
    ["two user messages before an answer", [system, h0, new HumanMessage("And quickly."), a1]],
  ])("pass %s", (_name, view) => {
    expect(providerOrderProblems(view)).toEqual([]);
  });

  // [rule, view, the providers that refuse it]
  it.each<[string, BaseMessage[], string[]]>([
    ["a system message after the start", [system, h0, new SystemMessage("Later."), a1], ["openai", "anthropic", "gemini"]],
    ["a tool call without its results", [system, h0, a0, t1, a1], ["openai", "anthropic", "gemini"]],
    ["a message between a call and its results", [system, h0, a0, label, t1, t2], ["openai", "anthropic", "gemini"]],
    ["a result without its call", [system, h0, t1, a1], ["openai", "anthropic", "gemini"]],
    ["a result repeated", [system, h0, a0, t1, t2, t1, a1], ["openai", "anthropic", "gemini"]],
    ["a result for another call", [system, h0, a0, t1, t2, new ToolMessage({ tool_call_id: "c9", content: "x" })], ["openai", "anthropic", "gemini"]],
    ["an assistant message first", [system, a1, h0], ["anthropic", "gemini"]],
    ["a tool call right after assistant prose", [system, h0, new AIMessage("Let me think."), new AIMessage({ content: "", tool_calls: [call("c3")] }), new ToolMessage({ tool_call_id: "c3", content: "x" })], ["gemini"]],
    ["two model answers in a row", [system, h0, a1, new AIMessage("Also this.")], ["gemini"]],
    ["an empty user message", [system, new HumanMessage(""), a1], ["anthropic", "gemini"]],
    ["a blank text block", [system, new HumanMessage({ content: [{ type: "text", text: " " }, { type: "text", text: "Hi" }] }), a1], ["anthropic", "gemini"]],
    ["an empty assistant message before the end", [system, h0, new AIMessage(""), new HumanMessage("Well?")], ["anthropic", "gemini"]],
    // Gemini reads no call from a tool_use block: the message has no parts for it.
    ["a tool_use block without its result", [system, h0, new AIMessage({ content: [{ type: "tool_use", id: "c7", name: "search", input: {} }] }), new HumanMessage("Go on.")], ["anthropic", "gemini"]],
  ])("catch %s", (_rule, view, refusing) => {
    const named = checkers.filter(([, check]) => check(view).length > 0).map(([name]) => name);
    expect(named).toEqual(refusing);
  });

  it("say which message breaks which rule", () => {
    expect(openAIOrderProblems([system, h0, a0, t1, a1])).toEqual(["message 2: tool call c2 not answered by the tool messages right after it"]);
    expect(anthropicOrderProblems([system, h0, a0, t1, a1])).toEqual(["message 2: tool_use c2 not answered in the next user turn"]);
    expect(geminiOrderProblems([system, a1, h0])).toEqual(["message 1: the first content is model, not user"]);
    expect(anthropicOrderProblems([system, h0, a0, new HumanMessage("note"), t1, t2])).toEqual(["message 4: tool_result c1 after text in its user turn", "message 5: tool_result c2 after text in its user turn"]);
  });
});
