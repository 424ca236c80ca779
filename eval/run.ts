import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEstimator, resolveBudget } from "@contextview/core";
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { brokenExchanges, clearedCurrentResults, factsKept, idleView, orderViolations, quantile, requestKept } from "./metrics.js";
import { CACHE_MODELS, cacheSeries, conversationCost, newTokens, PRICE_PRESETS, promptBlocks, type CacheModel, type CallCache, type Prices, type PromptBlock } from "./cache.js";
import { prefixBreaks, resentByCause, type BreakCause } from "./prefix-breaks.js";
import { answersOf, callPoints } from "./replay.js";
import { grounding, type Grounding } from "./grounding.js";
import type { Fixture, LoadedFixture, RequiredFact, Strategy, StrategyRun } from "./types.js";

/** One system on one fixture, measured. */
export interface SystemResult {
  fixture: string;
  system: string;
  harness: string;
  settings: string;
  limit: number;
  /** Model calls the conversation has, and calls that received a view. */
  calls: { expected: number; made: number };
  tokens: {
    /** Estimated input tokens (view + tool schemas) per model call; `null` where no call was made. */
    perCall: (number | null)[];
    input: number;
    maxInput: number;
    /** Estimated tokens of the recorded answers the model gave (the same for every system that completes). */
    output: number;
  };
  retention: { kept: number; required: number; ratio: number; lost: RequiredFact[] };
  budget: { within: number; calls: number; ratio: number };
  brokenExchanges: number;
  orderViolations: number;
  orderExamples: string[];
  /** Views in which the current request was missing or cut. */
  requestLost: number;
  /** Results of the current turn a view showed cleared (each one makes the model call the tool again). */
  recallsFromClearing: number;
  /** Views leaving more than a quarter of the limit unused while a turn they leave out would fit with its results cleared (see `idleView`). */
  idleViews: number;
  /** Argument values of the recorded tool calls seen earlier, and how many their call's view showed (see eval/grounding.ts). */
  grounding: Grounding;
  checkpointRewritten: boolean | null;
  timeMs: { total: number; median: number; max: number };
  summarizerCalls: number;
  /** Estimated tokens the summarizer was sent and answered; part of the conversation's cost. */
  summarizerTokens: { input: number; output: number };
  /** What a prefix cache serves, per cache model (see eval/cache.ts); `null` where no call was made. */
  cache: Record<CacheModel, CacheUse>;
  /** Tokens re-sent after the prefix moved (OpenAI-style cache), by what moved it (see eval/prefix-breaks.ts). */
  resentByCause: Record<BreakCause, number>;
  /** The whole conversation's cost at each price list, in US dollars (calls made only). */
  cost: { prices: string; model: CacheModel; dollars: number }[];
  error?: string;
}

/** Cache use of one system on one fixture under one cache model. */
export interface CacheUse {
  perCall: (CallCache | null)[];
  prompt: number;
  cached: number;
  written: number;
  /** `cached / prompt` over the conversation. */
  share: number;
  /** Tokens no earlier call showed (see `newTokens`): what no cache can serve. */
  fresh: number;
  /** The same per call, `null` where no call was made. */
  freshPerCall: (number | null)[];
}

/** A fixture as reported. */
export interface FixtureSummary {
  name: string;
  description: string;
  limit: number;
  messages: number;
  turns: number;
  modelCalls: number;
  /** Estimated tokens of the whole conversation, system prompt and tools included. */
  conversationTokens: number;
  facts: readonly RequiredFact[];
}

/** Everything one run measured. */
export interface EvaluationResult {
  generatedAt: string;
  estimator: string;
  fixtures: FixtureSummary[];
  systems: { name: string; harness: string }[];
  /** The price lists the costs use. */
  prices: readonly Prices[];
  results: SystemResult[];
}

/** Options of {@link runEvaluation}. */
export interface EvaluationOptions {
  fixtures: readonly Fixture[];
  strategies: readonly Strategy[];
  /** Called before and after each (fixture, system) pair. */
  onStep?: (event: { phase: "start" | "done"; fixture: string; system: string }) => void;
  /** Receives each system's raw run (the views themselves), e.g. for the tokenizer check. */
  onRun?: (event: { fixture: Fixture; system: string; run: StrategyRun; limit: number }) => void;
  /**
   * Price lists for the cost of each conversation.
   * @default PRICE_PRESETS
   */
  prices?: readonly Prices[];
}

const estimator = createEstimator();

/**
 * Loads every fixture once and replays it through every system with the same
 * limit, counter (contextview's default estimator) and fixed overhead, then
 * measures each view the model received.
 */
export async function runEvaluation(options: EvaluationOptions): Promise<{ result: EvaluationResult; loaded: Map<string, LoadedFixture> }> {
  const results: SystemResult[] = [];
  const fixtures: FixtureSummary[] = [];
  const loadedByName = new Map<string, LoadedFixture>();
  for (const fixture of options.fixtures) {
    const loaded = await fixture.load();
    loadedByName.set(fixture.name, loaded);
    const limit = resolveBudget(fixture.budget, {}).promptLimit;
    const toolTokens = estimator.estimateTools(fixture.tools);
    const fixedTokens = toolTokens + estimator.estimateMessage(new SystemMessage(fixture.systemPrompt));
    checkFacts(fixture, loaded);
    fixtures.push({
      name: fixture.name,
      description: fixture.description,
      limit,
      messages: loaded.messages.length,
      turns: loaded.messages.filter((m) => m.type === "human").length,
      modelCalls: callPoints(loaded.messages).length,
      conversationTokens: fixedTokens + estimator.estimateMessages(loaded.messages),
      facts: loaded.facts,
    });
    for (const strategy of options.strategies) {
      options.onStep?.({ phase: "start", fixture: fixture.name, system: strategy.name });
      const tempDir = mkdtempSync(join(tmpdir(), "contextview-eval-"));
      let run: StrategyRun;
      try {
        run = await strategy.run(fixture, loaded, { limit, fixedTokens, toolTokens, count: (m) => estimator.estimateMessages(m), tempDir });
      } finally {
        rmSync(tempDir, { recursive: true, force: true });
      }
      options.onRun?.({ fixture, system: strategy.name, run, limit });
      results.push(measure(fixture, loaded, strategy, run, { limit, toolTokens, prices: options.prices ?? PRICE_PRESETS }));
      options.onStep?.({ phase: "done", fixture: fixture.name, system: strategy.name });
    }
  }
  return {
    result: {
      generatedAt: new Date().toISOString(),
      estimator: "contextview default: ceil(UTF-8 bytes / 3) per text, 4 per message, 1024 per image, tool calls and schemas",
      fixtures,
      systems: options.strategies.map((s) => ({ name: s.name, harness: s.harness })),
      prices: options.prices ?? PRICE_PRESETS,
      results,
    },
    loaded: loadedByName,
  };
}

/** A fixture whose facts are not all in its own conversation is a broken fixture. */
function checkFacts(fixture: Fixture, loaded: LoadedFixture): void {
  const kept = factsKept(loaded.messages, loaded.facts);
  const missing = loaded.facts.filter((_, i) => !kept[i]);
  if (missing.length > 0) throw new Error(`fixture ${fixture.name}: required facts not in the conversation: ${missing.map((f) => JSON.stringify(f.text)).join(", ")}`);
}

/** Each cache model's use over the calls made, padded with `null` for calls that never happened. */
function cacheUse(prompts: PromptBlock[][], expected: number): Record<CacheModel, CacheUse> {
  const out = {} as Record<CacheModel, CacheUse>;
  const freshPerCall = newTokens(prompts, estimator);
  const fresh = freshPerCall.reduce((a, b) => a + b, 0);
  // One entry per expected call, `null` for calls that never happened (a failed system).
  const padding = Array<null>(Math.max(0, expected - freshPerCall.length)).fill(null);
  for (const model of CACHE_MODELS) {
    const series = cacheSeries(prompts, model, estimator);
    const sum = (f: (c: CallCache) => number) => series.reduce((a, c) => a + f(c), 0);
    const prompt = sum((c) => c.prompt);
    out[model] = { perCall: [...series, ...padding], prompt, cached: sum((c) => c.cached), written: sum((c) => c.written), share: prompt ? sum((c) => c.cached) / prompt : 0, fresh, freshPerCall: [...freshPerCall, ...padding] };
  }
  return out;
}

function measure(fixture: Fixture, loaded: LoadedFixture, strategy: Strategy, run: StrategyRun, shared: { limit: number; toolTokens: number; prices: readonly Prices[] }): SystemResult {
  const points = callPoints(loaded.messages);
  const perCall: (number | null)[] = points.map((_, i) => {
    const call = run.calls[i];
    return call ? estimator.estimateMessages(call.view) + shared.toolTokens : null;
  });
  const made = run.calls.length;
  const tokens = perCall.filter((t): t is number => t !== null);
  const finalView: BaseMessage[] = made === points.length ? (run.calls[made - 1]?.view ?? []) : [];
  const kept = factsKept(finalView, loaded.facts);
  const examples = new Set<string>();
  let order = 0;
  let broken = 0;
  let lost = 0;
  let recalls = 0;
  let idle = 0;
  for (const [i, call] of run.calls.entries()) {
    const problems = orderViolations(call.view, loaded.messages.slice(0, call.historyLength));
    order += problems.length;
    for (const p of problems) examples.add(p);
    broken += brokenExchanges(call.view);
    if (!requestKept(call.view, loaded.messages.slice(0, call.historyLength))) lost++;
    recalls += clearedCurrentResults(call.view, loaded.messages.slice(0, call.historyLength));
    if (idleView(call.view, loaded.messages.slice(0, call.historyLength), shared.limit, perCall[i] ?? 0, (m) => estimator.estimateMessages(m))) idle++;
  }
  const within = tokens.filter((t) => t <= shared.limit).length;
  const times = run.contextMs;
  const prompts = run.calls.map((call) => promptBlocks(call.view, shared.toolTokens, estimator));
  const cache = cacheUse(prompts, points.length);
  const output = estimator.estimateMessages(answersOf(loaded.messages).slice(0, made));
  return {
    fixture: fixture.name,
    system: strategy.name,
    harness: strategy.harness,
    settings: strategy.settings(fixture, shared.limit),
    limit: shared.limit,
    calls: { expected: points.length, made },
    tokens: {
      perCall,
      input: tokens.reduce((a, b) => a + b, 0),
      maxInput: tokens.length ? Math.max(...tokens) : 0,
      output,
    },
    retention: { kept: kept.filter(Boolean).length, required: loaded.facts.length, ratio: loaded.facts.length ? kept.filter(Boolean).length / loaded.facts.length : 1, lost: loaded.facts.filter((_, i) => !kept[i]) },
    // A call that never happened (the system failed) counts as not within the budget.
    budget: { within, calls: points.length, ratio: points.length ? within / points.length : 1 },
    brokenExchanges: broken,
    orderViolations: order,
    orderExamples: [...examples].slice(0, 4),
    requestLost: lost,
    recallsFromClearing: recalls,
    idleViews: idle,
    grounding: grounding(loaded.messages, points, points.map((_, i) => run.calls[i]?.view), perCall.map((t) => t !== null && t <= shared.limit)),
    checkpointRewritten: run.checkpointRewritten,
    timeMs: { total: times.reduce((a, b) => a + b, 0), median: quantile(times, 0.5) || 0, max: times.length ? Math.max(...times) : 0 },
    summarizerCalls: run.summarizerCalls,
    summarizerTokens: run.summarizerTokens ?? { input: 0, output: 0 },
    cache,
    resentByCause: Object.fromEntries(resentByCause(prefixBreaks(prompts, estimator, cache.openai.freshPerCall.filter((n): n is number => n !== null)))) as Record<BreakCause, number>,
    cost: shared.prices.map((p) => ({ prices: p.name, model: p.model, dollars: conversationCost(cache[p.model].perCall.filter((c): c is CallCache => c !== null), output, p, run.summarizerTokens) })),
    ...(run.error === undefined ? {} : { error: run.error }),
  };
}
