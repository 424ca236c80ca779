import { InMemoryContextStore } from "@contextview/core";
import { LARGE_RESULT_CHARS } from "@contextview/core/tool-results";
import { createContextNode } from "@contextview/langgraph";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { sha256BytesHashed } from "../../core/src/sha256.js";
import { stopLargeResultWorker } from "../src/large-results.js";

/** Rows enough for about `chars` characters of JSON. */
function rowsJson(chars: number, prefix: string): string {
  const row = (i: number) => ({ id: `${prefix}-${i}`, date: "2024-03-01", amount: i * 0.5, payee: `Payee ${i % 30}` });
  return JSON.stringify(Array.from({ length: Math.ceil(chars / 70) }, (_, i) => row(i)));
}

/** A large result two turns before the request, as a checkpoint gives it: new message objects and a new content string on every call. */
function conversation(content: string): BaseMessage[] {
  const copy = JSON.parse(JSON.stringify(content)) as string;
  return [
    new HumanMessage({ id: "h1", content: "Every transaction, please." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "all" }, type: "tool_call" }] }),
    new ToolMessage({ id: "t1", tool_call_id: "c1", name: "search", content: copy }),
    new AIMessage({ id: "f1", content: "Here they are." }),
    new HumanMessage({ id: "h2", content: "Which payee comes up most?" }),
    new AIMessage({ id: "f2", content: "Payee 3." }),
    new HumanMessage({ id: "h3", content: "And the largest amount?" }),
  ];
}

afterAll(() => stopLargeResultWorker());

describe("a large result in an older turn", () => {
  it("is hashed once, not on every later call of the node (evidence and view records read its digest back), and the view is the same", async () => {
    const content = rowsJson(LARGE_RESULT_CHARS * 2, "older");
    const node = createContextNode({ store: new InMemoryContextStore(), budget: { contextWindow: 32768, promptBudget: 8000 } });
    const config = { configurable: { thread_id: "older-turn", user_id: "u" } };
    const first = await node.invoke({ messages: conversation(content) }, config);
    const before = sha256BytesHashed();
    const later = await node.invoke({ messages: conversation(content) }, config);
    expect(sha256BytesHashed() - before).toBeLessThan(content.length / 8);
    expect(later.llmInputMessages).toEqual(first.llmInputMessages);
  });
});
