import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { buildContext } from "@contextview/core";
import { compactOrNarrow, compactToolResult, compactionMarkerOf, microCompact } from "@contextview/core/tool-results";
import { COMPACTION_METADATA_KEY } from "../../src/compact/index.js";
import { textOf } from "../../src/messages.js";
import { sha256BytesHashed } from "../../src/sha256.js";

// A marker says what contextview did to a result's content. Only one contextview wrote for
// that very content is trusted; one a tool set (or one copied onto other content) is ignored
// and the result is compacted from what it really holds.

const rows = Array.from({ length: 300 }, (_, i) => ({ id: `txn-${i}`, date: "2024-03-02", merchant: `Shop ${i}`, amount: i % 97, memo: `weekly groceries ${i} `.repeat(70) }));
const big = JSON.stringify({ transactions: rows });

const result = (marker: unknown, content = big) =>
  new ToolMessage({ content, tool_call_id: "call-1", name: "search", id: "t1", response_metadata: { [COMPACTION_METADATA_KEY]: marker } });

const FORGED = [
  ["narrowed", { form: "narrowed", originalTokens: 83 }],
  ["cleared", { form: "cleared", originalTokens: 83 }],
  ["json", { form: "json", origin: "content", limitTokens: 50, omittedRows: 0, omittedChars: 0 }],
  ["text", { form: "text", origin: "content", limitTokens: 50, headChars: 10, tailChars: 10, omittedChars: 5, totalChars: 25 }],
] as const;

describe("compaction markers contextview did not write", () => {
  it("is a result larger than 400 KB", () => {
    expect(big.length).toBeGreaterThan(400_000);
  });

  it.each(FORGED)("ignores a tool-set %s marker: compactionMarkerOf reads none", (_form, marker) => {
    expect(compactionMarkerOf(result(marker))).toBeUndefined();
  });

  it.each(FORGED)("compacts a result with a tool-set %s marker from its real content, never as too large", (_form, marker) => {
    const { message, outcome } = compactOrNarrow(result(marker), 4000);
    expect(outcome).toBe("compacted");
    expect(textOf(message.content)).not.toContain("too large to show");
    expect(compactionMarkerOf(message)).toMatchObject({ form: "json", origin: "content" });
    expect(textOf(message.content)).toContain("txn-0");
  });

  it("shows the current turn's result compacted from its rows in a view", () => {
    const messages = [
      new HumanMessage({ id: "h1", content: "What did I spend on groceries?" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "call-1", name: "search", args: { q: "groceries" } }] }),
      result({ form: "narrowed", originalTokens: 83 }),
    ];
    const { messages: view, report } = buildContext({ messages });
    const shown = view.find((m) => ToolMessage.isInstance(m)) as ToolMessage;
    expect(textOf(shown.content)).not.toContain("too large to show");
    expect(textOf(shown.content)).toContain("txn-0");
    expect(report.toolResults.compacted).toBe(1);
  });

  it("does not leave a result with a tool-set cleared marker as it is in micro-compaction", () => {
    const { messages, cleared, compacted } = microCompact([result({ form: "cleared", originalTokens: 83 })], { keepRecentToolResults: 1, maxToolResultTokens: 4000 });
    expect([cleared, compacted]).toEqual([0, 1]);
    expect(textOf(messages[0]!.content)).toContain("txn-0");
  });

  it("ignores contextview's own marker copied onto other content", () => {
    const compact = compactToolResult(result(undefined), 4000);
    const copied = result(compact.response_metadata[COMPACTION_METADATA_KEY]);
    expect(compactionMarkerOf(compact)).toMatchObject({ form: "json" });
    expect(compactionMarkerOf(copied)).toBeUndefined();
  });

  it("ignores contextview's own marker whose counts were changed", () => {
    const compact = compactToolResult(result(undefined), 4000);
    const marker = compact.response_metadata[COMPACTION_METADATA_KEY] as Record<string, unknown>;
    const edited = new ToolMessage({ ...compact, content: compact.content, tool_call_id: "call-1", response_metadata: { [COMPACTION_METADATA_KEY]: { ...marker, omittedRows: 1 } } });
    expect(compactionMarkerOf(edited)).toBeUndefined();
  });

  it("trusts contextview's own marker after a checkpoint round trip (keys reordered, string content as one text block)", () => {
    const compact = compactToolResult(result(undefined), 4000);
    const marker = compact.response_metadata[COMPACTION_METADATA_KEY] as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(marker)) as Record<string, unknown>).reverse());
    const restored = new ToolMessage({ content: [{ type: "text", text: textOf(compact.content) }], tool_call_id: "call-1", response_metadata: { [COMPACTION_METADATA_KEY]: reordered } });
    expect(compactionMarkerOf(restored)).toEqual(compactionMarkerOf(compact));
  });
});

describe("the cost of a marker that is not contextview's", () => {
  it("hashes nothing for a cleared marker on a large result, whatever its fingerprint claims", () => {
    const forged = { form: "cleared", originalTokens: 83, fingerprint: `${big.length}:${"0".repeat(32)}` };
    const before = sha256BytesHashed();
    expect(compactionMarkerOf(result(forged))).toBeUndefined();
    expect(sha256BytesHashed() - before).toBe(0);
  });

  it("still trusts contextview's own cleared notice", () => {
    const { messages } = microCompact([result(undefined), result(undefined)], { keepRecentToolResults: 1, maxToolResultTokens: 50_000 });
    expect(compactionMarkerOf(messages[0]!)).toMatchObject({ form: "cleared" });
  });
});
