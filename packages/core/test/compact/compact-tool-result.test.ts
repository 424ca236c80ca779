import { ToolMessage } from "@langchain/core/messages";
import { COMPACTION_METADATA_KEY, isCompactedToolResult } from "../../src/compact/index.js";
import { ContextViewError, createEstimator } from "@contextview/core";
import { compactToolResult, compactionMarkerOf, readNoteLines } from "@contextview/core/tool-results";
import { textOf } from "../../src/messages.js";
import { financeReport } from "../fixtures/compaction/finance.js";
import { apiPage, mixedArrays, topLevelRows } from "../fixtures/compaction/mixed-arrays.js";
import { noteRead, noteSearch } from "../fixtures/compaction/notes.js";
import { transactionSearch } from "../fixtures/compaction/transaction-search.js";
import { deepFreeze } from "@contextview/test-support";
import { compactedNodes, contentJson, projectionProblems } from "./laws.js";

const estimator = createEstimator();
const tokensOf = (message: ToolMessage) => estimator.estimateText(textOf(message.content));

function toolMessage(artifact: unknown, fields: Partial<{ content: string; name: string; id: string; status: "success" | "error" }> = {}): ToolMessage {
  return new ToolMessage({
    content: fields.content ?? JSON.stringify(artifact),
    artifact,
    tool_call_id: "call-1",
    name: fields.name ?? "tool",
    ...(fields.id !== undefined ? { id: fields.id } : {}),
    ...(fields.status !== undefined ? { status: fields.status } : {}),
  });
}

// Limits in estimates of the default (digit- and symbol-aware) estimator, which charges
// these id-dense results about 1.35× what `UTF-8 bytes / 3` did.
const fixtures: Array<[string, () => unknown, number]> = [
  ["finance report", () => financeReport(120), 3400],
  ["finance report, tight", () => financeReport(120), 2600],
  ["transaction search", () => transactionSearch(100), 3400],
  ["note read", () => noteRead(12), 800],
  ["note search", () => noteSearch(40), 1200],
  ["API page of items", () => apiPage(80), 1800],
  ["top-level array", () => topLevelRows(90), 1200],
  ["mixed arrays", () => mixedArrays(), 1600],
];

describe("compactToolResult on structured fixtures", () => {
  it.each(fixtures)("%s: valid JSON within the limit, a lawful projection of the artifact", (_name, build, limit) => {
    const artifact = deepFreeze(build());
    const message = toolMessage(artifact);
    expect(tokensOf(message)).toBeGreaterThan(limit);
    const compact = compactToolResult(message, limit);
    expect(tokensOf(compact)).toBeLessThanOrEqual(limit);
    const output = contentJson(compact);
    expect(projectionProblems(artifact, output)).toEqual([]);
    expect(compactedNodes(output).length).toBeGreaterThan(0);
    const marker = compactionMarkerOf(compact);
    expect(marker).toMatchObject({ form: "json", origin: "artifact", limitTokens: limit });
  });

  it("keeps top-level totals, dates, counts, filters, query and source references whole", () => {
    const search = transactionSearch(100);
    const out = contentJson(compactToolResult(toolMessage(search), 3000)) as Record<string, unknown>;
    expect(out["query"]).toBe("coffee");
    expect(out["filters"]).toEqual(search.filters);
    expect(out["source"]).toEqual(search.source);
    // The upstream count describes the query, the node counts describe the rows returned.
    expect(out["count"]).toBe(842);
    expect(out["results"]).toMatchObject({ $compacted: "rows", returned: 100 });

    const report = financeReport(120);
    const finance = contentJson(compactToolResult(toolMessage(report), 3000)) as Record<string, unknown>;
    expect(finance["totals"]).toEqual(report.totals);
    expect(finance["date_range"]).toEqual(report.date_range);
    expect(finance["count"]).toBe(120);
  });

  it("reports omitted rows with their ids, dates and urls, in source order", () => {
    const search = transactionSearch(100);
    const node = (contentJson(compactToolResult(toolMessage(search), 3000)) as { results: Record<string, unknown> }).results;
    const retained = node["retained"] as number;
    const table = node["omitted_refs"] as { fields: string[]; rows: unknown[][] };
    expect(table.fields).toEqual(["transaction_id", "date", "url"]);
    expect(table.rows[0]).toEqual([search.results[retained]!.transaction_id, search.results[retained]!.date, search.results[retained]!.url]);
    expect(table.rows.at(-1)?.[0]).toBe("t-1099");
    expect(node["notice"]).toMatch(/consult the original tool result \(artifact\) or narrow the query \(filters, paging\)/);
  });

  it("never invents an aggregate: the only numbers are the source's and the counts", () => {
    const out = compactToolResult(toolMessage(financeReport(120)), 2600);
    const text = textOf(out.content);
    expect(text).not.toMatch(/"(sum|average|subtotal)"/);
  });

  it("excerpts text fields as prefixes with the omitted count, keeping note frontmatter", () => {
    const note = noteRead(12);
    const out = contentJson(compactToolResult(toolMessage(note), 600)) as Record<string, Record<string, unknown>>;
    const markdown = out["markdown"]!;
    expect(markdown["$compacted"]).toBe("text");
    expect(markdown["frontmatter"]).toBe("---\ntitle: Household budget 2024\ntags: [finance, planning]\ncreated: 2024-01-04\n---\n");
    expect(out["frontmatter"]).toEqual(note.frontmatter);
    expect(markdown["omitted_chars"]).toBeGreaterThan(0);
  });

  it("indexes note headings with content line numbers that a focused read resolves", () => {
    const note = noteRead(12);
    const markdown = (contentJson(compactToolResult(toolMessage(note), 600)) as Record<string, Record<string, unknown>>)["markdown"]!;
    const headings = markdown["headings"] as string[];
    expect(headings).toHaveLength(13);
    expect(headings).not.toContain(expect.stringContaining("not a heading"));
    for (const entry of headings) {
      const [, line, heading] = /^L(\d+) (.*)$/.exec(entry)!;
      expect(readNoteLines(note.markdown, { startLine: Number(line), maxLines: 1 }).text).toBe(heading);
    }
    expect(markdown["lines"]).toBe(readNoteLines(note.markdown, { startLine: 1 }).totalLines);
  });

  it("bounds the heading index and counts the headings left out", () => {
    const note = noteRead(40);
    const markdown = (contentJson(compactToolResult(toolMessage(note), 900, { maxHeadings: 5 })) as Record<string, Record<string, unknown>>)["markdown"]!;
    expect(markdown["headings"]).toHaveLength(5);
    expect(markdown["headings_omitted"]).toBe(36);
  });
});

describe("compactToolResult sources", () => {
  it("keeps a small result whole, in a new message", () => {
    const message = toolMessage({ ok: true }, { id: "m1" });
    const out = compactToolResult(message, 100);
    expect(out).not.toBe(message);
    expect(out.content).toBe(message.content);
    expect(isCompactedToolResult(out)).toBe(false);
  });

  it("prefers the artifact over the content", () => {
    const artifact = transactionSearch(60);
    const message = toolMessage(artifact, { content: "x".repeat(20000) });
    const out = contentJson(compactToolResult(message, 2400)) as Record<string, unknown>;
    expect(out["query"]).toBe("coffee");
  });

  it("uses artifact.model_context instead of the full artifact", () => {
    const note = noteRead(30);
    const focus = readNoteLines(note.markdown, { startLine: 40, maxLines: 10 });
    const artifact = { ...note, model_context: { path: note.path, ...focus } };
    const out = compactToolResult(toolMessage(artifact), 700);
    expect(contentJson(out)).toEqual({ path: note.path, ...focus });
    expect(compactionMarkerOf(out)).toMatchObject({ form: "json", origin: "model_context", omittedRows: 0 });
    expect(out.artifact).toBe(artifact);
  });

  it("shows a text model_context as it is when it fits", () => {
    const artifact = { full: "y".repeat(50000), model_context: "lines 10-12 of the note" };
    const out = compactToolResult(toolMessage(artifact), 100);
    expect(out.content).toBe("lines 10-12 of the note");
  });

  it("parses JSON content when there is no artifact", () => {
    const search = transactionSearch(100);
    const message = new ToolMessage({ content: JSON.stringify(search, null, 2), tool_call_id: "c" });
    const out = compactToolResult(message, 3000);
    expect(projectionProblems(search, contentJson(out))).toEqual([]);
    expect(compactionMarkerOf(out)).toMatchObject({ origin: "content" });
  });

  it("treats `$compacted` keys in a fresh artifact as data", () => {
    const artifact = { $compacted: "rows", returned: 1, rows: [], note: "z".repeat(9000) };
    const out = contentJson(compactToolResult(toolMessage(artifact), 400)) as Record<string, unknown>;
    expect(out["returned"]).toBe(1);
    expect(out["note"]).toMatchObject({ $compacted: "text" });
  });

  it("excerpts unknown text as a marked beginning and end with the omitted count", () => {
    const text = Array.from({ length: 3000 }, (_, i) => `log line ${i}`).join("\n");
    const out = compactToolResult(new ToolMessage({ content: text, tool_call_id: "c" }), 400);
    const content = textOf(out.content);
    expect(tokensOf(out)).toBeLessThanOrEqual(400);
    expect(content.startsWith("[Beginning of tool result:")).toBe(true);
    expect(content.endsWith("[End of tool result]")).toBe(true);
    expect(content).toContain("log line 0\n");
    expect(content).toContain("log line 2999\n");
    const marker = compactionMarkerOf(out);
    expect(marker).toMatchObject({ form: "text", totalChars: text.length });
    if (marker?.form !== "text") throw new Error("text marker expected");
    expect(marker.headChars + marker.tailChars + marker.omittedChars).toBe(text.length);
    expect(content).toContain(`${marker.omittedChars} characters omitted`);
  });

  it("keeps image blocks beside the compacted text", () => {
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
    const message = new ToolMessage({ content: [{ type: "text", text: "w".repeat(9000) }, image] as never, tool_call_id: "c" });
    const out = compactToolResult(message, 300);
    expect(Array.isArray(out.content)).toBe(true);
    expect((out.content as unknown[])[1]).toBe(image);
  });

  it("keeps tool_call_id, name, id, status and the artifact", () => {
    const artifact = financeReport(120);
    const message = toolMessage(artifact, { name: "monthly_report", id: "msg-9", status: "error" });
    const out = compactToolResult(message, 3000);
    expect(out).toBeInstanceOf(ToolMessage);
    expect([out.tool_call_id, out.name, out.id, out.status]).toEqual(["call-1", "monthly_report", "msg-9", "error"]);
    expect(out.artifact).toBe(artifact);
    expect(out.response_metadata[COMPACTION_METADATA_KEY]).toBeDefined();
    expect(message.response_metadata[COMPACTION_METADATA_KEY]).toBeUndefined();
  });
});

describe("repeated compaction", () => {
  it.each([
    ["finance report", () => financeReport(120), 4000, 2600],
    ["transaction search", () => transactionSearch(100), 4000, 2900],
    ["note read", () => noteRead(12), 1100, 400],
    ["mixed arrays", () => mixedArrays(), 2000, 1400],
  ] as Array<[string, () => unknown, number, number]>)("%s: a smaller limit accumulates omissions and references", (_name, build, first, second) => {
    const artifact = build();
    const once = compactToolResult(toolMessage(artifact), first);
    const twice = compactToolResult(once, second);
    expect(tokensOf(twice)).toBeLessThanOrEqual(second);
    expect(projectionProblems(artifact, contentJson(twice))).toEqual([]);
    const [a, b] = [compactionMarkerOf(once), compactionMarkerOf(twice)] as Array<{ omittedRows: number; omittedChars: number }>;
    expect(b!.omittedRows + b!.omittedChars).toBeGreaterThan(a!.omittedRows + a!.omittedChars);
    expect(b!.omittedRows).toBeGreaterThanOrEqual(a!.omittedRows);
    expect(b!.omittedChars).toBeGreaterThanOrEqual(a!.omittedChars);
  });

  it("is idempotent at the same limit", () => {
    const once = compactToolResult(toolMessage(financeReport(120)), 2700);
    const twice = compactToolResult(once, 2700);
    expect(twice.content).toBe(once.content);
    expect(compactionMarkerOf(twice)).toEqual(compactionMarkerOf(once));
  });

  it("accumulates text excerpts instead of wrapping them", () => {
    const text = "0123456789".repeat(3000);
    const once = compactToolResult(new ToolMessage({ content: text, tool_call_id: "c" }), 500);
    const twice = compactToolResult(once, 200);
    const content = textOf(twice.content);
    expect(content.match(/\[Beginning of tool result/g)).toHaveLength(1);
    const marker = compactionMarkerOf(twice);
    if (marker?.form !== "text") throw new Error("text marker expected");
    expect(marker.totalChars).toBe(30000);
    expect(marker.headChars + marker.tailChars + marker.omittedChars).toBe(30000);
    expect(compactToolResult(twice, 200).content).toBe(twice.content);
  });
});

describe("compactToolResult limits and options", () => {
  it("throws COMPACTION_LIMIT with the figures when references cannot fit", () => {
    const message = toolMessage(financeReport(400));
    let error: unknown;
    try {
      compactToolResult(message, 300);
    } catch (caught) {
      error = caught;
    }
    expect(ContextViewError.isInstance(error)).toBe(true);
    const { code, details } = error as ContextViewError;
    expect(code).toBe("COMPACTION_LIMIT");
    expect(details).toMatchObject({ limitTokens: 300, origin: "artifact" });
    expect(details["requiredTokens"]).toBeGreaterThan(300);
    expect(details["originalTokens"]).toBe(tokensOf(message));
  });

  it.each([
    [0, "`limitTokens`"],
    [1.5, "`limitTokens`"],
    [Number.NaN, "`limitTokens`"],
  ])("rejects limit %p", (limit, field) => {
    expect(() => compactToolResult(toolMessage({ a: 1 }), limit)).toThrow(field);
  });

  it.each([
    [{ textFields: "markdown" }, "`textFields`"],
    [{ maxHeadings: 0 }, "`maxHeadings`"],
    [{ maxDepth: -1 }, "`maxDepth`"],
    [{ estimator: {} }, "`estimator`"],
  ])("rejects option %p", (options, field) => {
    expect(() => compactToolResult(toolMessage(financeReport(50)), 100, options as never)).toThrow(field);
  });

  it("rejects a message that is not a tool result", () => {
    expect(() => compactToolResult({ content: "x" } as never, 10)).toThrow("`message`");
  });

  it("honours custom key lists", () => {
    const page = apiPage(80);
    const out = contentJson(compactToolResult(toolMessage(page), 1200, { collectionKeys: ["items"], referenceFields: ["title"] })) as Record<string, Record<string, unknown>>;
    const items = out["items"]!;
    expect((items["omitted_refs"] as { fields: string[] }).fields).toEqual(["title"]);
  });
});

describe("a reference key whose values are of two kinds", () => {
  // Found by the compaction laws' property test (seed -736396315): the first row's `id` looked
  // like a URL ("A:// "), so the key was read as a link and the omitted rows' plain ids were dropped.
  it("keeps every omitted row's identifier, whether its first value read as a link or as an identifier", () => {
    const memo = (i: number) => `row ${i} ${"with a memo long enough to be omitted ".repeat(4)}`;
    for (const first of ["A:// ", "tx-0"]) {
      const id = (i: number) => (i === 0 ? first : i % 3 === 0 ? `https://bank.example/tx/${i}` : `tx=${i};b`);
      const rows = Array.from({ length: 40 }, (_, i) => ({ id: id(i), amount: i, memo: memo(i) }));
      const artifact = deepFreeze({ transactions: rows });
      const out = compactToolResult(toolMessage(artifact), 900);
      const json = contentJson(out) as { transactions: { omitted_refs: { fields: string[]; rows: unknown[][] }; retained: number } };
      expect(projectionProblems(artifact, json)).toEqual([]);
      const { fields, rows: refs } = json.transactions.omitted_refs;
      const ids = refs.map((row) => row[fields.indexOf("id")]);
      expect(ids).toEqual(rows.slice(json.transactions.retained).map((row) => row.id));
    }
  });
});
