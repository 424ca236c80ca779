// Compaction time per MB of tool result against the floor of one JSON.parse plus
// one JSON.stringify of the same payload. Run: npx tsx bench/compaction.bench.ts
import { performance } from "node:perf_hooks";
import { ToolMessage } from "@langchain/core/messages";
import { ContextViewError, createEstimator } from "@contextview/core";
import { compactOrNarrow, compactToolResult } from "@contextview/core/tool-results";
import { githubIssuesList, githubSearch, slackRtmStart, stripeObjects } from "../test/fixtures/api/apiPayloads.js";

const MB = 1024 * 1024;
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Median time of `run`: at least RUNS samples and 300 ms of them, so small payloads are not all noise. */
function time(run: () => unknown): number {
  run();
  const samples: number[] = [];
  const started = performance.now();
  while (samples.length < RUNS || (performance.now() - started < 300 && samples.length < 200)) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/** Notes: few rows, long markdown; compacted to the default 2000-token result limit. */
function documents(bytes: number) {
  const section = "## Heading\n" + "A line of the note about budgets, plans and the month's spending.\n".repeat(40);
  const perDoc = Math.ceil(bytes / 60 / section.length);
  return {
    query: "budget",
    source: "obsidian:vault",
    documents: Array.from({ length: 60 }, (_, i) => ({ path: `notes/${i}.md`, markdown: `---\ntitle: ${i}\n---\n` + section.repeat(perDoc) })),
  };
}

/** Transactions: many rows; the limit leaves room for every omitted row's references. */
function transactions(bytes: number) {
  const count = Math.ceil(bytes / 240);
  return {
    query: "all",
    count,
    transactions: Array.from({ length: count }, (_, i) => ({
      id: `t${i}`,
      date: `2024-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")}`,
      amount: -((i * 37) % 10000) / 100,
      payee: `Payee number ${i % 500}`,
      memo: "Memo text that describes the purchase in a sentence or two, as people write them.".slice(0, 40 + (i % 40)),
      category: { id: `c${i % 20}`, name: `Category ${i % 20}` },
    })),
  };
}

/** The floors of a payload: lean references (level 0) and identifiers only. */
function floors(message: ToolMessage): { references: number; ids: number } {
  try {
    compactToolResult(message, 1);
  } catch (error) {
    if (ContextViewError.isInstance(error) && error.code === "COMPACTION_LIMIT") {
      return { references: error.details["referencesTokens"] as number, ids: error.details["requiredTokens"] as number };
    }
    throw error;
  }
  return { references: 1, ids: 1 };
}

function requiredTokens(message: ToolMessage): number {
  return floors(message).references;
}

const rows: string[][] = [];
for (const [shape, build] of [["documents", documents], ["transactions", transactions]] as const) {
  for (const size of [1, 5, 20]) {
    const payload = build(size * MB);
    const content = JSON.stringify(payload);
    const mb = Buffer.byteLength(content) / MB;
    const fromContent = new ToolMessage({ content, tool_call_id: "bench" });
    const fromArtifact = new ToolMessage({ content, artifact: payload, tool_call_id: "bench" });
    const limit = shape === "documents" ? 2000 : Math.ceil(requiredTokens(fromContent) * 1.2);
    const floor = time(() => JSON.stringify(JSON.parse(content)));
    const viaContent = time(() => compactToolResult(fromContent, limit));
    const viaArtifact = time(() => compactToolResult(fromArtifact, limit));
    rows.push([
      shape,
      mb.toFixed(1),
      String(limit),
      (floor / mb).toFixed(1),
      (viaContent / mb).toFixed(1),
      (viaContent / floor).toFixed(2),
      (viaArtifact / mb).toFixed(1),
      (viaArtifact / floor).toFixed(2),
    ]);
  }
}

// Recorded real-API payloads (test/fixtures/api): the default result limit and each payload's own floor.
const estimator = createEstimator();
const stripe = stripeObjects();
const real: Array<[string, unknown, number]> = [
  ["github search 100", githubSearch(100), 100],
  ["github search 1000", githubSearch(1000), 1000],
  ["github list 13", githubIssuesList(), 13],
  ["stripe invoices 50", { object: "list", data: Array.from({ length: 50 }, (_, i) => ({ ...stripe.invoice, id: `in_${i}` })), has_more: true, url: "/v1/invoices" }, 50],
  ["slack rtm.start", slackRtmStart(), 0],
];
const realRows: string[][] = [];
for (const [name, payload, count] of real) {
  const content = JSON.stringify(payload);
  const mb = Buffer.byteLength(content) / MB;
  const message = new ToolMessage({ content, artifact: payload, tool_call_id: "bench" });
  const floor = floors(message);
  const parse = time(() => JSON.stringify(JSON.parse(content)));
  for (const limit of [2000, floor.references]) {
    // Below the identifiers' floor (1,000 search rows at 2,000 tokens) compactToolResult refuses
    // with COMPACTION_LIMIT by design; the view then shows totals and asks to narrow the query.
    const compact = time(() => (limit >= floor.ids ? compactToolResult(message, limit) : compactOrNarrow(message, limit)));
    realRows.push([
      name,
      (mb * 1024).toFixed(0),
      String(estimator.estimateText(content)),
      String(limit),
      String(floor.references),
      count > 0 ? (floor.references / count).toFixed(1) : "-",
      String(floor.ids),
      (compact / parse).toFixed(2),
    ]);
  }
}

const header = ["payload", "MB", "limit", "floor ms/MB", "content ms/MB", "content ×floor", "artifact ms/MB", "artifact ×floor"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
console.log(`compaction vs JSON.parse + JSON.stringify (median of ${RUNS}; target ≤ 3× floor)`);
console.log(line(header));
for (const row of rows) console.log(line(row));

const realHeader = ["recorded payload", "KB", "tokens", "limit", "level-0 floor", "floor/row", "ids floor", "×floor"];
const realWidths = realHeader.map((h, i) => Math.max(h.length, ...realRows.map((r) => r[i]!.length)));
console.log(`\nrecorded API payloads (artifact; median of ${RUNS}; target ≤ 3× the parse+stringify floor; level-0 = lean references of every row)`);
console.log(realHeader.map((c, i) => c.padStart(realWidths[i]!)).join("  "));
for (const row of realRows) console.log(row.map((c, i) => c.padStart(realWidths[i]!)).join("  "));
