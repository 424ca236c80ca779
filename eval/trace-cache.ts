// Where each model call's prompt stops repeating the previous call's (the prefix a
// provider's cache could serve), for one fixture and system of `pnpm eval`:
//   pnpm exec tsx eval/trace-cache.ts finance "contextview node" [--list 23,24] [--width 200]
// Prints every call that re-sent tokens (OpenAI-style model of eval/cache.ts): its
// prompt, cached and re-sent tokens, how many leading blocks are equal, the first
// differing block before and after (with its tokens) and the cause (a summary update,
// a re-compacted result, a relabelled pinned message, turns that left the view); then
// the re-sent tokens per cause. `--list` prints every block of the calls named.
import { createEstimator, resolveBudget } from "@contextview/core";
import { SystemMessage } from "@langchain/core/messages";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { openAiCache, promptBlocks, type PromptBlock } from "./cache.js";
import { FIXTURES } from "./fixtures/index.js";
import { prefixBreaks, resentByCause } from "./prefix-breaks.js";
import { STRATEGIES } from "./strategies/index.js";

const estimator = createEstimator();
const { values, positionals } = parseArgs({ allowPositionals: true, options: { list: { type: "string", default: "" }, width: { type: "string", default: "70" } } });
const [fx, sys = "contextview node"] = positionals;
const listed = new Set(values.list.split(",").filter(Boolean).map(Number));
const width = Number(values.width);

const show = (b: PromptBlock | undefined) => (b ? `(${b.tokens} tok) ${b.text.slice(0, width).replace(/\s+/g, " ").replace(/\u0000/g, "|")}` : "-");
const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;

function report(name: string, prompts: PromptBlock[][]): void {
  const breaks = new Map(prefixBreaks(prompts, estimator).map((b) => [b.call, b]));
  let prompt = 0;
  let cached = 0;
  prompts.forEach((blocks, call) => {
    const cache = openAiCache(prompts[call - 1], blocks, estimator);
    prompt += cache.prompt;
    cached += cache.cached;
    const b = breaks.get(call);
    if (b) {
      console.log(`${String(call).padStart(3)} prompt=${cache.prompt} cached=${cache.cached} re-sent=${b.resent} same=${b.same}/${blocks.length} — ${b.cause}`);
      console.log(`      before[${b.same}]: ${show(b.before)}\n      after[${b.same}]:  ${show(b.after)}`);
    }
    if (listed.has(call)) blocks.forEach((block, k) => console.log(`        [${k}] ${show(block)}`));
  });
  console.log(`${name}: cached ${percent(cached, prompt)} of ${prompt} prompt tokens; re-sent by cause:`);
  for (const [cause, tokens] of resentByCause([...breaks.values()])) if (tokens > 0) console.log(`  ${cause.padEnd(32)} ${String(tokens).padStart(8)}  ${percent(tokens, prompt)}`);
}

(async () => {
  for (const fixture of FIXTURES.filter((f) => !fx || f.name === fx)) {
    const loaded = await fixture.load();
    const limit = resolveBudget(fixture.budget, {}).promptLimit;
    const toolTokens = estimator.estimateTools(fixture.tools);
    const fixedTokens = toolTokens + estimator.estimateMessage(new SystemMessage(fixture.systemPrompt));
    for (const strategy of STRATEGIES.filter((s) => s.name === sys)) {
      const run = await strategy.run(fixture, loaded, { limit, fixedTokens, toolTokens, count: (m) => estimator.estimateMessages(m), tempDir: mkdtempSync(join(tmpdir(), "trace-")) });
      report(`${fixture.name} · ${strategy.name}`, run.calls.map((c) => promptBlocks(c.view, toolTokens, estimator)));
    }
  }
})();
