import type { CacheUse, EvaluationResult, SystemResult } from "./run.js";
import { BREAK_CAUSES, type BreakCause } from "./prefix-breaks.js";
import type { PinningCost } from "./pinning-cost.js";
import { RECALL_MAX_TOKENS, type ReadBackCost } from "./read-back.js";
import type { TokenizerReport } from "./tokenizer-check.js";

type Row = Record<string, string>;

const pct = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
const rewritten = (value: boolean | null) => (value === null ? "n/a (no checkpoint)" : value ? "yes" : "no");
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

/** One row per system and fixture. */
export function detailRows(result: EvaluationResult): Row[] {
  return result.results.map((r) => ({
    fixture: r.fixture,
    system: r.system,
    "facts kept": `${r.retention.kept}/${r.retention.required}`,
    "within budget": `${r.budget.within}/${r.budget.calls}`,
    "largest view / limit": `${r.tokens.maxInput}/${r.limit}`,
    "input tokens": String(r.tokens.input),
    "output tokens": String(r.tokens.output),
    "broken exchanges": String(r.brokenExchanges),
    "order violations": String(r.orderViolations),
    "request lost": String(r.requestLost),
    "re-calls from clearing": String(r.recallsFromClearing),
    "idle views": String(r.idleViews),
    grounding: groundingCell(r.grounding.visible, r.grounding.values),
    "checkpoint rewritten": rewritten(r.checkpointRewritten),
    "context ms": ms(r.timeMs.total),
    ...(r.error ? { error: r.error } : {}),
  }));
}

/** One row per system over every fixture: the comparison table. */
export function comparisonRows(result: EvaluationResult): Row[] {
  return result.systems.map(({ name }) => {
    const rows = result.results.filter((r) => r.system === name);
    const sum = (f: (r: SystemResult) => number) => rows.reduce((a, r) => a + f(r), 0);
    const observed = [...new Set(rows.map((r) => rewritten(r.checkpointRewritten)))];
    return {
      system: name,
      "fact retention": `${pct(sum((r) => r.retention.kept) / Math.max(1, sum((r) => r.retention.required)))} (${sum((r) => r.retention.kept)}/${sum((r) => r.retention.required)})`,
      "budget compliance": `${pct(sum((r) => r.budget.within) / Math.max(1, sum((r) => r.budget.calls)))} (${sum((r) => r.budget.within)}/${sum((r) => r.budget.calls)})`,
      "largest view / limit": rows.map((r) => `${(r.tokens.maxInput / r.limit).toFixed(2)}×`).join(" "),
      "broken exchanges": String(sum((r) => r.brokenExchanges)),
      "order violations": String(sum((r) => r.orderViolations)),
      "request lost": String(sum((r) => r.requestLost)),
      "re-calls from clearing": String(sum((r) => r.recallsFromClearing)),
      "idle views": String(sum((r) => r.idleViews)),
      grounding: groundingCell(sum((r) => r.grounding.visible), sum((r) => r.grounding.values)),
      "checkpoint rewritten": observed.join(", "),
      "context ms": ms(sum((r) => r.timeMs.total)),
      "cached (OpenAI)": pct(sum((r) => r.cache.openai.cached) / Math.max(1, sum((r) => r.cache.openai.prompt))),
      "cached (Anthropic)": pct(sum((r) => r.cache.anthropic.cached) / Math.max(1, sum((r) => r.cache.anthropic.prompt))),
      ...Object.fromEntries(result.prices.map((p) => [`$ ${p.name}`, dollars(rows.reduce((a, r) => a + (r.cost.find((c) => c.prices === p.name)?.dollars ?? 0), 0))])),
    };
  });
}

/** Argument values shown / reused: the share of tool-call values seen earlier that the call's view showed. */
const groundingCell = (visible: number, values: number) => (values ? `${pct(visible / values)} (${visible}/${values})` : "–");

const dollars = (value: number) => value.toFixed(value >= 10 ? 2 : 3);

/**
 * One row per fixture and system: the share of prompt tokens a prefix cache serves
 * (OpenAI-style and Anthropic-style, see eval/cache.ts), the tokens written to an
 * Anthropic cache, and the conversation's cost at each price list.
 */
export function cacheRows(result: EvaluationResult): Row[] {
  return result.results.map((r) => ({
    fixture: r.fixture,
    system: r.system,
    "prompt tokens": String(r.cache.openai.prompt),
    "cached (OpenAI)": `${pct(r.cache.openai.share)} (${r.cache.openai.cached})`,
    "cached (Anthropic)": `${pct(r.cache.anthropic.share)} (${r.cache.anthropic.cached})`,
    "cache writes (Anthropic)": String(r.cache.anthropic.written),
    // What was not cached (OpenAI), split: new to the conversation, or shown before and re-sent after the prefix moved.
    "uncached: new / re-sent": uncachedSplit(r.cache.openai),
    "within budget": `${r.budget.within}/${r.budget.calls}`,
    "summarizer in/out": r.summarizerCalls ? `${r.summarizerTokens.input}/${r.summarizerTokens.output}` : "–",
    ...Object.fromEntries(r.cost.map((c) => [`$ ${c.prices}`, dollars(c.dollars)])),
  }));
}

function uncachedSplit(use: CacheUse): string {
  if (use.prompt === 0) return "–";
  const fresh = Math.min(use.fresh, use.prompt - use.cached);
  return `${pct(fresh / use.prompt)} / ${pct((use.prompt - use.cached - fresh) / use.prompt)}`;
}

/**
 * One row per system over all fixtures: what it re-sent after its prefix moved
 * (OpenAI-style cache), by what moved it (see eval/prefix-breaks.ts), as shares of
 * its prompt tokens; causes no system hit are left out.
 */
export function resentRows(result: EvaluationResult): Row[] {
  const causes = BREAK_CAUSES.filter((cause) => result.results.some((r) => r.resentByCause[cause] !== 0));
  return result.systems.map(({ name }) => {
    const runs = result.results.filter((r) => r.system === name);
    const prompt = runs.reduce((sum, r) => sum + r.cache.openai.prompt, 0);
    const share = (tokens: number) => (prompt === 0 ? "–" : pct(tokens / prompt));
    const byCause = (cause: BreakCause) => runs.reduce((sum, r) => sum + r.resentByCause[cause], 0);
    const total = BREAK_CAUSES.reduce((sum, cause) => sum + byCause(cause), 0);
    return { system: name, "re-sent": share(total), ...Object.fromEntries(causes.map((cause) => [cause, share(byCause(cause))])) };
  });
}

/** The price lists, with their date and source. */
export function priceRows(result: EvaluationResult): Row[] {
  return result.prices.map((p) => ({
    prices: p.name,
    "cache model": p.model,
    "input $/M": String(p.input),
    "cached input $/M": String(p.cachedInput),
    "cache write $/M": String(p.cacheWrite ?? p.input),
    "output $/M": String(p.output),
    "as of": p.asOf,
    source: p.source,
  }));
}

/** The estimated/actual distributions of the tokenizer check. */
export function tokenizerRows(report: TokenizerReport): Row[] {
  const f = (n: number) => n.toFixed(2);
  return report.encodings.flatMap((e) => [
    { encoding: e.encoding, over: "messages", samples: String(e.messages.samples), min: f(e.messages.min), p5: f(e.messages.p5), median: f(e.messages.p50), p95: f(e.messages.p95), max: f(e.messages.max), "max shortfall (tokens)": "", "views over limit + reserve": "" },
    { encoding: e.encoding, over: "contextview views", samples: String(e.views.samples), min: f(e.views.min), p5: f(e.views.p5), median: f(e.views.p50), p95: f(e.views.p95), max: f(e.views.max), "max shortfall (tokens)": String(e.maxViewShortfall), "views over limit + reserve": String(e.viewsOverReserve) },
    ...Object.entries(e.byFixture).map(([fixture, d]) => ({ encoding: e.encoding, over: `messages: ${fixture}`, samples: String(d.samples), min: f(d.min), p5: f(d.p5), median: f(d.p50), p95: f(d.p95), max: f(d.max), "max shortfall (tokens)": "", "views over limit + reserve": "" })),
  ]);
}

/** The default estimator's targets over contextview's views (issue 14): no view below 0.95 of the real count, median at most 1.15. */
export const ESTIMATE_TARGETS = Object.freeze({ minViewRatio: 0.95, maxMedianViewRatio: 1.15 });

/** One line per encoding: the views' lowest and median ratio against the targets. */
export function estimateTargetLines(report: TokenizerReport): string[] {
  return report.encodings.map((e) => {
    const ok = e.views.min >= ESTIMATE_TARGETS.minViewRatio && e.views.p50 <= ESTIMATE_TARGETS.maxMedianViewRatio;
    return `${e.encoding}: lowest view ${e.views.min.toFixed(3)} (target ≥ ${ESTIMATE_TARGETS.minViewRatio}), median view ${e.views.p50.toFixed(3)} (target ≤ ${ESTIMATE_TARGETS.maxMedianViewRatio}) — ${ok ? "met" : "NOT met"}`;
  });
}

/** What pinned context costs and keeps per fixture (buildContext, defaults against pinning off). */
export function pinningRows(costs: readonly PinningCost[]): Row[] {
  return costs.map((c) => ({
    fixture: c.fixture,
    "calls with a pinned block": `${c.callsWithPinned}/${c.calls}`,
    "pinned tokens per call (mean / max)": `${c.pinnedTokens.mean} / ${c.pinnedTokens.max}`,
    "mean input, pinned / off": `${c.meanInput.pinned} / ${c.meanInput.unpinned}`,
    "facts kept, pinned / off": `${c.factsKept.pinned}/${c.factsKept.required} / ${c.factsKept.unpinned}/${c.factsKept.required}`,
  }));
}

/** One row per fixture with results a view cleared, shortened or narrowed: reading their rows back with recall against re-calling the source tool. */
export function readBackRows(costs: readonly ReadBackCost[]): Row[] {
  const mean = (tokens: number, n: number) => (n ? String(Math.round(tokens / n)) : "–");
  return costs
    .filter((c) => c.results.cleared + c.results.shortened + c.results.narrowed + c.excerpts.shown > 0)
    .map((c) => ({
      fixture: c.fixture,
      "results cleared / shortened / narrowed": `${c.results.cleared} / ${c.results.shortened} / ${c.results.narrowed}`,
      "rows left out": String(c.rows.omitted),
      "rows back exactly": `${c.rows.exact}/${c.rows.omitted}`,
      "each in ≤ 2 recall calls": `${c.withinTwoCalls}/${c.rows.omitted}`,
      "texts back whole": c.texts.cleared ? `${c.texts.exact}/${c.texts.cleared}` : "–",
      "excerpt middles back exactly (calls)": c.excerpts.shown ? `${c.excerpts.exact}/${c.excerpts.shown} (${c.excerpts.calls})` : "–",
      "largest answer / bound": `${c.recall.largestAnswer}/${RECALL_MAX_TOKENS}`,
      "one row: recall tokens (mean)": mean(c.oneRow.tokens, c.oneRow.rows),
      "one result: re-call tokens (mean)": mean(c.reCall.tokens, c.reCall.calls),
      "all rows: recall calls / tokens": `${c.recall.calls} / ${c.recall.tokens}`,
      "all rows: re-call tokens": String(c.reCall.tokens),
      "source calls saved": String(c.reCall.calls),
      "notes naming no recall call": String(c.unnamed),
    }));
}

/** A table for the terminal: right-aligned columns. */
export function terminalTable(rows: Row[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cells = [keys, ...rows.map((row) => keys.map((k) => row[k] ?? ""))];
  const widths = keys.map((_, i) => Math.max(...cells.map((r) => (r[i] as string).length)));
  return cells.map((r) => r.map((c, i) => (i < 2 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join("  ")).join("\n");
}

/** A GitHub-flavoured Markdown table. */
export function markdownTable(rows: Row[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const escape = (s: string) => s.replace(/\|/g, "\\|");
  return [`| ${keys.join(" | ")} |`, `|${keys.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${keys.map((k) => escape(r[k] ?? "")).join(" | ")} |`)].join("\n");
}
