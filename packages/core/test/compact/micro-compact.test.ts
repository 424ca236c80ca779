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
  ])("with %i results and keepRecentToolResults %i clears %i", (results, keepRecentToolResults, expected) => {
    const input = history(results);
    const { messages, cleared, compacted } = microCompact(input, { keepRecentToolResults });
    expect(cleared).toBe(expected);
    expect(compacted).toBe(0);
    expect(messages).toHaveLength(input.length);
    const flags = toolResults(messages).map(isClearedToolResult);
    expect(flags).toEqual(Array.from({ length: results }, (_, i) => i < expected));
  });

  it("keeps positions, ids, names and pairing, and says how to get the original back", () => {
    const input = history(4);
    const { messages } = microCompact(input, { keepRecentToolResults: 1 });
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
    const { messages } = microCompact(input, { keepRecentToolResults: 2 });
    messages.forEach((message, i) => {
      const cleared = ToolMessage.isInstance(message) && isClearedToolResult(message);
      if (cleared) expect(message).not.toBe(input[i]);
      else expect(message).toBe(input[i]);
    });
    expect(input.map((m) => JSON.stringify(m.toDict()))).toEqual(before);
  });

  it("is idempotent: cleared markers are left as they are and not counted again", () => {
    const first = microCompact(history(5, true), { keepRecentToolResults: 2, maxToolResultTokens: 1100 });
    expect(first.cleared).toBe(3);
    expect(first.compacted).toBe(2);
    const second = microCompact(first.messages, { keepRecentToolResults: 2, maxToolResultTokens: 1100 });
    expect(second.cleared).toBe(0);
    expect(second.compacted).toBe(0);
    second.messages.forEach((message, i) => expect(message).toBe(first.messages[i]));
  });

  it("compacts kept results over maxToolResultTokens structurally", () => {
    const { messages, compacted } = microCompact(history(2, true), { keepRecentToolResults: 2, maxToolResultTokens: 1100 });
    expect(compacted).toBe(2);
    const estimator = createEstimator();
    for (const result of toolResults(messages)) {
      expect(estimator.estimateText(textOf(result.content))).toBeLessThanOrEqual(1100);
      expect(JSON.parse(textOf(result.content)).results).toMatchObject({ $compacted: "rows", returned: 30 });
    }
  });

  it("compacts plain text results as a beginning and end", () => {
    const messages = [new HumanMessage("q"), ...exchange(1, "line\n".repeat(5000))];
    const { messages: out, compacted } = microCompact(messages, { maxToolResultTokens: 200 });
    expect(compacted).toBe(1);
    expect(compactionMarkerOf(out[2]!)).toMatchObject({ form: "text" });
  });

  it("clears a kept result whose references cannot fit, and counts it", () => {
    const artifact = financeReport(400);
    const messages = [new HumanMessage("q"), ...exchange(1, JSON.stringify(artifact), artifact)];
    const { messages: out, cleared, compacted } = microCompact(messages, { maxToolResultTokens: 300 });
    expect([cleared, compacted]).toEqual([1, 0]);
    expect(textOf(out[2]!.content)).toMatch(/^\[Older `tool_1` result cleared/);
    // Past keepRecentToolResults it is cleared again: the notice is the same text, so the prompt's prefix holds.
    const later = microCompact(messages, { maxToolResultTokens: 300, keepRecentToolResults: 0 });
    expect(textOf(later.messages[2]!.content)).toBe(textOf(out[2]!.content));
  });

  it("compacts such a result to the size its references need when fallbackToolResultTokens allows it", () => {
    const artifact = financeReport(400);
    const messages = [new HumanMessage("q"), ...exchange(1, JSON.stringify(artifact), artifact)];
    const { messages: out, cleared, compacted } = microCompact(messages, { maxToolResultTokens: 300, fallbackToolResultTokens: 100_000 });
    expect([cleared, compacted]).toEqual([0, 1]);
    const text = textOf(out[2]!.content);
    expect(() => JSON.parse(text)).not.toThrow();
    expect(compactionMarkerOf(out[2]!)).toMatchObject({ form: "json" });
    const tight = microCompact(messages, { maxToolResultTokens: 300, fallbackToolResultTokens: 301 });
    expect([tight.cleared, tight.compacted]).toEqual([1, 0]);
  });

  it.each([
    [{ keepRecentToolResults: -1 }, "`keepRecentToolResults`"],
    [{ keepRecentToolResults: 1.5 }, "`keepRecentToolResults`"],
    [{ maxToolResultTokens: 0 }, "`maxToolResultTokens`"],
    [{ fallbackToolResultTokens: -5 }, "`fallbackToolResultTokens`"],
  ])("rejects %p", (options, field) => {
    expect(() => microCompact(history(1), options)).toThrow(field);
  });

  it.each([
    ["keepRecent", "keepRecentToolResults"],
    ["maxResultTokens", "maxToolResultTokens"],
    ["fallbackResultTokens", "fallbackToolResultTokens"],
  ])("refuses the 0.x name %s, naming %s, instead of ignoring it", (former, current) => {
    let error: unknown;
    try {
      microCompact(history(5, true), { [former]: 2 } as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field: former } });
    expect((error as Error).message).toContain(`\`${former}\` was renamed \`${current}\``);
    // Left undefined, as a spread of optional settings leaves it, it is not there.
    expect(microCompact(history(5, true), { [former]: undefined } as never).cleared).toBe(2);
  });
});
