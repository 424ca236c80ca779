import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { buildContext, ContextViewError, createEstimator } from "@contextview/core";
import { createTiktokenEstimator, estimateTextTokens, type TiktokenEncoding } from "@contextview/core/estimators";

const o200kEncoding = new Tiktoken(o200k);
const cl100kEncoding = new Tiktoken(cl100k);

/** An encoding that counts what it is asked to encode. */
function countingEncoding(inner: TiktokenEncoding) {
  const encoded: string[] = [];
  return { encoded, encode: (text: string, a?: "all" | string[], d?: "all" | string[]) => (encoded.push(text), inner.encode(text, a, d)) };
}

describe("createTiktokenEstimator", () => {
  it.each([
    ["o200k_base", o200kEncoding],
    ["cl100k_base", cl100kEncoding],
  ])("%s: counts text exactly, with createEstimator's overheads", (_name, encoding) => {
    const estimator = createTiktokenEstimator(encoding);
    const text = '{"id":"tx-0373","amount":45.89} and some prose';
    expect(estimator.estimateText(text)).toBe(encoding.encode(text).length);
    expect(estimator.estimateMessage(new HumanMessage(text))).toBe(encoding.encode(text).length + 4);
    const call = new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "search", args: { q: "rent" } }] });
    const exact = (t: string) => encoding.encode(t).length;
    expect(estimator.estimateMessage(call)).toBe(4 + 8 + exact("search") + exact('{"q":"rent"}') + exact("call_1"));
    expect(createTiktokenEstimator(encoding, { messageOverhead: 3 }).estimateMessage(new HumanMessage(text))).toBe(exact(text) + 3);
  });

  it("counts special-token text as plain text instead of throwing", () => {
    const estimator = createTiktokenEstimator(o200kEncoding);
    expect(estimator.estimateText("<|endoftext|> hi")).toBeGreaterThan(3);
  });

  it("encodes only what the walk reads: a long history costs what the view keeps", () => {
    const encoding = countingEncoding(o200kEncoding);
    const estimator = createTiktokenEstimator(encoding);
    const messages: BaseMessage[] = [];
    for (let i = 0; i < 2000; i++) messages.push(i % 2 === 0 ? new HumanMessage(`question ${i} ${"word ".repeat(40)}`) : new AIMessage(`answer ${i} ${"word ".repeat(40)}`));
    const view = buildContext({ messages, estimator, budget: { promptBudget: 2000 } });
    expect(view.report.messages.unread).toBeGreaterThan(1500);
    expect(encoding.encoded.filter((t) => /^(question|answer) \d+/.test(t)).length).toBeLessThan(200);
  });

  it("charges texts past maxExactChars the default estimate without encoding them", () => {
    const encoding = countingEncoding(o200kEncoding);
    const long = "row 12345, ".repeat(10_000);
    const estimator = createTiktokenEstimator(encoding, { maxExactChars: 1000 });
    expect(estimator.estimateText(long)).toBe(estimateTextTokens(long));
    expect(encoding.encoded).toHaveLength(0);
  });

  it.each([
    [{}, "encoding"],
    [null, "encoding"],
  ])("rejects %p as the encoding, naming it", (encoding, field) => {
    expect(() => createTiktokenEstimator(encoding as never)).toThrow(new RegExp(`\`${field}\``));
  });

  it.each([0, -1, 1.5, Number.NaN])("rejects maxExactChars %p", (value) => {
    expect(() => createTiktokenEstimator(o200kEncoding, { maxExactChars: value })).toThrow(ContextViewError);
  });
});

describe("createEstimator({ tokenCounter })", () => {
  /** A LangChain-style counter: 1 token per 4 characters of content plus 3 per message. */
  const tokenCounter = (messages: BaseMessage[]) => messages.reduce((n, m) => n + 3 + Math.ceil(String(m.content).length / 4), 0);

  it("counts each message alone, a text without the framing, tools as JSON text", () => {
    const estimator = createEstimator({ tokenCounter });
    expect(estimator.estimateMessage(new HumanMessage("12345678"))).toBe(5);
    expect(estimator.estimateMessages([new HumanMessage("12345678"), new ToolMessage({ content: "1234", tool_call_id: "c" })])).toBe(5 + 4);
    expect(estimator.estimateText("12345678")).toBe(2);
    expect(estimator.estimateText("")).toBe(0);
    const schema = { type: "function", function: { name: "f", parameters: { type: "object", properties: {} } } };
    expect(estimator.estimateTools([schema])).toBe(8 + Math.ceil(JSON.stringify(schema).length / 4));
  });

  it("drives buildContext like any estimator", () => {
    const messages = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? new HumanMessage(`q${i} ${"x".repeat(400)}`) : new AIMessage(`a${i} ${"y".repeat(400)}`)));
    const view = buildContext({ messages, estimator: createEstimator({ tokenCounter }), budget: { promptBudget: 1000 } });
    expect(view.report.tokens.total).toBeLessThanOrEqual(1000);
    expect(view.report.tokens.total).toBe(view.messages.reduce((n, m) => n + tokenCounter([m]), 0));
  });

  it("rejects an asynchronous or non-numeric counter when it is called, naming `tokenCounter`", () => {
    const asyncCounter = createEstimator({ tokenCounter: (async () => 3) as never });
    expect(() => asyncCounter.estimateMessage(new HumanMessage("x"))).toThrow(/`tokenCounter`.*got a Promise/);
    const nan = createEstimator({ tokenCounter: () => Number.NaN });
    expect(() => nan.estimateMessage(new HumanMessage("x"))).toThrow(ContextViewError);
    expect(() => createEstimator({ tokenCounter: 5 as never })).toThrow(/`tokenCounter`/);
  });

  it.each([
    ["toolOverhead", -1],
    ["scale", 0],
    ["scale", Number.NaN],
  ] as const)("checks `%s` (%p) beside a tokenCounter as it does without one", (field, value) => {
    expect(() => createEstimator({ tokenCounter, [field]: value })).toThrow(new RegExp(`\`${field}\``));
    expect(() => createEstimator({ [field]: value })).toThrow(new RegExp(`\`${field}\``));
  });

  it("applies `scale` to what the counter returns", () => {
    expect(createEstimator({ tokenCounter, scale: 2 }).estimateMessage(new HumanMessage("12345678"))).toBe(10);
  });
});
