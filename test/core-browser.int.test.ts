// @contextview/core outside Node: bundled by esbuild for the browser (platform "browser":
// a Node built-in anywhere in core fails the bundle) and run in headless Chromium, where
// process, Buffer and setImmediate do not exist. Needs Debian's chromium at /usr/bin/chromium
// (apt-get install -y chromium); CI always runs it, elsewhere it is skipped without one.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { browserScenario, COMPACT_LIMIT, type BrowserScenarioResult } from "./support/browser-scenario.js";

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
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("runs buildContext and compactToolResult with the same results as in Node", async () => {
    const bundle = await build({
      entryPoints: [join(ROOT, "test/support/browser-entry.ts")],
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      target: "es2022",
      alias: {
        "@contextview/core": join(ROOT, "packages/core/src/index.ts"),
        "@contextview/core/internal": join(ROOT, "packages/core/src/internal.ts"),
        "@contextview/core/tool-results": join(ROOT, "packages/core/src/tool-results.ts"),
      },
      logLevel: "silent",
    });
    const code = bundle.outputFiles[0]?.text ?? "";
    expect(code).not.toMatch(/require\(["']node:/);

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto("about:blank");
    await page.addScriptTag({ content: code });
    const { nodeGlobals, userAgent, ...inBrowser } = (await page.evaluate(() => (globalThis as { contextviewResult?: Promise<unknown> }).contextviewResult)) as BrowserScenarioResult & {
      nodeGlobals: string[];
      userAgent: string;
    };
    await page.close();
    expect(errors).toEqual([]);
    expect(userAgent).toMatch(/HeadlessChrome/);
    expect(nodeGlobals).toEqual([]);

    expect(inBrowser.originalTokens).toBeGreaterThan(COMPACT_LIMIT);
    expect(inBrowser.compactTokens).toBeLessThanOrEqual(COMPACT_LIMIT);
    expect(inBrowser.compactMarker).toMatchObject({ form: "json", limitTokens: COMPACT_LIMIT });
    expect(inBrowser.compactContent).toContain('"total":100');
    expect(inBrowser.viewTypes).toEqual(["system", "human", "ai", "tool", "ai", "human"]);
    expect(inBrowser.viewTokens).toBeLessThanOrEqual(inBrowser.viewLimit);
    // Chromium and Node agree on everything, the SHA-256 digest included.
    expect(inBrowser).toEqual(await browserScenario());
  });
});
