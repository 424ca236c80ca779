import { join } from "node:path";
import Database from "better-sqlite3";
import { inspectThread, openSqliteSources, renderThreadPage } from "@contextview/inspect";
import { runInspectCli } from "../src/run-cli.js";
import { runFinanceThread, useTempDir } from "./support/finance-thread";

describe("inspectThread: model calls whose view record was lost", () => {
  const dir = useTempDir();
  let thread: { file: string; threadId: string; userId: string };
  beforeAll(async () => {
    thread = await runFinanceThread(dir(), { turns: 3 });
  });

  it("has no missing call when every call kept its record", async () => {
    const sources = openSqliteSources({ checkpoints: thread.file });
    try {
      const inspected = await inspectThread({ ...sources, threadId: thread.threadId, userId: thread.userId });
      expect(inspected.calls.length).toBeGreaterThan(4);
      expect(inspected.missing).toEqual([]);
      expect(renderThreadPage(inspected)).not.toContain("record missing");
    } finally {
      await sources.close();
    }
  });

  it("lists the calls whose record the store lost (the store numbers on: no gap in sequences), on the page and in the CLI", async () => {
    const db = new Database(join(dir(), "checkpoints.contextview.sqlite"));
    const rows = db.prepare("SELECT json_extract(record, '$.messages.count') AS n FROM contextview_views ORDER BY sequence").all() as { n: number }[];
    const counts = rows.map((r) => r.n);
    // Calls 2 and 4 never reached the store. A store numbers the next record one past the newest
    // it holds, so what a lost write leaves behind is a renumbered list, not a gap.
    db.prepare("DELETE FROM contextview_views WHERE sequence IN (2, 4)").run();
    const renumber = db.prepare("UPDATE contextview_views SET sequence = ?, record = json_set(record, '$.sequence', ?) WHERE sequence = ?");
    const kept = (db.prepare("SELECT sequence FROM contextview_views ORDER BY sequence").all() as { sequence: number }[]).map((r) => r.sequence);
    kept.forEach((sequence, i) => renumber.run(i + 1, i + 1, sequence));
    db.close();

    const sources = openSqliteSources({ checkpoints: thread.file });
    try {
      const inspected = await inspectThread({ ...sources, threadId: thread.threadId, userId: thread.userId });
      expect(inspected.calls.map((c) => c.record.sequence)).toEqual(kept.map((_, i) => i + 1));
      // Each lost call got the answer that follows the messages it was built from.
      expect(inspected.missing).toEqual([
        { messageIndex: counts[1], after: 1 },
        { messageIndex: counts[3], after: 2 },
      ]);
      expect(inspected.calls.every((c) => c.rebuilt.status === "match")).toBe(true);
      const page = renderThreadPage(inspected);
      expect(page).toContain("2 records missing");
      expect(page).toContain(`record missing · answer at message ${counts[1]}`);
      expect(page).toContain(`message ${counts[3]} (after call 2)`);
    } finally {
      await sources.close();
    }
    const lines: string[] = [];
    const out = join(dir(), "page.html");
    const output = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    expect(await runInspectCli(["inspect", "--checkpoints", thread.file, "--thread", thread.threadId, "--out", out], output)).toBe(0);
    expect(lines[0]).toMatch(/ verified, 0 mismatch, 0 unverifiable, 2 records missing$/);
  });

  it("lets the event loop run between the checkpoints and rebuilds of a long build", async () => {
    const sources = openSqliteSources({ checkpoints: thread.file });
    try {
      let ticks = 0;
      const tick = (): void => {
        ticks++;
        if (!done) setImmediate(tick);
      };
      let done = false;
      setImmediate(tick);
      const inspected = await inspectThread({ ...sources, threadId: thread.threadId, userId: thread.userId });
      const during = ticks;
      done = true;
      // Other requests of `--serve` get turns while one page is built, about one per call rebuilt.
      expect(during).toBeGreaterThanOrEqual(inspected.calls.length);
    } finally {
      await sources.close();
    }
  });
});
