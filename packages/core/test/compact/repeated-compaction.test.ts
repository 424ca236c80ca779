import { ToolMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { compactToolResult, compactionMarkerOf } from "@contextview/core/tool-results";
import { textOf } from "../../src/messages.js";
import { deepFreeze } from "@contextview/test-support";
import { contentJson, omissionTotals, omittedReferences, projectionProblems } from "./laws.js";

const estimator = createEstimator();

const toolMessage = (artifact: unknown) => new ToolMessage({ content: JSON.stringify(artifact), artifact, tool_call_id: "call-r" });

/** `a` holds every string of `b` at least as often. */
function containsAll(a: readonly string[], b: readonly string[]): boolean {
  const counts = new Map<string, number>();
  for (const item of a) counts.set(item, (counts.get(item) ?? 0) + 1);
  return b.every((item) => {
    const left = counts.get(item) ?? 0;
    counts.set(item, left - 1);
    return left > 0;
  });
}

const repeat = (text: string, times: number) => text.repeat(times);

// Each payload is compacted at the limits in turn. The first pass keeps a row (or
// an element) whose memo, tags, documents or snippets it shortens; a later pass
// drops that row, and the omissions and references inside it must move to the
// collection's `nested_omissions` instead of disappearing with the row. The limits
// fall between the sizes of successive levels under the default estimator, with
// a margin of about 20 tokens or more, so each pass's level is the one described.
const cases: Array<[string, unknown, number[], string, Array<Array<string | number>>]> = [
  [
    "a kept transaction's shortened memo and tags (the property's counterexample)",
    {
      query: "coffee",
      transactions: [1, 2, 3].map((n) => ({ id: `t${n}`, date: `2024-03-0${n}`, amount: -n, memo: repeat(`memo ${n} `, 40), tags: ["food", "cafe", "work", "team", "q1"] })),
    },
    [300, 200],
    "transactions",
    [
      [0, "memo"],
      [0, "tags"],
    ],
  ],
  [
    "the references of a kept result's documents, over three passes",
    {
      results: [1, 2, 3].map((n) => ({
        id: `r${n}`,
        documents: [1, 2, 3, 4, 5, 6].map((d) => ({ id: `r${n}-d${d}`, path: `/notes/${n}/${d}.md`, snippet: repeat(`snippet ${d} `, 30) })),
      })),
    },
    [960, 744, 480],
    "results",
    [
      [0, "documents"],
      [0, "documents", 0, "snippet"],
      [0, "documents", 1, "snippet"],
      [1, "documents"],
      [1, "documents", 0, "snippet"],
      [1, "documents", 1, "snippet"],
    ],
  ],
  [
    "an array kept whole with shortened descriptions, then shortened",
    { items: [1, 2, 3].map((n) => ({ title: `item ${n}`, description: repeat(`description of item ${n}. `, 20) })) },
    [300, 185],
    "items",
    [
      [0, "description"],
      [1, "description"],
      [2, "description"],
    ],
  ],
  [
    "a kept row's long id (up to the 120 characters of an identifier), which must stay whole to become its reference",
    { transactions: [1, 2, 3, 4].map((n) => ({ id: repeat(`${n}`, 120), memo: repeat(`m${n} `, 100) })) },
    // Levels under the default estimator: 1 row 372 tokens (with nested_omissions),
    // 2 rows 528, 3 rows 830 (a `m1 ` memo counts twice what bytes / 3 did).
    [680, 600, 460],
    "transactions",
    [[1, "memo"]],
  ],
];

describe("repeated compaction never loses an earlier omission", () => {
  it.each(cases)("%s", (_name, payload, limits, key, nestedPaths) => {
    const artifact = deepFreeze(payload);
    const before = JSON.stringify(artifact);
    let previous = toolMessage(artifact);
    for (const limit of limits) {
      const next = compactToolResult(previous, limit);
      expect(estimator.estimateText(textOf(next.content))).toBeLessThanOrEqual(limit);
      const output = contentJson(next);
      expect(projectionProblems(artifact, output)).toEqual([]);
      const marker = compactionMarkerOf(next);
      if (marker?.form !== "json") throw new Error("json marker expected");
      expect(omissionTotals(output)).toEqual({ omittedRows: marker.omittedRows, omittedChars: marker.omittedChars });
      const earlier = compactionMarkerOf(previous);
      if (earlier?.form === "json") {
        expect(marker.omittedRows).toBeGreaterThanOrEqual(earlier.omittedRows);
        expect(marker.omittedChars).toBeGreaterThanOrEqual(earlier.omittedChars);
        if ((marker.references ?? "full") === "full") expect(containsAll(omittedReferences(output), omittedReferences(contentJson(previous)))).toBe(true);
      }
      previous = next;
    }
    const node = (contentJson(previous) as Record<string, { nested_omissions?: Array<{ path: unknown }> }>)[key]!;
    expect(node.nested_omissions?.map((entry) => entry.path)).toEqual(nestedPaths);
    expect(JSON.stringify(artifact)).toBe(before);
  });

  it("keeps a `$compacted` key of a fresh artifact as data in later passes", () => {
    const artifact = deepFreeze({ $compacted: "rows", returned: 1, rows: [], note: "z".repeat(9000) });
    const once = compactToolResult(toolMessage(artifact), 800);
    const twice = compactToolResult(once, 400);
    const output = contentJson(twice) as Record<string, unknown>;
    expect(output).toMatchObject({ $compacted: "rows", returned: 1, rows: [], note: { $compacted: "text", total_chars: 9000 } });
    expect(output).not.toHaveProperty("omitted");
    const [a, b] = [compactionMarkerOf(once), compactionMarkerOf(twice)] as Array<{ omittedRows: number; omittedChars: number }>;
    expect(b!.omittedRows).toBe(0);
    expect(b!.omittedChars).toBeGreaterThan(a!.omittedChars);
  });
});
