// A result narrowed to its totals or to a short notice (even its identifiers do not fit)
// names, with a recall tool bound, the longest recall call that fits its limit — a shorter
// one when the longest does not — and that call, run on the conversation, gives every row back.
import { printedRecallCall, readAnswerPart } from "@contextview/test-support";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { compactOrNarrow } from "@contextview/core/tool-results";
import { recallFromConversation, type RecallRequest } from "@contextview/core/internal";

const estimator = createEstimator();
const ROWS = Array.from({ length: 200 }, (_, i) => ({ id: `tx-${1000 + i}`, date: `2024-03-${String((i % 28) + 1).padStart(2, "0")}`, amount: -(i + 1) * 1.25, memo: `Groceries at market ${i}` }));
const MERCHANTS = Array.from({ length: 40 }, (_, i) => ({ merchant_id: `m-${i}`, name: `Market ${i}` }));
const ARRAYS: Record<string, unknown[]> = { transactions: ROWS, merchants: MERCHANTS };
const result = new ToolMessage({ id: "t0", tool_call_id: "call_s", name: "search_transactions", content: JSON.stringify({ query: "2024-03", count: ROWS.length, ...ARRAYS }) });
const conversation = (message: ToolMessage): BaseMessage[] => [
  new HumanMessage({ id: "u0", content: "Find my March transactions" }),
  new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "call_s", name: "search_transactions", args: { month: "2024-03" }, type: "tool_call" }] }),
  message,
];

const textOf = (message: BaseMessage): string => (typeof message.content === "string" ? message.content : JSON.stringify(message.content));

const recallCall = printedRecallCall;

/** The recall call a narrowed result names: in its `"$recall"` key (totals) or its notice's last sentence. */
function namedCall(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith("{")) return recallCall(text);
  const line = (JSON.parse(text) as { $recall?: unknown }).$recall;
  return typeof line === "string" ? recallCall(line) : undefined;
}

function answer(messages: readonly BaseMessage[], args: Record<string, unknown>): string {
  const got = recallFromConversation(messages, args as unknown as RecallRequest, { maxToolResultTokens: 2000 });
  expect(got.error).toBe(false);
  expect(estimator.estimateText(got.text)).toBeLessThanOrEqual(2000);
  return got.text;
}

/** The calls an answer says read on: `[Not shown yet: …]` for rows, `[Characters … not shown. …]` for text. */
const readsOn = (text: string): Record<string, unknown> | undefined => {
  const at = Math.max(text.lastIndexOf("[Not shown yet"), text.lastIndexOf("[Characters"));
  return at < 0 ? undefined : recallCall(text.slice(at));
};

/**
 * Every array of the result as the agent gets it back from the named call: a `read`
 * paged on and parsed; a `rows` call paged on, then each other array its answer names,
 * all its rows (the answer counts them) paged on the same way.
 */
function arraysBack(messages: readonly BaseMessage[], call: Record<string, unknown>): Record<string, unknown[]> {
  if (call["action"] === "read") {
    let text = "";
    for (let args: Record<string, unknown> | undefined = call; args !== undefined; ) {
      const got = answer(messages, args);
      text += readAnswerPart(got)!.text;
      args = readsOn(got);
    }
    const value = JSON.parse(text) as Record<string, unknown[]>;
    return Object.fromEntries(Object.keys(ARRAYS).map((key) => [key, value[key]!]));
  }
  expect(call["action"]).toBe("rows");
  // The named call's answer names its array and counts its rows, and names the other arrays with theirs.
  const first = answer(messages, call);
  const [, name, total] = /· `([^`]+)`: (\d+) rows, read from/.exec(first)!;
  const others = /\[Other arrays in this result: (.*); name one in `collection`\.\]/.exec(first)?.[1] ?? "";
  const counts = [[name!, total!], ...[...others.matchAll(/`([^`]+)` \((\d+)\)/g)].map(([, other, count]) => [other!, count!])];
  const out: Record<string, unknown[]> = {};
  for (const [collection, count] of counts) {
    const rows: unknown[] = [];
    for (let args: Record<string, unknown> | undefined = { action: "rows", message: call["message"], collection, rows: [`1-${count}`] }; args !== undefined; ) {
      const text = answer(messages, args);
      for (const line of text.split("\n")) if (line.startsWith('{"row":')) rows.push((JSON.parse(line) as { value: unknown }).value);
      args = readsOn(text);
    }
    out[collection!] = rows;
  }
  return out;
}

/** Which form a narrowed text took: totals or notice, the call's action, and whether its line is the longest. */
const formOf = (text: string, call: Record<string, unknown>): string =>
  `${text.startsWith("{") ? "totals" : "notice"} ${String(call["action"])}${text.includes("(row numbers from 1)") || text.includes("elsewhere") ? " full" : ""}`;

describe("a narrowed result with a recall tool bound", () => {
  const messages = conversation(result);
  const narrowed = (limit: number, message = result) => {
    const { message: shown, outcome } = compactOrNarrow(message, limit, { recallToolName: "recall" });
    expect({ limit, outcome }).toEqual({ limit, outcome: "narrowed" });
    return textOf(shown);
  };
  /** The smallest narrowed form: the notice without any call (what an unbound view shows at any tight limit). */
  const bare = textOf(compactOrNarrow(result, 1).message);

  it("names the rows call without the other arrays when the full line does not fit beside the totals; that call gives every row back", () => {
    // A limit the full line fits at (the identifiers never do: the result is narrowed), then one token less.
    const full = narrowed(300);
    expect((JSON.parse(full) as { $recall: string }).$recall).toContain('rows left out elsewhere: name "merchants"');
    const limit = estimator.estimateText(full) - 1;
    const text = narrowed(limit);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(limit);
    const { $recall: line, transactions, merchants } = JSON.parse(text) as { $recall: string; transactions: { omitted: number }; merchants: { omitted: number } };
    expect([transactions.omitted, merchants.omitted]).toEqual([200, 40]);
    expect(line).not.toContain("elsewhere");
    expect(namedCall(text)).toEqual({ action: "rows", message: "call_s", collection: "transactions", rows: ["1-200"] });
    // Without the tool that limit shows the totals with no line.
    expect(textOf(compactOrNarrow(result, limit).message)).not.toContain("recall");
    expect(arraysBack(messages, namedCall(text)!)).toEqual(ARRAYS);
  });

  it("at every narrowed limit, names a call within the limit whenever the shortest one fits, and the call gives every row back", () => {
    const shortest = estimator.estimateText(`${bare.slice(0, -1)} To read it back, call \`recall\` with {"action":"read","message":"call_s"}.]`);
    const seen = new Set<string>();
    const back = new Map<string, Record<string, unknown[]>>();
    for (let limit = 1; limit <= 300; limit++) {
      const text = narrowed(limit);
      const call = namedCall(text);
      if (call === undefined) {
        expect({ limit, shortestFits: limit >= shortest }).toEqual({ limit, shortestFits: false });
        expect(text === bare || estimator.estimateText(text) <= limit).toBe(true);
        continue;
      }
      expect({ limit, tokens: estimator.estimateText(text) <= limit }).toEqual({ limit, tokens: true });
      const key = JSON.stringify(call);
      if (!back.has(key)) back.set(key, arraysBack(messages, call));
      expect({ limit, arrays: back.get(key) }).toEqual({ limit, arrays: ARRAYS });
      seen.add(formOf(text, call));
    }
    // Every line, on the totals and after the notice, was the one that fitted at some limit.
    expect([...seen].sort()).toEqual(["notice read", "notice rows", "notice rows full", "totals read", "totals rows", "totals rows full"]);
  });

  it("an artifact's rows are never named by a read (it reads the content), and a rows call that fits gives them back", () => {
    const withArtifact = new ToolMessage({ tool_call_id: "call_s", name: "search_transactions", content: `Found ${ROWS.length} transactions for 2024-03.`.repeat(80), artifact: { query: "2024-03", ...ARRAYS } });
    const artifactMessages = conversation(withArtifact);
    const calls = new Set<string>();
    const seen = new Set<string>();
    for (let limit = 1; limit <= 300; limit++) {
      const text = narrowed(limit, withArtifact);
      const call = namedCall(text);
      if (call === undefined) continue;
      expect(estimator.estimateText(text)).toBeLessThanOrEqual(limit);
      calls.add(JSON.stringify(call));
      seen.add(formOf(text, call));
    }
    expect([...seen].sort()).toEqual(["notice rows", "notice rows full", "totals rows", "totals rows full"]);
    for (const key of calls) {
      const call = JSON.parse(key) as Record<string, unknown>;
      expect(call["action"]).toBe("rows");
      expect(arraysBack(artifactMessages, call)).toEqual(ARRAYS);
    }
  });
});
