import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext } from "@contextview/core";
import { memoOf, samePlainData } from "../../src/compact/result-memo.js";
import { resolveCompactOptions } from "../../src/compact/options.js";

// Issue 47, item 8: a checkpoint read anew gives every request new objects. A large
// result's compaction is remembered by its text and its artifact; an artifact of the
// same plain data as the one remembered is the same result, so it is not read and
// projected again — and an artifact that differs anywhere is never taken for it.

const rowsOf = (count: number, payee = (i: number) => `Payee ${i % 40}`) =>
  Array.from({ length: count }, (_, i) => ({ id: `tx-${i}`, date: "2024-03-01", amount: i * 1.25, payee: payee(i) }));
const content = JSON.stringify({ count: 5000, transactions: rowsOf(1500) });

function conversation(artifact: unknown): BaseMessage[] {
  return [
    new HumanMessage({ id: "h0", content: "List my March transactions." }),
    new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "search", args: { month: "2024-03" }, type: "tool_call" }] }),
    new ToolMessage({ id: "t0", tool_call_id: "c0", name: "search", content: content.slice(), artifact }),
    new AIMessage({ id: "f0", content: "Here they are." }),
    new HumanMessage({ id: "h1", content: "Who did I pay first?" }),
  ];
}

describe("samePlainData", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["equal nested plain data", { rows: [{ id: 1, tags: ["a"] }], n: null }, { rows: [{ id: 1, tags: ["a"] }], n: null }, true],
    ["a value changed deep inside", { rows: [{ id: 1 }, { id: 2 }] }, { rows: [{ id: 1 }, { id: 3 }] }, false],
    ["keys in another order (another JSON)", { a: 1, b: 2 }, { b: 2, a: 1 }, false],
    ["a key more", { a: 1 }, { a: 1, b: undefined }, false],
    ["arrays of another length", [1, 2], [1, 2, 3], false],
    ["two Dates with the same fields (not plain data)", { at: new Date(0) }, { at: new Date(1) }, false],
    ["class instances", new (class Row { id = 1; })(), new (class Row { id = 1; })(), false],
    ["functions", { toJSON: () => 1 }, { toJSON: () => 1 }, false],
    ["NaN (not known equal)", { x: Number.NaN }, { x: Number.NaN }, false],
    ["null-prototype objects", Object.assign(Object.create(null), { a: 1 }), Object.assign(Object.create(null), { a: 1 }), true],
  ])("%s", (_name, a, b, same) => {
    expect(samePlainData(a, b)).toBe(same);
  });

  it("is false, not a crash, on a cycle", () => {
    const a: Record<string, unknown> = { id: 1 };
    a["self"] = a;
    const b: Record<string, unknown> = { id: 1 };
    b["self"] = b;
    expect(samePlainData(a, b)).toBe(false);
  });
});

describe("the memo of a large result with an artifact", () => {
  const options = resolveCompactOptions({});

  it("is found again for a copy of the artifact, and not for an artifact that differs", () => {
    const artifact = { model_context: { transactions: rowsOf(2000) } };
    const memo = memoOf(content, artifact, undefined, options);
    expect(memoOf(content, structuredClone(artifact), undefined, options)).toBe(memo);
    const changed = structuredClone(artifact);
    (changed.model_context.transactions[1999] as { payee: string }).payee = "Someone else";
    expect(memoOf(content, changed, undefined, options)).not.toBe(memo);
  });

  it("keeps a few artifacts per text, not one per request", () => {
    const first = { rows: rowsOf(10, (i) => `first ${i}`) };
    const memo = memoOf(content, first, undefined, options);
    for (let k = 0; k < 6; k++) memoOf(content, { rows: rowsOf(10, (i) => `other ${k} ${i}`) }, undefined, options);
    // The first artifact's memo left after four others came: a copy of it starts again.
    expect(memoOf(content, structuredClone(first), undefined, options)).not.toBe(memo);
  });
});

describe("a view of a checkpoint read anew", () => {
  const budget = { contextWindow: 32768, promptBudget: 8000 };

  it("shows a copy of the artifact as it showed the artifact, and a changed artifact's new rows", () => {
    const artifact = { model_context: { transactions: rowsOf(300) } };
    const first = buildContext({ messages: conversation(artifact), budget });
    const copy = buildContext({ messages: conversation(structuredClone(artifact)), budget });
    expect(copy.messages.map((m) => m.content)).toEqual(first.messages.map((m) => m.content));
    expect(String(first.messages[2]?.content)).toContain("Payee 0");

    const edited = structuredClone(artifact);
    edited.model_context.transactions[0] = { ...edited.model_context.transactions[0]!, payee: "Edited Payee" };
    const after = buildContext({ messages: conversation(edited), budget });
    expect(String(after.messages[2]?.content)).toContain("Edited Payee");
  });
});
