import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { compactToolResult } from "@contextview/core/tool-results";
import { SAMPLED_TEXT_CHARS } from "../../src/estimators/large-text.js";
import { estimateTextTokens } from "../../src/estimators/text-tokens.js";

/** A JSON array of `count` rows, over the 64 Ki characters from which compaction is remembered; `prefix` keeps each test's text its own. */
function rows(count: number, prefix: string): string {
  return JSON.stringify(Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, date: `2024-01-${String((i % 28) + 1).padStart(2, "0")}`, amount: i * 1.25, payee: `Payee ${i % 40}` })));
}

function conversation(content: string): BaseMessage[] {
  return [
    new HumanMessage({ id: "h1", content: "List them all." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "all" }, type: "tool_call" }] }),
    new ToolMessage({ id: "t1", tool_call_id: "c1", name: "search", content }),
  ];
}

/** Fresh message objects with the same content, as a checkpointer hands them on the next step. */
function copies(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map((m) => {
    if (m instanceof ToolMessage) return new ToolMessage({ id: m.id!, tool_call_id: m.tool_call_id, name: m.name!, content: m.content });
    if (m instanceof AIMessage) return new AIMessage({ id: m.id!, content: m.content, tool_calls: m.tool_calls! });
    return new HumanMessage({ id: m.id!, content: m.content });
  });
}

/** Counts JSON.parse calls on `text` while `run` runs. */
function parsesOf(text: string, run: () => void): number {
  const spy = jest.spyOn(JSON, "parse");
  try {
    run();
    return spy.mock.calls.filter(([value]) => value === text).length;
  } finally {
    spy.mockRestore();
  }
}

const budget = { promptBudget: 6000 };

describe("a large tool result is read once", () => {
  it("parses its JSON once however many limits it is compacted to", () => {
    const content = rows(3000, "limits");
    const message = new ToolMessage({ tool_call_id: "c1", name: "search", content });
    const outputs: ToolMessage[] = [];
    expect(parsesOf(content, () => [16000, 20000, 16000, 40000].forEach((limit) => outputs.push(compactToolResult(message, limit))))).toBe(1);
    expect(outputs[2]).toEqual(outputs[0]);
    expect(outputs[2]).not.toBe(outputs[0]);
  });

  it("is not parsed again by a second build of the same messages, nor of copies of them, and the views are identical", () => {
    const messages = conversation(rows(3000, "builds"));
    const content = (messages[2] as ToolMessage).content as string;
    let first: ReturnType<typeof buildContext> | undefined;
    expect(parsesOf(content, () => (first = buildContext({ messages, budget })))).toBe(1);
    expect(first!.report.toolResults.compacted + first!.report.toolResults.narrowed).toBe(1);
    let second: ReturnType<typeof buildContext> | undefined;
    let third: ReturnType<typeof buildContext> | undefined;
    expect(parsesOf(content, () => (second = buildContext({ messages, budget })))).toBe(0);
    expect(parsesOf(content, () => (third = buildContext({ messages: copies(messages), budget })))).toBe(0);
    for (const view of [second!, third!]) {
      expect(view.messages).toEqual(first!.messages);
      expect({ ...view.report, elapsedMs: 0 }).toEqual({ ...first!.report, elapsedMs: 0 });
    }
  });

  it("compacts a result in an older turn once, not on every later call", () => {
    const older = conversation(rows(3000, "older"));
    const content = (older[2] as ToolMessage).content as string;
    const later = (n: number) => [...older, new AIMessage({ id: `f${n}`, content: "Here they are." }), new HumanMessage({ id: `h${n}`, content: `And question ${n}?` })];
    expect(parsesOf(content, () => buildContext({ messages: later(2), budget }))).toBe(1);
    expect(parsesOf(content, () => buildContext({ messages: later(3), budget }))).toBe(0);
  });

  it("keeps small results out of the memo: each call reads them as before", () => {
    const content = rows(40, "small");
    const message = new ToolMessage({ tool_call_id: "c1", content });
    expect(parsesOf(content, () => [compactToolResult(message, 300), compactToolResult(message, 300)])).toBe(2);
  });
});

describe("the estimate of a large text", () => {
  it("reads a large text once, for copies of its message too", () => {
    const text = "word ".repeat(20_000);
    const tokenizer = jest.fn((value: string) => Math.ceil(value.length / 4));
    const estimator = createEstimator({ tokenizer });
    const message = new ToolMessage({ tool_call_id: "c1", content: text });
    estimator.estimateText(text);
    estimator.estimateMessage(message);
    estimator.estimateMessage(new ToolMessage({ tool_call_id: "c1", content: text }));
    expect(tokenizer.mock.calls.filter(([value]) => value === text)).toHaveLength(1);
  });

  it("samples a text over 4 Mi characters: bounded, deterministic, and not below the full count", () => {
    const line = "GET /api/items?page=3 200 12ms user=ada@example.com «é» 😀\n";
    const text = line.repeat(Math.ceil((SAMPLED_TEXT_CHARS + 1000) / line.length));
    const exact = estimateTextTokens(text);
    const tokenizer = jest.fn(estimateTextTokens);
    const sampled = createEstimator({ tokenizer }).estimateText(text);
    expect(sampled).toBeGreaterThanOrEqual(exact);
    expect(sampled).toBeLessThanOrEqual(Math.ceil(exact * 1.2));
    expect(tokenizer.mock.calls.reduce((sum, [value]) => sum + value.length, 0)).toBeLessThan(text.length / 3);
    expect(createEstimator().estimateText(text)).toBe(createEstimator().estimateText(text));
  });
});
