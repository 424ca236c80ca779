import { ToolMessage } from "@langchain/core/messages";
import { ContextViewError, createEstimator } from "@contextview/core";
import { compactToolResult, compactionMarkerOf } from "@contextview/core/tool-results";
import { textOf } from "../../src/messages.js";
import { contentJson } from "./laws.js";
import { thrownBy } from "@contextview/test-support";

const tool = (fields: { content?: string; artifact?: unknown }) =>
  new ToolMessage({ content: fields.content ?? "x".repeat(30000), tool_call_id: "call-h", ...(fields.artifact !== undefined ? { artifact: fields.artifact } : {}) });

const errorOf = (run: () => unknown) => thrownBy<ContextViewError>(run, (error) => ContextViewError.isInstance(error));

function nested(depth: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) value = { child: value };
  return value;
}

describe("hostile tool results", () => {
  it("rejects a 100,000-deep artifact with INVALID_TOOL_RESULT, not a stack overflow", () => {
    const error = errorOf(() => compactToolResult(tool({ artifact: nested(100_000) }), 500));
    expect(error.code).toBe("INVALID_TOOL_RESULT");
    expect(error.message).toContain("`maxDepth` (200)");
  });

  it("excerpts 100,000-deep JSON content as text", () => {
    const content = "[".repeat(100_000) + "]".repeat(100_000);
    const out = compactToolResult(tool({ content }), 500);
    expect(compactionMarkerOf(out)).toMatchObject({ form: "text", totalChars: 200_000 });
    expect(createEstimator().estimateText(textOf(out.content))).toBeLessThanOrEqual(500);
  });

  it("rejects a cyclic artifact and names the path", () => {
    const artifact: Record<string, unknown> = { rows: [{ id: 1 }] };
    (artifact["rows"] as Array<Record<string, unknown>>)[0]!["self"] = artifact;
    const error = errorOf(() => compactToolResult(tool({ artifact }), 500));
    expect(error.code).toBe("INVALID_TOOL_RESULT");
    expect(error.message).toContain("cyclic: $.rows[0].self");
  });

  it("accepts shared (acyclic) sub-objects", () => {
    const shared = { id: "cat-1", name: "Groceries" };
    const artifact = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, category: shared })) };
    const out = contentJson(compactToolResult(tool({ artifact }), 800)) as { rows: { rows: unknown[] } };
    expect(out.rows.rows[0]).toEqual({ id: 0, category: shared });
  });

  it("rejects an artifact that expands exponentially through shared objects", () => {
    let value: unknown = ["leaf"];
    for (let i = 0; i < 40; i++) value = [value, value];
    const error = errorOf(() => compactToolResult(tool({ artifact: { rows: value } }), 500));
    expect(error.code).toBe("INVALID_TOOL_RESULT");
    expect(error.message).toContain("`maxNodes`");
  });

  it.each([
    ["a BigInt", { total: BigInt(10) }, "BigInt at $.total"],
    ["a Map", { rows: new Map([["a", 1]]) }, "a Map at $.rows"],
    ["a throwing getter", Object.defineProperty({}, "rows", { enumerable: true, get: () => { throw new Error("boom"); } }), "could not be read"],
  ])("rejects an artifact holding %s", (_name, artifact, message) => {
    const error = errorOf(() => compactToolResult(tool({ artifact }), 500));
    expect(error.code).toBe("INVALID_TOOL_RESULT");
    expect(error.message).toContain(message);
  });

  it("excerpts a 50 MB string within the limit", () => {
    const big = "a".repeat(50 * 1024 * 1024);
    const out = compactToolResult(tool({ artifact: { path: "big.txt", content: big } }), 1000);
    const json = contentJson(out) as { content: { omitted_chars: number; excerpt: string } };
    expect(json.content.excerpt.length + json.content.omitted_chars).toBe(big.length);
    expect(createEstimator().estimateText(textOf(out.content))).toBeLessThanOrEqual(1000);
  });

  it("excerpts 50 MB of plain text within the limit", () => {
    const out = compactToolResult(tool({ content: "b".repeat(50 * 1024 * 1024) }), 1000);
    expect(compactionMarkerOf(out)).toMatchObject({ form: "text", totalChars: 50 * 1024 * 1024 });
  });

  it("keeps lone surrogates valid JSON and never splits a surrogate pair", () => {
    const text = "😀".repeat(5000) + "\ud800" + "x".repeat(100);
    const out = compactToolResult(tool({ artifact: { text, other: "\udc00lone" } }), 300);
    const json = contentJson(out) as { text: { excerpt: string }; other: string };
    expect(json.other).toBe("\udc00lone");
    expect(json.text.excerpt).toMatch(/^(😀)+$/u);
  });

  it("keeps `__proto__` keys as data and pollutes nothing", () => {
    const content = JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i })) }).replace('{"rows"', '{"__proto__":{"polluted":true},"rows"');
    const message = tool({ artifact: JSON.parse(content) });
    const out = compactToolResult(message, 1200);
    const text = textOf(out.content);
    expect(text.startsWith('{"__proto__":{"polluted":true}')).toBe(true);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")).toBe(false);
    const again = compactToolResult(out, 800);
    expect(textOf(again.content).startsWith('{"__proto__":{"polluted":true}')).toBe(true);
  });

  it("follows JSON semantics for undefined, functions, non-finite numbers and dates", () => {
    const artifact = { a: undefined, f: () => 1, n: Number.NaN, d: new Date(Date.UTC(2024, 2, 1)), rows: [undefined, 1], pad: "p".repeat(3000) };
    const out = contentJson(compactToolResult(tool({ artifact }), 400)) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(["n", "d", "rows", "pad"]);
    expect(out["n"]).toBeNull();
    expect(out["d"]).toBe("2024-03-01T00:00:00.000Z");
    expect(out["rows"]).toEqual([null, 1]);
  });
});
