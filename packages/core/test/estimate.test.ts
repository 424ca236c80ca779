import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { createEstimator, estimateTextTokens } from "@contextview/core";
import { utf8Length } from "@contextview/core/internal";

const estimator = createEstimator();

describe("createEstimator", () => {
  it.each([
    ["", 0],
    ["abc", 2], // a word: 1.08
    ["hello world", 3], // two words
    ["internationalization", 8], // 1.15 + 0.5 × 12 letters past the 8th (1.08 + 6)
    ["1234567", 3], // digits in groups of 3
    ["amount 45", 4], // a word (1.08), then a space token and a digit group (2)
    ['{"id":"tx-0373"}', 9], // 4 punctuation runs, 2 words, 2 digit groups
    ["line\\nnext", 6], // an escaped line break costs 3
    ["a    b\n", 5],
    ["é", 1], // 0.4 per UTF-8 byte
    ["日本語", 4], // 9 bytes
    ["🎉🎉🎉", 5], // 12 bytes
  ])("estimateText(%j) = %d (digit- and symbol-aware)", (text, tokens) => {
    expect(estimator.estimateText(text)).toBe(tokens);
    expect(estimateTextTokens(text)).toBe(tokens);
  });

  it("charges id-dense JSON more than bytes / 3 would, and plain prose less", () => {
    const rows = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ id: `tx-${1000 + i}`, date: `2026-01-${10 + (i % 20)}`, amount: 12.5 + i })));
    const prose = "We decided to keep the monthly grocery budget under four hundred euros and to review it again next month. ".repeat(10);
    expect(estimator.estimateText(rows)).toBeGreaterThan(Math.ceil(utf8Length(rows) / 3));
    expect(estimator.estimateText(prose)).toBeLessThan(Math.ceil(utf8Length(prose) / 3));
  });

  it("counts lone surrogates as the 3-byte replacement character", () => {
    expect(utf8Length("\ud800")).toBe(3);
    expect(utf8Length("a\udc00b")).toBe(5);
  });

  it("adds the per-message overhead", () => {
    expect(estimator.estimateMessage(new HumanMessage("hello"))).toBe(2 + 4);
    expect(estimator.estimateMessage(new HumanMessage("hello"))).toBe(estimateTextTokens("hello") + 4);
    expect(createEstimator({ messageOverhead: 10 }).estimateMessage(new HumanMessage("hello"))).toBe(12);
  });

  it("charges a fixed allowance per image, not its base64 length and not zero", () => {
    const small = `data:image/png;base64,${"A".repeat(100)}`;
    const large = `data:image/png;base64,${"A".repeat(1_000_000)}`;
    const msg = (url: string) => new HumanMessage({ content: [{ type: "text", text: "see" }, { type: "image_url", image_url: { url } }] });
    expect(estimator.estimateMessage(msg(small))).toBe(estimator.estimateMessage(msg(large)));
    expect(estimator.estimateMessage(msg(small))).toBe(4 + 2 + 1024);
    expect(createEstimator({ imageTokens: 85 }).estimateMessage(msg(large))).toBe(4 + 2 + 85);
  });

  it("counts tool-call names, arguments and ids, and tool_call_id", () => {
    const bare = estimator.estimateMessage(new AIMessage({ content: "" }));
    const args = { query: "x".repeat(300) };
    const withCall = estimator.estimateMessage(new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "search", args }] }));
    expect(withCall - bare).toBe(8 + estimateTextTokens("search") + estimateTextTokens(JSON.stringify(args)) + estimateTextTokens("call_1"));
    const result = estimator.estimateMessage(new ToolMessage({ content: "ok", tool_call_id: "call_123456" }));
    expect(result).toBe(4 + 2 + estimateTextTokens("call_123456"));
  });

  it("estimates StructuredTools through their JSON schema, and raw schemas as JSON", () => {
    const search = tool(async () => "", { name: "search_transactions", description: "Search the ledger", schema: z.object({ query: z.string(), limit: z.number().optional() }) });
    const one = estimator.estimateTools([search]);
    expect(one).toBeGreaterThan(20);
    expect(estimator.estimateTools([search, search])).toBe(2 * one);
    const raw = { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } };
    expect(estimator.estimateTools([raw])).toBe(8 + estimateTextTokens(JSON.stringify(raw)));
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
