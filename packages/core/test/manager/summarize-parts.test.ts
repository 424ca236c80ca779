import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { chunkTranscript, renderTranscript } from "../../src/summarize/transcript.js";
import { createEstimator, resolveBudget } from "@contextview/core";
import { findSafeCut, forbiddenCuts, isSafeCut } from "../../src/summarize/safe-cut.js";
import { isSummaryMessage } from "../../src/summarize/summary-message.js";
import { summaryMessage } from "../../src/summarize/summary-message.js";
import { summaryThreshold, summaryTrigger } from "../../src/summarize/threshold.js";

const estimator = createEstimator();

describe("summaryThreshold (seed 2)", () => {
  it.each([
    [32768, 0.75, Math.floor(32768 * 0.85)], // the 64k floor passes the window
    [65536, 0.75, Math.floor(65536 * 0.85)], // floor equals the window
    [100_000, 0.75, 75_000],
    [100_000, 0.5, 75_000], // below 512k the ratio is at least 0.75
    [200_000, 0.9, 180_000],
    [1_000_000, 0.5, 500_000],
    [1_000_000, 0.01, 65_536], // the 64k floor
    [0, 0.75, 1],
    [-5, 0.75, 1],
    [2, 0.75, 1], // never the whole window
  ])("window %d, ratio %d → %d", (window, ratio, expected) => {
    expect(summaryThreshold(window, ratio)).toBe(expected);
  });

  it("combines with the prompt limit: our 32k default triggers at the prompt limit", () => {
    expect(summaryTrigger(resolveBudget({}, {}))).toBe(16000);
    expect(summaryTrigger(resolveBudget({ contextWindow: 400_000, promptBudget: 390_000, responseReserve: 0, safetyReserve: 0 }, {}))).toBe(300_000);
  });
});

describe("forbiddenCuts / findSafeCut", () => {
  const call = (id: string) => new AIMessage({ content: "", tool_calls: [{ id, name: "t", args: {} }] });
  const result = (id: string) => new ToolMessage({ content: "r", tool_call_id: id });

  it("forbids cuts between a call and any of its results; orphans do not constrain", () => {
    const messages = [new HumanMessage("q"), call("a"), result("a"), new HumanMessage("q2"), call("b"), new ToolMessage({ content: "x", tool_call_id: "zzz" }), result("b"), call("orphan-call")];
    expect(forbiddenCuts(messages)).toEqual([false, false, true, false, false, true, true, false, false]);
    expect(isSafeCut(messages, 3)).toBe(true);
    expect(isSafeCut(messages, 2)).toBe(false);
    expect(isSafeCut(messages, 0)).toBe(false);
  });

  it("keeps at least keepMinTokens and keepMinText, settles before keepMaxTokens, never inside the current turn", () => {
    const messages = Array.from({ length: 20 }, (_, i) => {
      const text = `${String(i).padStart(2, "0")} ${"x".repeat(300)}`;
      return i % 2 === 0 ? new HumanMessage(text) : new AIMessage(text);
    });
    const per = estimator.estimateMessage(messages[0] as HumanMessage);
    const cut = findSafeCut(messages, 0, 18, estimator, { keepMinTokens: per * 3, keepMinText: 2, keepMaxTokens: per * 10 });
    expect(cut).toBe(17);
    expect(findSafeCut(messages, 0, 10, estimator, { keepMinTokens: 1, keepMinText: 1 })).toBe(10);
    expect(findSafeCut(messages, 0, 18, estimator, { keepMinTokens: per * 100, keepMinText: 2, keepMaxTokens: per * 6 })).toBe(14);
    expect(findSafeCut(messages, 18, 18, estimator)).toBeNull();
  });
});

describe("transcript", () => {
  it("renders roles, tool names with arguments, trimmed results and a previous summary", () => {
    const lines = renderTranscript([
      new HumanMessage("What did I spend?"),
      new AIMessage({ content: "Checking.", tool_calls: [{ id: "c", name: "search_transactions", args: { month: "2026-03" } }] }),
      new ToolMessage({ content: `${"a".repeat(5000)}END`, tool_call_id: "c", name: "search_transactions" }),
      summaryMessage("Earlier: budget is 400.", 3),
    ]);
    expect(lines[0]).toBe("user: What did I spend?");
    expect(lines[1]).toBe("assistant: Checking.");
    expect(lines[2]).toBe('assistant called: search_transactions({"month":"2026-03"})');
    expect(lines[3]).toMatch(/^tool result \(search_transactions\): a+ \[…\d+ characters omitted…\] a+END$/);
    expect(lines[3]?.length).toBeLessThan(1400);
    expect(lines[4]).toMatch(/^previous summary: .*Earlier: budget is 400\./s);
    expect(isSummaryMessage(summaryMessage("x", 1))).toBe(true);
    expect(isSummaryMessage(new AIMessage("x"))).toBe(false);
  });

  it("trims results and arguments without splitting a surrogate pair", () => {
    for (const lead of ["", "x"]) {
      const emoji = `${lead}${"😀".repeat(3000)}`;
      const lines = renderTranscript([
        new AIMessage({ content: "", tool_calls: [{ id: "c", name: "note", args: { text: emoji } }] }),
        new ToolMessage({ content: emoji, tool_call_id: "c", name: "note" }),
      ]);
      for (const line of lines) expect(line).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    }
  });

  it("chunks a long transcript without losing a line", () => {
    const lines = Array.from({ length: 200 }, (_, i) => `user: line ${i} ${"z".repeat(100)}`);
    const chunks = chunkTranscript(lines, 500, estimator);
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) expect(estimator.estimateText(chunk)).toBeLessThanOrEqual(500 + 5);
    expect(chunks.join("\n").split("\n")).toEqual(lines);
  });
});
