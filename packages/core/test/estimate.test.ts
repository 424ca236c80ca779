import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { buildContext, createEstimator } from "@contextview/core";
import { estimateTextTokens } from "@contextview/core/estimators";
import { utf8Length } from "../src/text.js";
import { checkEstimator } from "../src/estimate.js";

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

describe("a caller's estimator", () => {
  /** A custom estimator (not made by createEstimator) that counts its text estimates. */
  function counting() {
    const inner = createEstimator();
    const calls = { text: 0 };
    const custom = {
      estimateText: (text: string) => (calls.text++, inner.estimateText(text)),
      estimateMessage: (message: Parameters<typeof inner.estimateMessage>[0]) => inner.estimateMessage(message),
      estimateMessages: (messages: Parameters<typeof inner.estimateMessages>[0]) => inner.estimateMessages(messages),
      estimateTools: (tools: Parameters<typeof inner.estimateTools>[0]) => inner.estimateTools(tools),
    };
    return { custom, calls };
  }

  it("is wrapped once per field: the same wrapper on every call, whose errors name that field", () => {
    const { custom } = counting();
    const first = checkEstimator(custom, "estimator");
    expect(checkEstimator(custom, "estimator")).toBe(first);
    const other = checkEstimator({ ...custom, estimateText: () => -1 }, "options.estimator");
    expect(() => other?.estimateText("x")).toThrow(/`options\.estimator\.estimateText`/);
    expect(checkEstimator(custom, "budget.estimator")).not.toBe(first);
  });

  it("keeps the recall stage's line estimates from one buildContext call to the next", () => {
    const { custom, calls } = counting();
    const messages: BaseMessage[] = [];
    for (let t = 0; t < 150; t++) {
      messages.push(new HumanMessage({ id: `h${t}`, content: `Turn ${t}: my sister likes ${t % 3 === 0 ? "orchids" : "tulips"} and the garden shed needs paint number ${t}.` }));
      messages.push(new AIMessage({ id: `a${t}`, content: `Noted for turn ${t}: ${t % 3 === 0 ? "orchids" : "tulips"}, and paint number ${t} for the shed.` }));
    }
    messages.push(new HumanMessage({ id: "q", content: "Which orchids does my sister like?" }));
    const build = () => buildContext({ messages, budget: { promptBudget: 2000 }, estimator: custom });
    const first = build();
    expect(first.report.recall.recalled).toBeGreaterThan(0);
    const afterFirst = calls.text;
    const second = build();
    expect(second.messages.map((m) => m.content)).toEqual(first.messages.map((m) => m.content));
    // The second call estimates no recalled line again: fewer text estimates than the first.
    expect(calls.text - afterFirst).toBeLessThan(afterFirst);
  });
});
