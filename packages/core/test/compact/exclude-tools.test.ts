import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextViewError, createContextManager, createEstimator } from "@contextview/core";
import { compactionMarkerOf, microCompact } from "@contextview/core/tool-results";
import { textOf } from "../../src/messages.js";
import { transactionSearch } from "../fixtures/compaction/transaction-search.js";
import { deepFreeze, thrownBy, viewProblems, snapshot } from "@contextview/test-support";

// Issue 49, item 9: per-tool control, as LangChain's ClearToolUsesEdit takes it (`excludeTools`).

/** One call of `tool` and its result (named on the result only when `named`). */
function exchange(n: number, tool: string, content: string, named = true): BaseMessage[] {
  return [
    new AIMessage({ content: "", tool_calls: [{ id: `call-${n}`, name: tool, args: { n } }] }),
    new ToolMessage({ content, tool_call_id: `call-${n}`, id: `result-${n}`, ...(named ? { name: tool } : {}) }),
  ];
}

const formOf = (message: BaseMessage | undefined) => (message === undefined ? undefined : (compactionMarkerOf(message)?.form ?? "whole"));
const resultsOf = (messages: readonly BaseMessage[]) => messages.filter((m): m is ToolMessage => m.type === "tool");

describe("microCompact: excludeTools", () => {
  const input = deepFreeze([
    new HumanMessage("start"),
    ...exchange(1, "read_file", "line 881: total = 42"),
    ...exchange(2, "search", "3 rows"),
    ...exchange(3, "read_file", "line 12: import x", false),
    ...exchange(4, "search", "5 rows"),
    new HumanMessage("next"),
  ]);

  it("never clears a result of an excluded tool past keepRecentToolResults; the others clear as before", () => {
    const plain = microCompact(input, { keepRecentToolResults: 1 });
    expect(resultsOf(plain.messages).map(formOf)).toEqual(["cleared", "cleared", "cleared", "whole"]);
    const spared = microCompact(input, { keepRecentToolResults: 1, excludeTools: ["read_file"] });
    // The third result names no tool: the call it answers does.
    expect(resultsOf(spared.messages).map(formOf)).toEqual(["whole", "cleared", "whole", "whole"]);
    expect([spared.cleared, spared.compacted]).toEqual([1, 0]);
    expect(spared.messages[2]).toBe(input[2]);
    expect(microCompact(input, { keepRecentToolResults: 0, excludeTools: ["read_file", "search"] }).cleared).toBe(0);
  });

  it("compacts an excluded result over maxToolResultTokens, keeping its ids and totals, instead of clearing it", () => {
    const artifact = transactionSearch(60);
    const big = [new HumanMessage("q"), ...exchange(1, "search", JSON.stringify(artifact)), ...exchange(2, "read_file", "ok"), new HumanMessage("next")];
    const out = microCompact(big, { keepRecentToolResults: 0, maxToolResultTokens: 1200, excludeTools: ["search"] });
    expect([out.cleared, out.compacted]).toEqual([1, 1]);
    const kept = out.messages[2] as ToolMessage;
    expect(formOf(kept)).toBe("json");
    expect(createEstimator().estimateText(textOf(kept.content))).toBeLessThanOrEqual(1200);
    expect(JSON.parse(textOf(kept.content)).results).toMatchObject({ $compacted: "rows", returned: 60 });
  });

  it("keeps an excluded result whole when it cannot be compacted to the limit: it is never cleared", () => {
    const text = "x".repeat(9000);
    const out = microCompact([new HumanMessage("q"), ...exchange(1, "read_file", text)], { keepRecentToolResults: 1, maxToolResultTokens: 60, excludeTools: ["read_file"] });
    expect(formOf(out.messages[2])).not.toBe("cleared");
  });

  it.each([
    ["read_file", "excludeTools", "an array of tool names"],
    [["read_file", ""], "excludeTools[1]", "a tool name (a non-empty string)"],
    [[7], "excludeTools[0]", "a tool name (a non-empty string)"],
  ])("refuses excludeTools = %p, naming %s", (value, field, expected) => {
    const error = thrownBy<ContextViewError>(() => microCompact(input, { excludeTools: value as never }));
    expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field } });
    expect(error.message).toContain(`Expected \`${field}\` to be ${expected}`);
  });
});

describe("buildContext and the manager: excludeTools", () => {
  /** Turns of one file read and one search each, large enough that older results must go at 3,000 tokens. */
  function turns(n: number): BaseMessage[] {
    const out: BaseMessage[] = [];
    for (let t = 0; t < n; t++) {
      out.push(new HumanMessage({ id: `u${t}`, content: `Check item ${t}.` }));
      out.push(...exchange(2 * t, "read_file", `file ${t}: ${"the budget line reads 40 per week. ".repeat(4)}`));
      out.push(...exchange(2 * t + 1, "search", JSON.stringify({ rows: Array.from({ length: 12 }, (_, r) => ({ id: `${t}-${r}`, memo: `payment ${r} of item ${t}` })) })));
      out.push(new AIMessage({ id: `a${t}`, content: `Item ${t} is fine.` }));
    }
    out.push(new HumanMessage({ id: "q", content: "Which file said 40 per week?" }));
    return out;
  }

  it("shows every file read of the older turns it keeps, where without it they are cleared; every law holds", () => {
    const messages = deepFreeze(turns(12));
    const before = snapshot(messages);
    const budget = { contextWindow: 32768, promptBudget: 3000 };
    const plain = buildContext({ messages, budget, keepRecentToolResults: 1, clearStep: 1 });
    const spared = buildContext({ messages, budget, keepRecentToolResults: 1, clearStep: 1, excludeTools: ["read_file"] });
    const reads = (view: { messages: BaseMessage[] }) => resultsOf(view.messages).filter((m) => m.name === "read_file").map(formOf);
    expect(reads(plain)).toContain("cleared");
    expect(reads(spared).length).toBeGreaterThan(0);
    expect(reads(spared)).not.toContain("cleared");
    // The searches still clear, and are counted.
    expect(resultsOf(spared.messages).some((m) => m.name === "search" && formOf(m) === "cleared")).toBe(true);
    expect(spared.report.toolResults.cleared).toBeGreaterThan(0);
    expect(spared.report.tokens.total).toBeLessThanOrEqual(spared.report.limit);
    expect(viewProblems({ conversation: messages, messages, before, estimator: createEstimator(), rebuild: () => spared.messages }, spared)).toEqual([]);
  });

  it("is set once, on the factory: a request's overrides cannot change it", async () => {
    const manager = createContextManager({ excludeTools: ["read_file"] });
    const key = { userId: "u", conversationId: "c" };
    const error = await manager.build({ messages: turns(2), key, overrides: { excludeTools: ["search"] } }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field: "context.excludeTools" } });
    expect(thrownBy<ContextViewError>(() => createContextManager({ excludeTools: "read_file" as never }))).toMatchObject({ code: "INVALID_OPTION", details: { field: "excludeTools" } });
    const view = await manager.build({ messages: turns(12), key, overrides: { budget: { promptBudget: 3000 }, keepRecentToolResults: 1 } });
    expect(resultsOf(view.messages).filter((m) => m.name === "read_file").map(formOf)).not.toContain("cleared");
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
  });
});
