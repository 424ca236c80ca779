import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext } from "@contextview/core";
import { searchTerms } from "../../src/lexical/search-terms";
import { clip, clipAround } from "../../src/view/recall-excerpt";

const terms = (request: string) => new Set(searchTerms(request));

/** The excerpt's leading marker: where in the text it starts, and the text's length. */
function startOf(excerpt: string): { from: number; total: number } | undefined {
  const match = /^\[… (\d+) of (\d+) characters omitted\] /.exec(excerpt);
  return match === null ? undefined : { from: Number(match[1]), total: Number(match[2]) };
}

/** 400 invoice rows as one JSON text (no whitespace), about 21,000 characters. */
const rows = JSON.stringify(Array.from({ length: 400 }, (_, i) => ({ id: `INV-${1000 + i}`, amount: i * 3, note: "paid on time" })));

describe("clipAround: a long recalled text shown where the request's terms are", () => {
  it("is clip when the text fits, when its beginning holds the terms, or when it holds none", () => {
    const short = "The invoice INV-1001 was paid on time.";
    expect(clipAround(short, 900, terms("invoice INV-1001"))).toBe(short);
    expect(clipAround(rows, 300, terms("what is INV-1002's amount?"))).toBe(clip(rows, 300));
    // Found by the call's name or arguments, not the text: its beginning, as before.
    expect(clipAround(rows, 300, terms("refunds ledger"))).toBe(clip(rows, 300));
    expect(clipAround(rows, 300, new Set())).toBe(clip(rows, 300));
  });

  it("shows a row deep in a result that the request names, with the characters left out before and after counted", () => {
    const excerpt = clipAround(rows, 300, terms("What was the amount of invoice INV-1350?"));
    expect(excerpt).toContain('"id":"INV-1350","amount":1050');
    const start = startOf(excerpt)!;
    expect(start.total).toBe(rows.length);
    // The marker says where the excerpt starts in the text; the closing one, what is left after it.
    const body = excerpt.slice(excerpt.indexOf("] ") + 2).replace(/ \[… \d+ of \d+ characters omitted\]$/, "");
    expect(rows.slice(start.from).startsWith(body)).toBe(true);
    const after = Number(/\[… (\d+) of \d+ characters omitted\]$/.exec(excerpt)![1]);
    expect(start.from + body.length + after).toBe(rows.length);
    // At most the bound, beside the markers.
    expect(body.length).toBeLessThanOrEqual(300);
  });

  it("returns what its documentation's example says", () => {
    expect(clipAround(`${"row ".repeat(500)}RES-42 cancelled`, 40, new Set(["res-42"]))).toBe("[… 1992 of 2016 characters omitted] row row RES-42 cancelled");
  });

  it("weighs a term by how rarely the text holds it: the rare id, not the field on every row", () => {
    // "amount" is on every row, near the start too; INV-1200 only once.
    const excerpt = clipAround(rows, 200, terms("amount INV-1200"));
    expect(excerpt).toContain("INV-1200");
    expect(startOf(excerpt)!.from).toBeGreaterThan(5000);
  });

  it("finds a word by its stem, an identifier or number only whole, and characters of an unspaced script anywhere", () => {
    const filler = "lorem ipsum dolor sit amet ".repeat(60);
    const cancelled = `${filler}The booking was cancelled by the hotel. ${filler}`;
    expect(clipAround(cancelled, 120, terms("cancellations of bookings"))).toContain("booking was cancelled");
    // A word's forms by one term, "y" and "ies" alike (termOf writes both "i"), and a dropped final "e".
    const party = `${filler}Her birthday party is on Sunday. ${filler}`;
    expect(clipAround(party, 120, terms("birthdays"))).toContain("birthday party");
    expect(clipAround(`${filler}We went hiking with the dogs. ${filler}`, 120, terms("hike"))).toContain("went hiking");
    expect(clipAround(`${filler}Two new activities for the kids. ${filler}`, 120, terms("which activity"))).toContain("new activities");
    // "42" inside "4200" is not the number 42.
    const numbers = `Order 4200 shipped. ${filler} Order 42 is late. ${filler}`;
    expect(clipAround(numbers, 120, terms("order 42"))).toContain("Order 42 is late");
    const chinese = `${"天气很好。".repeat(300)}我的猫叫小白。${"天气很好。".repeat(300)}`;
    expect(clipAround(chinese, 60, terms("我的猫叫什么名字？"))).toContain("我的猫叫小白");
  });

  it("searches what the index reads, the first 20,000 characters, and reads megabytes in bounded work", () => {
    const late = `${"x ".repeat(15_000)}RES-42 ${"y ".repeat(100)}`;
    expect(clipAround(late, 300, terms("RES-42"))).toBe(clip(late, 300));
    const huge = `${"row ".repeat(4000)}RES-42 ${"z".repeat(2_000_000)}`;
    const excerpt = clipAround(huge, 300, terms("RES-42"));
    expect(excerpt).toContain("RES-42");
    expect(excerpt.length).toBeLessThan(400);
  });
});

describe("the recalled block shows a long message where the request's terms are", () => {
  /** An old lookup whose result has 400 rows, small talk after it, then a question about one row. */
  function conversation(): BaseMessage[] {
    const out: BaseMessage[] = [
      new HumanMessage({ id: "h0", content: "Load the invoices." }),
      new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "list_invoices", args: { year: 2026 }, type: "tool_call" }] }),
      new ToolMessage({ id: "t0", tool_call_id: "c0", name: "list_invoices", content: rows }),
      new AIMessage({ id: "f0", content: "Loaded 400 invoices." }),
    ];
    for (let i = 1; i <= 150; i++) {
      out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: tell me about the weather and the garden today.` }));
      out.push(new AIMessage({ id: `f${i}`, content: `Reply ${i}: the weather is mild and the roses bloom.` }));
    }
    out.push(new HumanMessage({ id: "q", content: "What was the amount of invoice INV-1350?" }));
    return out;
  }

  it("recalls the lookup's result with the row the question names", () => {
    const view = buildContext({ messages: conversation(), budget: { promptBudget: 3000, contextWindow: 32_768 } });
    expect(view.report.recall.outcome).toBe("recalled");
    const block = view.messages.map((m) => (typeof m.content === "string" ? m.content : "")).find((text) => text.includes("tool result of list_invoices"));
    expect(block).toBeDefined();
    expect(block).toContain('"id":"INV-1350","amount":1050');
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
  });
});

describe("clipAround over random texts and requests (fast-check)", () => {
  const collapse = (text: string) => text.replace(/\s+/g, " ").trim();
  /** Words of a small vocabulary, ids, numbers, CJK, emoji and whitespace runs: terms recur and fall anywhere. */
  const piece = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom("lorem", "ipsum", "dolor", "sit", "amet") },
    { weight: 1, arbitrary: fc.constantFrom("invoice", "invoices", "amount", "paid", "cancelled", "RES-42", "INV-1350", "42", "4200", "我的猫", "小白", "😀", "row", "{\"id\":", "\"x\"},") },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom(" ", "  ", "\n", "\t", "") },
  );
  const mixed = fc.array(piece, { maxLength: 600 }).map((parts) => parts.join(" "));
  // A term of the request deep in the text, so that the excerpt starts after the beginning.
  const deep = fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.constantFrom("RES-42", "INV-1350", "我的猫叫小白", "paid 42"), mixed).map(([filler, needle, rest]) => `${"lorem ".repeat(filler)}${needle} ${rest}`);
  const textArb = fc.oneof(mixed, deep);
  const requestArb = fc.array(fc.constantFrom("invoice", "amount", "paid", "RES-42", "INV-1350", "42", "我的猫叫小白", "😀", "row", "zzz"), { minLength: 1, maxLength: 5 }).map((words) => words.join(" "));

  it("clip of a text that fits once its whitespace is collapsed is that text, collapsed (single-spaced texts as they are)", () => {
    const spaced = fc.array(fc.oneof(fc.constantFrom("lorem", "RES-42", "我的猫", "😀", ""), fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", "\u2003", " \r\n ")), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(spaced, fc.integer({ min: 1, max: 120 }), (text, max) => {
        const flat = collapse(text);
        if (flat.length <= max) expect(clip(text, max)).toBe(flat);
        else expect(clip(text, max)).toMatch(new RegExp(`\\[… \\d+ of ${text.length} characters omitted\\]$`));
      }),
      { numRuns: 2000, seed: 7 },
    );
    // A single-spaced text that fits is shown as it is; one with a leading space, a double space or a tab is not.
    expect(clip("Ha, nice one!", 20)).toBe("Ha, nice one!");
    expect([" Ha", "Ha  nice", "Ha\tnice", "Ha "].map((t) => clip(t, 20))).toEqual(["Ha", "Ha nice", "Ha nice", "Ha"]);
  });

  it("shows at most max characters of the text, in order, and its markers count exactly what is left out", () => {
    let starts = 0;
    fc.assert(
      fc.property(textArb, requestArb, fc.integer({ min: 1, max: 300 }), (text, request, max) => {
        const excerpt = clipAround(text, max, terms(request));
        const lead = /^\[… (\d+) of (\d+) characters omitted\] /.exec(excerpt);
        const tail = / ?\[… (\d+) of (\d+) characters omitted\]$/.exec(excerpt);
        const from = lead === null ? 0 : Number(lead[1]);
        const after = tail === null ? 0 : Number(tail[1]);
        const body = excerpt.slice(lead === null ? 0 : lead[0].length, tail === null ? excerpt.length : excerpt.length - tail[0].length);
        if (lead !== null) expect(Number(lead[2])).toBe(text.length);
        if (tail !== null) expect(Number(tail[2])).toBe(text.length);
        expect(body.length).toBeLessThanOrEqual(max);
        // The body is the text from `from` up to what the closing marker leaves out, whitespace collapsed.
        expect(body).toBe(collapse(text.slice(from, text.length - after)));
        // Deterministic; the beginning when nothing is cut before it.
        expect(clipAround(text, max, terms(request))).toBe(excerpt);
        if (lead === null) expect(excerpt).toBe(clip(text, max));
        else starts += 1;
      }),
      { numRuns: 400 },
    );
    // The generators reach the excerpts that start after the beginning, not only the beginning.
    expect(starts).toBeGreaterThan(40);
  });
});
