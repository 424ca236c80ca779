// Compaction time per MB of tool result against the floor of one JSON.parse plus
// one JSON.stringify of the same payload. Run: npx tsx bench/compaction.bench.ts
import { performance } from "node:perf_hooks";
import { ToolMessage } from "@langchain/core/messages";
import { ContextViewError, compactToolResult } from "../packages/core/src/index.js";

const MB = 1024 * 1024;
const RUNS = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(run: () => unknown): number {
  run();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
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

function requiredTokens(message: ToolMessage): number {
  try {
    compactToolResult(message, 1);
  } catch (error) {
    if (ContextViewError.isInstance(error) && error.code === "COMPACTION_LIMIT") return error.details["requiredTokens"] as number;
    throw error;
  }
  return 1;
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

const header = ["payload", "MB", "limit", "floor ms/MB", "content ms/MB", "content ×floor", "artifact ms/MB", "artifact ×floor"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padStart(widths[i]!)).join("  ");
console.log(`compaction vs JSON.parse + JSON.stringify (median of ${RUNS}; target ≤ 3× floor)`);
console.log(line(header));
for (const row of rows) console.log(line(row));
