import { createEstimator, resolveBudget } from "@contextview/core";
import { SystemMessage } from "@langchain/core/messages";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promptBlocks } from "./cache.js";
import { FIXTURES } from "./fixtures/index.js";
import { STRATEGIES } from "./strategies/index.js";
const estimator = createEstimator();
const [fx, calls, sys] = process.argv.slice(2);
(async () => {
  const fixture = FIXTURES.find((f) => f.name === fx)!;
  const loaded = await fixture.load();
  const limit = resolveBudget(fixture.budget, {}).promptLimit;
  const toolTokens = estimator.estimateTools(fixture.tools);
  const fixedTokens = toolTokens + estimator.estimateMessage(new SystemMessage(fixture.systemPrompt));
  const strategy = STRATEGIES.find((s) => s.name === (sys ?? "contextview node"))!;
  const run = await strategy.run(fixture, loaded, { limit, fixedTokens, toolTokens, count: (m) => estimator.estimateMessages(m), tempDir: mkdtempSync(join(tmpdir(), "trace-")) });
  for (const c of calls!.split(",").map(Number)) {
    const b = promptBlocks(run.calls[c]!.view, toolTokens, estimator);
    console.log(`call ${c}: ` + b.map((x) => `${x.text.slice(0, 12).replace(/\u0000/g, "|").replace(/\s+/g, " ")}:${x.tokens}`).join("  "));
  }
})();
