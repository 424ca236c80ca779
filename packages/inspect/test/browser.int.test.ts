import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { inspectThread, openSqliteSources, renderThreadPage } from "@contextview/inspect";
import { runInspectCli } from "../src/run-cli.js";
import { runFinanceThread, useTempDir } from "./support/finance-thread";

// A shared, loaded machine can make Chromium slow to start and render; wait rather than flake.
const ACTION_TIMEOUT_MS = 180_000;

const CHROMIUM = process.env["CONTEXTVIEW_CHROMIUM"] ?? "/usr/bin/chromium";
const ROOT = resolve(__dirname, "../../..");
const OUTPUT = join(ROOT, "test-output");
const runs = existsSync(CHROMIUM) || process.env["CI"] === "true";
if (!runs) process.stderr.write(`inspector browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CONTEXTVIEW_CHROMIUM; CI=true requires it)\n`);

type Context = BrowserContext;

/** Chromium's profile: its own directory, removed only after the browser is closed (it writes there until it exits). */
async function launch(profile: string): Promise<Context> {
  const context = await chromium.launchPersistentContext(profile, {
    timeout: ACTION_TIMEOUT_MS,
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  context.setDefaultTimeout(ACTION_TIMEOUT_MS);
  context.setDefaultNavigationTimeout(ACTION_TIMEOUT_MS);
  return context;
}

(runs ? describe : describe.skip)("the inspector page in Chromium", () => {
  const dir = useTempDir("contextview-browser-");
  let context: Context;
  let profile: string | undefined;
  let examplePage: string;
  let clearedCall: number;

  beforeAll(async () => {
    // The README's main example, shortened: a real graph, SqliteSaver and the SQLite store on disk.
    const exampleDir = join(dir(), "example");
    execFileSync(join(ROOT, "node_modules/.bin/tsx"), ["examples/finance-agent/main.ts"], {
      cwd: ROOT,
      // 42 turns: with a summarizer the example clears no older result (they wait for their
      // summary); the first compacted tool result comes at turn 40.
      env: { ...process.env, CONTEXTVIEW_EXAMPLE_TURNS: "42", CONTEXTVIEW_EXAMPLE_DIR: exampleDir },
      stdio: "pipe",
    });
    examplePage = join(dir(), "example.html");
    const lines: string[] = [];
    const code = await runInspectCli(["inspect", "--checkpoints", join(exampleDir, "checkpoints.sqlite"), "--thread", "demo-thread", "--out", examplePage], { out: (l) => lines.push(l), err: (l) => lines.push(l) });
    expect({ code, lines }).toEqual({ code: 0, lines: [expect.stringMatching(/^\d+ model calls of thread demo-thread: \d+ verified, 0 mismatch, 0 unverifiable$/), `wrote ${examplePage}`] });
    const sources = openSqliteSources({ checkpoints: join(exampleDir, "checkpoints.sqlite") });
    const thread = await inspectThread({ ...sources, threadId: "demo-thread", userId: "alice" });
    await sources.close();
    clearedCall = (thread.calls.find((c) => c.record.report.toolResults.cleared + c.record.report.toolResults.compacted > 0) ?? thread.calls.at(-1))!.record.sequence;
    profile = mkdtempSync(join(tmpdir(), "contextview-chromium-"));
    context = await launch(profile);
  });

  afterAll(async () => {
    await context?.close();
    if (profile !== undefined) rmSync(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  it("opens the example's thread, shows a clicked call's breakdown and omission markers, and loads nothing from the network", async () => {
    const page = await context.newPage();
    const requests: string[] = [];
    page.on("request", (request) => void requests.push(request.url()));
    await page.goto(`file://${examplePage}`);
    await page.click(`.row[data-call="${clearedCall}"]`);
    const active = page.locator("section.call.active");
    await expect(active.getAttribute("data-call")).resolves.toBe(String(clearedCall));
    expect(await active.locator(".status-match").isVisible()).toBe(true);
    expect(await active.locator(".budget-large .seg").count()).toBeGreaterThanOrEqual(4);
    expect(await active.locator(".legend").innerText()).toContain("Older history");
    const omissions = active.locator(".note-omission");
    expect(await omissions.count()).toBeGreaterThan(0);
    expect(await omissions.first().isVisible()).toBe(true);
    expect(await omissions.first().innerText()).toMatch(/tool result (cleared|compacted) — .*[\d,]+ .*omitted/);
    expect(await active.locator("table.markers tbody tr").count()).toBeGreaterThan(0);
    expect(await page.locator("section.call:not(.active)").first().isVisible()).toBe(false);
    // A chart column selects its call too.
    await page.click('.chart .col[data-call="2"]');
    await expect(page.locator("section.call.active").getAttribute("data-call")).resolves.toBe("2");
    await page.click(`.row[data-call="${clearedCall}"]`);
    await page.evaluate("window.scrollTo(0, 0)");
    mkdirSync(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, "inspector.png") });
    await active.locator("ol.messages").screenshot({ path: join(OUTPUT, "inspector-messages.png") });
    expect(statSync(join(OUTPUT, "inspector.png")).size).toBeGreaterThan(10_000);
    expect(requests.every((url) => url.startsWith("file://"))).toBe(true);
    await page.close();
  });

  it("renders a message holding <script> as text and never runs it", async () => {
    mkdirSync(join(dir(), "hostile-run"));
    const thread = await runFinanceThread(join(dir(), "hostile-run"), { turns: 1, threadId: "hostile", extra: ['<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'] });
    const sources = openSqliteSources({ checkpoints: thread.file });
    const file = join(dir(), "hostile.html");
    writeFileSync(file, renderThreadPage(await inspectThread({ ...sources, threadId: thread.threadId, userId: thread.userId })));
    await sources.close();
    const page = await context.newPage();
    await page.goto(`file://${file}`);
    expect(await page.evaluate("typeof window.__pwned")).toBe("undefined");
    const current = page.locator("section.call.active li.msg.is-current pre.content").first();
    expect(await current.innerText()).toBe('<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">');
    expect(await page.locator("section.call.active img").count()).toBe(0);
    await page.close();
  });
});
