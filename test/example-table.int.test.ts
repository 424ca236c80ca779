import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Issue 28, item 8: the README's main example prints a table in the report's vocabulary,
// and its columns show what the run really does — summarized messages and compacted
// results with the summarizer, dropped messages and turns without it (not 0 on every turn).

const ROOT = join(__dirname, "..");

/** Runs `pnpm example` (its script) and returns the table's rows, column title → value. */
function exampleTable(env: Record<string, string>): Record<string, string>[] {
  const dir = mkdtempSync(join(tmpdir(), "contextview-example-"));
  try {
    const out = execFileSync(join(ROOT, "node_modules/.bin/tsx"), ["examples/finance-agent/main.ts"], {
      cwd: ROOT,
      env: { ...process.env, ...env, CONTEXTVIEW_EXAMPLE_DIR: dir },
      encoding: "utf8",
    });
    const lines = out.split("\n");
    const at = lines.findIndex((line) => line.trim().startsWith("call"));
    const titles = (lines[at] as string).trim().split(/\s{2,}/);
    const rows: Record<string, string>[] = [];
    for (const line of lines.slice(at + 1)) {
      if (line.trim() === "") break;
      const cells = line.trim().split(/\s{2,}/);
      rows.push(Object.fromEntries(titles.map((title, i) => [title, cells[i] ?? ""])));
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const column = (rows: Record<string, string>[], title: string) => rows.map((row) => row[title] ?? "");
const first = (pair: string) => Number(pair.split("/")[0]);
const second = (pair: string) => Number(pair.split("/")[1]);

describe("the example's table", () => {
  it("names the columns as the report does, one line per model call", () => {
    // 30 turns: the run compacts on several calls (5 in two runs); at 22 it compacted once. The example's
    // messages have no ids, so LangGraph gives them random UUIDs: their estimated tokens (and the turns'
    // anchors, hashed from ids) differ by a few tokens from run to run, which could lose that one.
    const rows = exampleTable({ CONTEXTVIEW_EXAMPLE_TURNS: "30" });
    expect(Object.keys(rows[0] ?? {})).toEqual(["call", "tokens/limit", "no contextview", "checkpoint", "summarized", "kept", "dropped", "unread", "turns kept/dropped", "results compacted/cleared", "history", "compaction"]);
    expect(column(rows, "call").slice(0, 3)).toEqual(["1.1", "1.2", "2.1"]);
    // With the summarizer, older turns are summarized (not dropped) and results compacted.
    expect(Math.max(...column(rows, "summarized").map(Number))).toBeGreaterThan(0);
    expect(Math.max(...column(rows, "results compacted/cleared").map(first))).toBeGreaterThan(0);
    expect(column(rows, "history")).toContain("summary+evidence");
    // Every message of the checkpoint is summarized, kept, dropped or unread (no pins here).
    for (const row of rows) {
      // The prompt without contextview (every message as it is) never fits in less than the view.
      expect(Number(row["no contextview"])).toBeGreaterThanOrEqual(first(row["tokens/limit"] ?? ""));
      expect(Number(row["summarized"]) + Number(row["kept"]) + Number(row["dropped"]) + Number(row["unread"])).toBe(Number(row["checkpoint"]));
    }
  });

  it("shows dropped messages and turns when the run drops them (no summarizer)", () => {
    const rows = exampleTable({ CONTEXTVIEW_EXAMPLE_TURNS: "10", CONTEXTVIEW_EXAMPLE_SUMMARIZE: "off" });
    expect(Math.max(...column(rows, "dropped").map(Number))).toBeGreaterThan(0);
    expect(Math.max(...column(rows, "turns kept/dropped").map(second))).toBeGreaterThan(0);
    expect(column(rows, "summarized").every((value) => value === "0")).toBe(true);
    expect(column(rows, "compaction")).toContain("drop");
    // Later calls would have sent more than the limit without contextview; the view stayed within it.
    const last = rows[rows.length - 1] ?? {};
    expect(Number(last["no contextview"])).toBeGreaterThan(second(last["tokens/limit"] ?? ""));
    for (const row of rows) expect(first(row["tokens/limit"] ?? "")).toBeLessThanOrEqual(second(row["tokens/limit"] ?? ""));
  });
});
