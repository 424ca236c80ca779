import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { compactionMarkerOf, microCompact } from "@contextview/core/tool-results";
import { isClearedToolResult } from "../../src/compact/index.js";
import { textOf } from "../../src/messages.js";
import { financeReport } from "../fixtures/compaction/finance.js";
import { transactionSearch } from "../fixtures/compaction/transaction-search.js";
import { deepFreeze } from "@contextview/test-support";

function exchange(n: number, result: string, artifact?: unknown): BaseMessage[] {
  return [
    new AIMessage({ content: "", tool_calls: [{ id: `call-${n}`, name: `tool_${n}`, args: { n } }] }),
    new ToolMessage({ content: result, tool_call_id: `call-${n}`, name: `tool_${n}`, id: `result-${n}`, ...(artifact ? { artifact } : {}) }),
  ];
}

function history(results: number, big = false): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage("start")];
  for (let n = 1; n <= results; n++) {
    const artifact = big ? transactionSearch(30) : undefined;
    messages.push(...exchange(n, big ? JSON.stringify(artifact) : `result ${n}`, artifact));
  }
  messages.push(new HumanMessage("next"));
  return messages;
}

const toolResults = (messages: readonly BaseMessage[]) => messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));

describe("microCompact", () => {
  it.each([
    [5, 3, 2],
    [5, 0, 5],
    [2, 3, 0],
    [0, 3, 0],
  ])("with %i results and keepRecent %i clears %i", (results, keepRecent, expected) => {
    const input = history(results);
    const { messages, cleared, compacted } = microCompact(input, { keepRecent });
    expect(cleared).toBe(expected);
    expect(compacted).toBe(0);
    expect(messages).toHaveLength(input.length);
    const flags = toolResults(messages).map(isClearedToolResult);
    expect(flags).toEqual(Array.from({ length: results }, (_, i) => i < expected));
  });

  it("keeps positions, ids, names and pairing, and says how to get the original back", () => {
    const input = history(4);
    const { messages } = microCompact(input, { keepRecent: 1 });
    messages.forEach((message, i) => {
      expect(message.getType()).toBe(input[i]!.getType());
      if (ToolMessage.isInstance(message)) {
        const original = input[i] as ToolMessage;
        expect([message.tool_call_id, message.name, message.id]).toEqual([original.tool_call_id, original.name, original.id]);
        expect((input[i - 1] as AIMessage).tool_calls?.[0]?.id).toBe(message.tool_call_id);
      }
    });
    const notice = textOf(messages[2]!.content);
    expect(notice).toContain("tool_call_id call-1");
    expect(notice).toContain("`tool_1`");
    expect(notice).toMatch(/checkpoint; call the tool again/);
    expect(compactionMarkerOf(messages[2]!)).toEqual({ form: "cleared", originalTokens: createEstimator().estimateText("result 1") });
  });

  it("returns unchanged messages as the same objects and never mutates the input", () => {
    const input = deepFreeze(history(4));
    const before = input.map((m) => JSON.stringify(m.toDict()));
    const { messages } = microCompact(input, { keepRecent: 2 });
    messages.forEach((message, i) => {
      const cleared = ToolMessage.isInstance(message) && isClearedToolResult(message);
      if (cleared) expect(message).not.toBe(input[i]);
      else expect(message).toBe(input[i]);
    });
    expect(input.map((m) => JSON.stringify(m.toDict()))).toEqual(before);
  });

  it("is idempotent: cleared markers are left as they are and not counted again", () => {
    const first = microCompact(history(5, true), { keepRecent: 2, maxResultTokens: 1100 });
    expect(first.cleared).toBe(3);
    expect(first.compacted).toBe(2);
    const second = microCompact(first.messages, { keepRecent: 2, maxResultTokens: 1100 });
    expect(second.cleared).toBe(0);
    expect(second.compacted).toBe(0);
    second.messages.forEach((message, i) => expect(message).toBe(first.messages[i]));
  });

  it("compacts kept results over maxResultTokens structurally", () => {
    const { messages, compacted } = microCompact(history(2, true), { keepRecent: 2, maxResultTokens: 1100 });
    expect(compacted).toBe(2);
    const estimator = createEstimator();
    for (const result of toolResults(messages)) {
      expect(estimator.estimateText(textOf(result.content))).toBeLessThanOrEqual(1100);
      expect(JSON.parse(textOf(result.content)).results).toMatchObject({ $compacted: "rows", returned: 30 });
    }
  });

  it("compacts plain text results as a beginning and end", () => {
    const messages = [new HumanMessage("q"), ...exchange(1, "line\n".repeat(5000))];
    const { messages: out, compacted } = microCompact(messages, { maxResultTokens: 200 });
    expect(compacted).toBe(1);
    expect(compactionMarkerOf(out[2]!)).toMatchObject({ form: "text" });
  });

  it("clears a kept result whose references cannot fit, and counts it", () => {
    const artifact = financeReport(400);
    const messages = [new HumanMessage("q"), ...exchange(1, JSON.stringify(artifact), artifact)];
    const { messages: out, cleared, compacted } = microCompact(messages, { maxResultTokens: 300 });
    expect([cleared, compacted]).toEqual([1, 0]);
    expect(textOf(out[2]!.content)).toMatch(/^\[Too large to compact to 300 tokens; `tool_1` result cleared/);
  });

  it("compacts such a result to the size its references need when fallbackResultTokens allows it", () => {
    const artifact = financeReport(400);
    const messages = [new HumanMessage("q"), ...exchange(1, JSON.stringify(artifact), artifact)];
    const { messages: out, cleared, compacted } = microCompact(messages, { maxResultTokens: 300, fallbackResultTokens: 100_000 });
    expect([cleared, compacted]).toEqual([0, 1]);
    const text = textOf(out[2]!.content);
    expect(() => JSON.parse(text)).not.toThrow();
    expect(compactionMarkerOf(out[2]!)).toMatchObject({ form: "json" });
    const tight = microCompact(messages, { maxResultTokens: 300, fallbackResultTokens: 301 });
    expect([tight.cleared, tight.compacted]).toEqual([1, 0]);
  });

  it.each([
    [{ keepRecent: -1 }, "`keepRecent`"],
    [{ keepRecent: 1.5 }, "`keepRecent`"],
    [{ maxResultTokens: 0 }, "`maxResultTokens`"],
    [{ fallbackResultTokens: -5 }, "`fallbackResultTokens`"],
  ])("rejects %p", (options, field) => {
    expect(() => microCompact(history(1), options)).toThrow(field);
  });

  it("reads the view's option names and their former names alike", () => {
    const input = history(5, true);
    const named = microCompact(input, { keepRecentToolResults: 2, maxToolResultTokens: 300, fallbackToolResultTokens: 400 });
    const former = microCompact(input, { keepRecent: 2, maxResultTokens: 300, fallbackResultTokens: 400 });
    expect(named.messages.map((m) => m.content)).toEqual(former.messages.map((m) => m.content));
    expect([named.cleared, named.compacted]).toEqual([former.cleared, former.compacted]);
    expect(() => microCompact(input, { keepRecentToolResults: -1 })).toThrow("`keepRecentToolResults`");
  });
});
