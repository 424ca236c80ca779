// pnpm eval — offline context regression evaluation: every fixture through contextview
// and through LangChain's own tools, on the same budget, counter and fake summarizer.
//   pnpm eval                                   all fixtures and systems, tokenizer check
//   pnpm eval --fixture finance --fixture notes  a subset
//   pnpm eval --no-tokenizer --out /tmp/report   skip the js-tiktoken comparison, write elsewhere
//   pnpm eval --markdown                         also print the tables as Markdown (for the docs)
//   pnpm eval --prices 2.5,1.25,10 --cache-model openai   add a price list: input,cached input,output[,cache write] $ per million tokens
//   pnpm eval recall [--source locomo|generated] [--budget 4000] [--max-questions 0]   evidence recall (eval/recall/cli.ts)
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { evaluate } from "./evaluate.js";
import { FIXTURES } from "./fixtures/index.js";
import { measurePinningCost } from "./pinning-cost.js";
import { measureReadBack } from "./read-back.js";
import { ProgressBar } from "./progress.js";
import { renderHtml } from "./report-html.js";
import { STRATEGIES } from "./strategies/index.js";
import { PRICE_PRESETS, type CacheModel, type Prices } from "./cache.js";
import { cacheRows, comparisonRows, detailRows, estimateTargetLines, markdownTable, pinningRows, priceRows, readBackRows, resentRows, terminalTable, tokenizerRows } from "./tables.js";

async function main(): Promise<void> {
  if (process.argv[2] === "recall") return (await import("./recall/cli.js")).recallMain(process.argv.slice(3));
  const { values } = parseArgs({
    options: {
      fixture: { type: "string", multiple: true },
      out: { type: "string", default: "eval-report" },
      "no-tokenizer": { type: "boolean", default: false },
      markdown: { type: "boolean", default: false },
      prices: { type: "string", multiple: true },
      "cache-model": { type: "string", default: "openai" },
    },
  });
  const prices = [...PRICE_PRESETS, ...(values.prices ?? []).map((list, i) => parsePrices(list, values["cache-model"], i))];
  const wanted = values.fixture ?? FIXTURES.map((f) => f.name);
  const unknown = wanted.filter((name) => !FIXTURES.some((f) => f.name === name));
  if (unknown.length > 0) throw new Error(`unknown fixture ${unknown.join(", ")}; fixtures: ${FIXTURES.map((f) => f.name).join(", ")}`);
  const fixtures = FIXTURES.filter((f) => wanted.includes(f.name));
  const command = `pnpm eval${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(" ")}` : ""}`;

  const progress = new ProgressBar(fixtures.length * STRATEGIES.length);
  const started = performance.now();
  const report = await evaluate({
    fixtures,
    strategies: STRATEGIES,
    tokenizer: !values["no-tokenizer"],
    prices,
    onStep: ({ phase, fixture, system }) => (phase === "start" ? progress.start(`${fixture} · ${system}`) : progress.tick(`${fixture} · ${system}`)),
  });
  progress.finish();
  const pinning = await measurePinningCost(fixtures);
  const readBack = await measureReadBack(fixtures);

  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "results.json"), `${JSON.stringify({ command, ...report, pinning, readBack }, null, 2)}\n`);
  writeFileSync(join(out, "index.html"), renderHtml(report, report.tokenizer, command));

  console.log(`\n${command} — ${fixtures.length} fixtures × ${STRATEGIES.length} systems in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  console.log("Comparison over all fixtures (same budget, counter and fake summarizer):\n");
  console.log(terminalTable(comparisonRows(report)));
  console.log("\nPer fixture:\n");
  console.log(terminalTable(detailRows(report)));
  console.log("\nPrompt cache and cost per conversation (estimated tokens; cache models and prices in docs/evaluation.md):\n");
  console.log(terminalTable(cacheRows(report)));
  console.log("\nRe-sent after the prefix moved, by what moved it (share of each system's prompt tokens over all fixtures; OpenAI-style cache):\n");
  console.log(terminalTable(resentRows(report)));
  console.log("\nPrice lists (check them before quoting a cost):\n");
  console.log(terminalTable(priceRows(report)));
  console.log("\nPinned context (contextview buildContext, defaults against pinOpeningRequest: false, pinnedBudget: 0):\n");
  console.log(terminalTable(pinningRows(pinning)));
  console.log("\nReading left-out rows back (contextview buildContext with the recall tool bound; a scripted agent follows each note's recall call instead of calling the source tool again):\n");
  console.log(terminalTable(readBackRows(readBack)));
  if (report.tokenizer) {
    console.log(`\nDefault estimator (digit- and symbol-aware) / js-tiktoken (ratio estimated/actual; safety reserve ${report.tokenizer.safetyReserve}):\n`);
    console.log(terminalTable(tokenizerRows(report.tokenizer)));
    console.log(`\n${estimateTargetLines(report.tokenizer).join("\n")}`);
  }
  if (values.markdown) {
    console.log(`\n${markdownTable(comparisonRows(report))}\n\n${markdownTable(detailRows(report))}\n\n${markdownTable(cacheRows(report))}\n\n${markdownTable(resentRows(report))}\n\n${markdownTable(priceRows(report))}\n\n${markdownTable(pinningRows(pinning))}\n\n${markdownTable(readBackRows(readBack))}`);
    if (report.tokenizer) console.log(`\n${markdownTable(tokenizerRows(report.tokenizer))}`);
  }
  console.log(`\nReport: ${join(out, "index.html")}\nJSON:   ${join(out, "results.json")}`);
}

/** `input,cached,output[,write]` dollars per million tokens, for the given cache model. */
function parsePrices(list: string, model: string | undefined, index: number): Prices {
  const numbers = list.split(",").map(Number);
  if (numbers.length < 3 || numbers.length > 4 || numbers.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`Expected \`--prices\` to be input,cached,output[,cache write] in dollars per million tokens, got ${JSON.stringify(list)}`);
  }
  if (model !== "openai" && model !== "anthropic") throw new Error(`Expected \`--cache-model\` to be openai or anthropic, got ${JSON.stringify(model)}`);
  const [input, cachedInput, output, cacheWrite] = numbers as [number, number, number, number | undefined];
  return { name: `custom-${index + 1}`, model: model as CacheModel, input, cachedInput, output, ...(cacheWrite === undefined ? {} : { cacheWrite }), asOf: "given on the command line", source: "--prices" };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
