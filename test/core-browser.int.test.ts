// @contextview/core outside Node: bundled by esbuild for the browser (platform "browser":
// a Node built-in anywhere in core fails the bundle) and run in headless Chromium, where
// process, Buffer and setImmediate do not exist. Needs Debian's chromium at /usr/bin/chromium
// (apt-get install -y chromium); CI always runs it, elsewhere it is skipped without one.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { ToolMessage } from "@langchain/core/messages";
import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { compactToolResult, summaryPrefixHash } from "@contextview/core";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = resolve(__dirname, "..");
const available = existsSync(CHROMIUM) || process.env.CI === "true";
if (!available) process.stderr.write(`core-browser.int.test.ts skipped: no ${CHROMIUM} (apt-get install -y chromium, or CI=true to require it)\n`);

(available ? describe : describe.skip)("@contextview/core bundled for the browser, in headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    // playwright gives each launch a fresh, temporary --user-data-dir of its own.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("runs buildContext and compactToolResult, and hashes as in Node", async () => {
    const bundle = await build({
      entryPoints: [join(ROOT, "test/support/browser-entry.ts")],
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      target: "es2022",
      alias: { "@contextview/core": join(ROOT, "packages/core/src/index.ts") },
      logLevel: "silent",
    });
    const code = bundle.outputFiles[0]?.text ?? "";
    expect(code).not.toMatch(/require\(["']node:/);

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto("about:blank");
    await page.addScriptTag({ content: code });
    const result = (await page.evaluate(() => (globalThis as { contextviewResult?: Promise<unknown> }).contextviewResult)) as {
      hasNodeGlobals: string[];
      userAgent: string;
      compactTokens: number;
      compactMarker: { form: string; limitTokens: number } | undefined;
      compactHasTotal: boolean;
      viewTypes: string[];
      viewTokens: number;
      viewLimit: number;
      prefixHash: string;
    };
    expect(errors).toEqual([]);
    expect(result.userAgent).toMatch(/HeadlessChrome|Chromium|Chrome/);
    expect(result.hasNodeGlobals).toEqual([]);
    expect(result.compactTokens).toBeLessThanOrEqual(1500);
    expect(result.compactMarker).toMatchObject({ form: "json", limitTokens: 1500 });
    expect(result.compactHasTotal).toBe(true);
    expect(result.viewTypes[0]).toBe("system");
    expect(result.viewTypes.at(-1)).toBe("human");
    expect(result.viewTokens).toBeLessThanOrEqual(result.viewLimit);

    // The same inputs in Node give the same digest and the same compaction.
    const { history } = nodeHistory();
    expect(result.prefixHash).toBe(await summaryPrefixHash(history, 3));
    expect(compactToolResult(history[3] as ToolMessage, 1500).content.length).toBeGreaterThan(0);
    await page.close();
  }, 120_000);
});

/** The browser entry's history, built in Node. */
function nodeHistory() {
  // Loaded here, not at the top: the entry sets a global when imported.
  const { AIMessage, HumanMessage, SystemMessage } = jest.requireActual<typeof import("@langchain/core/messages")>("@langchain/core/messages");
  const rows = Array.from({ length: 100 }, (_, i) => ({ id: `tx-${i}`, date: `2026-01-${String((i % 28) + 1).padStart(2, "0")}`, amount: i * 7, memo: `coffee shop ${i}` }));
  const result = { query: "coffee", total: rows.length, rows };
  const history = [
    new SystemMessage("You are a finance assistant."),
    new HumanMessage({ id: "h1", content: "Find my coffee spending." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "coffee" } }] }),
    new ToolMessage({ id: "t1", content: JSON.stringify(result), artifact: result, tool_call_id: "c1", name: "search" }),
  ];
  return { history };
}
