import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createEstimator, utf8Length } from "@contextview/core";

const estimator = createEstimator();

describe("createEstimator", () => {
  it.each([
    ["", 0],
    ["abc", 1],
    ["abcd", 2],
    ["é", 1], // 2 bytes
    ["日本語", 3], // 9 bytes
    ["🎉🎉🎉", 4], // 12 bytes
  ])("estimateText(%j) = %d (ceil of UTF-8 bytes / 3)", (text, tokens) => {
    expect(estimator.estimateText(text)).toBe(tokens);
  });

  it("counts lone surrogates as the 3-byte replacement character", () => {
    expect(utf8Length("\ud800")).toBe(3);
    expect(utf8Length("a\udc00b")).toBe(5);
  });

  it("adds the per-message overhead", () => {
    expect(estimator.estimateMessage(new HumanMessage("hello"))).toBe(2 + 4);
    expect(createEstimator({ messageOverhead: 10 }).estimateMessage(new HumanMessage("hello"))).toBe(12);
  });

  it("charges a fixed allowance per image, not its base64 length and not zero", () => {
    const small = `data:image/png;base64,${"A".repeat(100)}`;
    const large = `data:image/png;base64,${"A".repeat(1_000_000)}`;
    const msg = (url: string) => new HumanMessage({ content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url } }] });
    expect(estimator.estimateMessage(msg(small))).toBe(estimator.estimateMessage(msg(large)));
    expect(estimator.estimateMessage(msg(small))).toBe(4 + 1 + 1024);
    expect(createEstimator({ imageTokens: 85 }).estimateMessage(msg(large))).toBe(4 + 1 + 85);
  });

  it("counts tool-call names, arguments and ids, and tool_call_id", () => {
    const bare = estimator.estimateMessage(new AIMessage({ content: "" }));
    const args = { query: "x".repeat(300) };
    const withCall = estimator.estimateMessage(new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "search", args }] }));
    expect(withCall - bare).toBe(8 + 2 + Math.ceil(JSON.stringify(args).length / 3) + 2);
    const result = estimator.estimateMessage(new ToolMessage({ content: "ok", tool_call_id: "call_123456" }));
    expect(result).toBe(4 + 1 + 4);
  });

  it("estimates StructuredTools through their JSON schema, and raw schemas as JSON", () => {
    const search = tool(async () => "", { name: "search_transactions", description: "Search the ledger", schema: z.object({ query: z.string(), limit: z.number().optional() }) });
    const one = estimator.estimateTools([search]);
    expect(one).toBeGreaterThan(20);
    expect(estimator.estimateTools([search, search])).toBe(2 * one);
    const raw = { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } };
    expect(estimator.estimateTools([raw])).toBe(8 + Math.ceil(JSON.stringify(raw).length / 3));
  });

  it("plugs in a tokenizer and scales", () => {
    const words = createEstimator({ tokenizer: (text) => text.split(/\s+/).filter(Boolean).length, messageOverhead: 0 });
    expect(words.estimateMessage(new HumanMessage("one two three"))).toBe(3);
    expect(createEstimator({ scale: 1.5 }).estimateMessage(new HumanMessage("hello"))).toBe(9);
  });

  it("is deterministic and follows content changes on the same object", () => {
    const message = new HumanMessage("short");
    const first = estimator.estimateMessage(message);
    expect(estimator.estimateMessage(message)).toBe(first);
    message.content = "a much longer content than before";
    expect(estimator.estimateMessage(message)).toBeGreaterThan(first);
  });

  it.each([
    [{ messageOverhead: -1 }, "messageOverhead"],
    [{ imageTokens: 1.5 }, "imageTokens"],
    [{ scale: 0 }, "scale"],
    [{ tokenizer: 5 }, "tokenizer"],
  ])("rejects %j", (options, field) => {
    expect(() => createEstimator(options as never)).toThrow(new RegExp(`\`${field}\``));
  });
});
