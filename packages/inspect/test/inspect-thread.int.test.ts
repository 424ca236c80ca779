import { join } from "node:path";
import Database from "better-sqlite3";
import { InspectError, inspectThread, openSqliteSources, renderThreadPage } from "@contextview/inspect";
import { runFinanceThread, useTempDir } from "./support/finance-thread";


const HOSTILE = `</pre><script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> & "quotes"`;

describe("inspectThread on a real LangGraph thread (SqliteSaver + SqliteContextStore)", () => {
  const dir = useTempDir();
  let thread: { file: string; threadId: string; userId: string };
  beforeAll(async () => {
    thread = await runFinanceThread(dir(), { turns: 14, promptBudget: 4000, extra: [HOSTILE] });
  });

  it("rebuilds every recorded call from the checkpoint of its step, through tool calls, clearing and summaries", async () => {
    const sources = openSqliteSources({ checkpoints: thread.file });
    try {
      const inspected = await inspectThread({ ...sources, threadId: thread.threadId, userId: thread.userId });
      expect(inspected.calls.length).toBeGreaterThan(15);
      expect(inspected.calls.map((c) => c.record.sequence)).toEqual(inspected.calls.map((_, i) => i + 1));
      expect(inspected.calls.filter((c) => c.rebuilt.status !== "match").map((c) => [c.record.sequence, c.rebuilt.problems])).toEqual([]);
      // Each call named the checkpoint its step started from, and that is the one it was rebuilt from.
      expect(inspected.calls.every((c) => c.checkpointId !== null && c.record.checkpointId === c.checkpointId)).toBe(true);
      expect(inspected.calls.some((c) => c.record.report.compaction.kind === "summary")).toBe(true);
      expect(inspected.calls.some((c) => c.record.report.toolResults.cleared + c.record.report.toolResults.compacted > 0)).toBe(true);
      expect(inspected.calls.some((c) => c.rebuilt.summaryText !== null && c.summaryChanged)).toBe(true);
      // The scripted model reports usage_metadata on every answer.
      expect(inspected.calls.every((c) => c.usage !== null && c.usage.inputTokens > 0)).toBe(true);
    } finally {
      await sources.close();
    }
  });

  it("renders one static page that loads nothing and shows message content only as text", async () => {
    const sources = openSqliteSources({ checkpoints: thread.file });
    const page = renderThreadPage(await inspectThread({ ...sources, threadId: thread.threadId, userId: thread.userId }));
    await sources.close();
    expect(page).toContain("&lt;/pre&gt;&lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt; &amp; &quot;quotes&quot;");
    expect(page).not.toContain("<script>window.__pwned");
    expect(page).not.toContain("<img");
    expect(page.match(/<script\b/g)).toHaveLength(1);
    expect(page).not.toMatch(/<link\b|@import|url\(|\b(?:src|href)\s*=\s*"(?:https?:)?\/\//i);
    expect(page).toContain("Content-Security-Policy");
    expect(page).toMatch(/tool result (cleared|compacted) — /);
    expect(page).toContain("summary — stands for checkpoint messages 1–");
    // Calls whose older results waited for the summary say so, not the largest safe integer.
    expect(page).toContain("all (they wait for the summary)");
    expect(page).not.toContain(String(Number.MAX_SAFE_INTEGER));
  });

  it("shows a call whose record no longer matches as a mismatch, with the difference", async () => {
    const store = new Database(join(dir(), "checkpoints.contextview.sqlite"));
    // Options changed in code since the call: the recorded ones no longer give the same view.
    // (Not a tool-result option: with summaries, clear steps and current-turn narrowing this
    // thread clears no older result, so `keepRecentToolResults` no longer changes its views.)
    store.prepare("UPDATE contextview_views SET record = json_set(record, '$.options.view.pinOpeningRequest', json('false')) WHERE sequence = 6").run();
    store.close();
    const sources = openSqliteSources({ checkpoints: thread.file });
    const inspected = await inspectThread({ ...sources, threadId: thread.threadId, userId: thread.userId });
    await sources.close();
    const changed = inspected.calls.find((c) => c.record.sequence === 6);
    expect(changed?.rebuilt.status).toBe("mismatch");
    const page = renderThreadPage(inspected);
    expect(page).toContain("1 mismatch");
    expect(page).toContain("The rebuilt view does NOT match the recorded one");
    for (const problem of changed?.rebuilt.problems ?? []) expect(page).toContain(problem.replace(/"/g, "&quot;"));
    expect(inspected.calls.filter((c) => c.rebuilt.status !== "match")).toHaveLength(1);
  });

  it("says clearly what is missing", async () => {
    expect(() => openSqliteSources({ checkpoints: join(dir(), "nope.sqlite") })).toThrow(InspectError);
    const sources = openSqliteSources({ checkpoints: thread.file });
    await expect(inspectThread({ ...sources, threadId: "no-such-thread", userId: "alice" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await sources.close();
  });
});
