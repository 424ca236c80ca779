// pnpm eval — offline context regression evaluation: every fixture through contextview
// and through LangChain's own tools, on the same budget, counter and fake summarizer.
//   pnpm eval                                   all fixtures and systems, tokenizer check
//   pnpm eval --fixture finance --fixture notes  a subset
//   pnpm eval --no-tokenizer --out /tmp/report   skip the js-tiktoken comparison, write elsewhere
//   pnpm eval --markdown                         also print the tables as Markdown (for the docs)
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { evaluate } from "./evaluate.js";
import { FIXTURES } from "./fixtures/index.js";
import { measurePinningCost } from "./pinning-cost.js";
import { ProgressBar } from "./progress.js";
import { renderHtml } from "./report-html.js";
import { STRATEGIES } from "./strategies/index.js";
import { comparisonRows, detailRows, markdownTable, pinningRows, terminalTable, tokenizerRows } from "./tables.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      fixture: { type: "string", multiple: true },
      out: { type: "string", default: "eval-report" },
      "no-tokenizer": { type: "boolean", default: false },
      markdown: { type: "boolean", default: false },
    },
  });
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
    onStep: ({ phase, fixture, system }) => (phase === "start" ? progress.start(`${fixture} · ${system}`) : progress.tick(`${fixture} · ${system}`)),
  });
  progress.finish();
  const pinning = await measurePinningCost(fixtures);

  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "results.json"), `${JSON.stringify({ command, ...report, pinning }, null, 2)}\n`);
  writeFileSync(join(out, "index.html"), renderHtml(report, report.tokenizer, command));

  console.log(`\n${command} — ${fixtures.length} fixtures × ${STRATEGIES.length} systems in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  console.log("Comparison over all fixtures (same budget, counter and fake summarizer):\n");
  console.log(terminalTable(comparisonRows(report)));
  console.log("\nPer fixture:\n");
  console.log(terminalTable(detailRows(report)));
  console.log("\nPinned context (contextview buildContext, defaults against pinOpeningRequest: false, pinnedBudget: 0):\n");
  console.log(terminalTable(pinningRows(pinning)));
  if (report.tokenizer) {
    console.log(`\nDefault estimator / js-tiktoken (ratio estimated/actual; safety reserve ${report.tokenizer.safetyReserve}):\n`);
    console.log(terminalTable(tokenizerRows(report.tokenizer)));
  }
  if (values.markdown) {
    console.log(`\n${markdownTable(comparisonRows(report))}\n\n${markdownTable(detailRows(report))}\n\n${markdownTable(pinningRows(pinning))}`);
    if (report.tokenizer) console.log(`\n${markdownTable(tokenizerRows(report.tokenizer))}`);
  }
  console.log(`\nReport: ${join(out, "index.html")}\nJSON:   ${join(out, "results.json")}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
