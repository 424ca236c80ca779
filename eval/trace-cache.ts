// Where each model call's prompt stops repeating the previous call's (the prefix a
// provider's cache could serve), for one fixture and system of `pnpm eval`:
//   pnpm exec tsx eval/trace-cache.ts finance "contextview node"
// Prints, per call, the prompt and cached tokens (OpenAI-style model of eval/cache.ts),
// how many leading blocks are equal, and the first differing block before and after,
// so a break can be traced to its cause (a summary update, a clearing step, a
// re-compacted result, a pinned block appearing).
import { createEstimator, resolveBudget } from "@contextview/core";
import { SystemMessage } from "@langchain/core/messages";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openAiCache, promptBlocks } from "./cache.js";
import { FIXTURES } from "./fixtures/index.js";
import { STRATEGIES } from "./strategies/index.js";

const estimator = createEstimator();
const [fx, sys] = process.argv.slice(2);
(async () => {
  for (const fixture of FIXTURES.filter((f) => !fx || f.name === fx)) {
    const loaded = await fixture.load();
    const limit = resolveBudget(fixture.budget, {}).promptLimit;
    const toolTokens = estimator.estimateTools(fixture.tools);
    const fixedTokens = toolTokens + estimator.estimateMessage(new SystemMessage(fixture.systemPrompt));
    for (const strategy of STRATEGIES.filter((s) => s.name === (sys ?? "contextview node"))) {
      const run = await strategy.run(fixture, loaded, { limit, fixedTokens, toolTokens, count: (m) => estimator.estimateMessages(m), tempDir: mkdtempSync(join(tmpdir(), "trace-")) });
      const prompts = run.calls.map((c) => promptBlocks(c.view, toolTokens, estimator));
      let P = 0, C = 0;
      prompts.forEach((p, i) => {
        const prev = prompts[i - 1];
        const c = openAiCache(prev, p, estimator);
        P += c.prompt; C += c.cached;
        let same = 0;
        if (prev) while (same < Math.min(prev.length, p.length) && prev[same]!.key === p[same]!.key) same++;
        const d = (b: any) => (b ? b.text.slice(0, 70).replace(/\s+/g, " ").replace(/\u0000/g, "|") : "-");
        const lost = prev ? prev.slice(same).reduce((a, b) => a + b.tokens, 0) : 0;
        console.log(`${String(i).padStart(3)} hist=${run.calls[i]!.historyLength} prompt=${c.prompt} cached=${c.cached} (${Math.round((100 * c.cached) / c.prompt)}%) same=${same}/${p.length} prevLen=${prev?.length ?? 0} lostTok=${lost}${prev && same < prev.length ? `\n      old[${same}]: ${d(prev[same])}\n      new[${same}]: ${d(p[same])}` : ""}`);
      });
      console.log(`${fixture.name} ${strategy.name}: ${(100 * C / P).toFixed(1)}%`);
    }
  }
})();
