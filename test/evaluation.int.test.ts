// The offline context evaluation as CI bounds: contextview's required-fact retention,
// budget compliance, whole exchanges and provider order on the eval fixtures, what the
// other systems do to the checkpoint (observed), and the default estimator against
// js-tiktoken. A reduced run (the node skips the finance fixture, LangChain's systems
// run on transaction-search only); `pnpm eval` runs everything. Timings are not asserted.
import { evaluate, type EvaluationReport } from "../eval/evaluate.js";
import { FIXTURES } from "../eval/fixtures/index.js";
import type { SystemResult } from "../eval/run.js";
import { buildContextStrategy, contextEditingStrategy, contextNodeStrategy, summarizationStrategy } from "../eval/strategies/index.js";
import type { Fixture, Strategy } from "../eval/types.js";
import { measurePinningCost } from "../eval/pinning-cost.js";

// tau-airline (124 model calls) through buildContext, the tokenizer check and the node: minutes on 2 shared cores.

const byName = (name: string) => FIXTURES.find((f) => f.name === name) as Fixture;

// Facts each contextview system keeps at least, per fixture (measured; see docs/evaluation.md for the lost ones).
// buildContext / transaction-search keeps 6: under the digit-aware estimator the 480 lean references (with
// their dates) no longer fit beside the pinned request and the previous turn, so rows 87-480 are ids only and
// the last row's date goes (the old byte estimate keeps all 7; without the pin 4 are kept).
const MIN_KEPT: Record<string, Record<string, number>> = {
  "contextview buildContext": { finance: 7, notes: 6, "transaction-search": 6, "mixed-agent": 5, pinned: 5, "api-search": 6, "tau-airline": 3 },
  "contextview node": { notes: 6, "transaction-search": 7, "mixed-agent": 7, "api-search": 6, "tau-airline": 3 },
};

// OpenAI-style cached share each contextview system reaches at least, per fixture (measured, rounded down; see docs/evaluation.md).
// Measured with the current turn's room (a large current result takes the room, older turns come back once it
// is an older, compacted result: the prefix breaks twice), the pinned block and the digit-aware estimator.
// api-search: every call's current result (100 search rows) takes the room, so little repeats; the node's
// 22.8% became 20.9% (= buildContext's) once evidence left out what its views show (039f0e1).
// Raised with clearStep 32 (buildContext) and results that wait for their summary (node), summary segments.
// tau-airline (one current turn of 123 tool calls): measured 55.1% for both; its results change form as the turn grows.
const MIN_CACHED: Record<string, Record<string, number>> = {
  // mixed-agent 0.75 → 0.74 and, for the node, 0.78 → 0.76: the recall brief after tool turns costs
  // 0.6 and 1.5 points there (74.8% and 77.2% in pnpm eval).
  "contextview buildContext": { finance: 0.63, notes: 0.84, "transaction-search": 0.47, "mixed-agent": 0.74, pinned: 0.64, "api-search": 0.2, "tau-airline": 0.5 },
  "contextview node": { notes: 0.88, "transaction-search": 0.65, "mixed-agent": 0.76, "api-search": 0.2, "tau-airline": 0.5 },
};

// Fixtures whose current turn is one long tool loop: its older exchanges degrade by design (compacted,
// cleared, excerpted), so the re-call count (current-turn results shown cleared) is bounded, not zero.
// tau-airline measured 3785 for both contextview systems (trimMessages 7031, summarizationMiddleware 4588,
// contextEditingMiddleware 5677, last 20 messages 6441 in pnpm eval).
// Measured 4,203 since a turn whose shared fit narrows results takes the long-turn fit (more older exchanges cleared, the newest kept whole; was 3,785).
// Measured 5,617 (buildContext) and 4,825 (node) since the oldest exchange shown is a stable anchor: between anchors
// the view leaves out up to 3 × dropStep of the older exchanges' room, for a prefix that holds (cached 52.8 → 86.7%)
// and a larger excerpt (grounding 349 → 350 of 351); was 4,190 and 4,308 in the same session (docs/evaluation.md, 2026-12-07).
const MAX_RECALLS: Record<string, number> = { "tau-airline": 5900 };

// Views of each contextview system, over every fixture, that leave more than a quarter of the limit unused while an
// older turn they leave out (neither shown nor in the summary shown) would fit with its results cleared (see idleView):
// buildContext measured 2 of 442 since older turns are kept cleared before they go, with the default steps (125
// before); the node 0 (each of its 131 views counted before the summary was counted as a form had the turn in its summary).
// docs/evaluation.md, 2026-12-07 (later) and 2026-12-07 (evening).
const MAX_IDLE_VIEWS = 10;

// Grounding each contextview system reaches at least, per fixture (measured, with a margin; see docs/evaluation.md).
const MIN_GROUNDING: Record<string, number> = { "tau-airline": 0.9 };

const results: SystemResult[] = [];
let tokenizerReport: EvaluationReport;


beforeAll(async () => {
  const runs: [Strategy, Fixture[]][] = [
    [buildContextStrategy, FIXTURES.slice()],
    [contextNodeStrategy, ["notes", "transaction-search", "mixed-agent", "api-search", "tau-airline"].map(byName)],
    [summarizationStrategy, [byName("transaction-search")]],
    [contextEditingStrategy, [byName("transaction-search")]],
  ];
  for (const [strategy, fixtures] of runs) {
    const report = await evaluate({ fixtures, strategies: [strategy], tokenizer: strategy === buildContextStrategy });
    results.push(...report.results);
    if (strategy === buildContextStrategy) tokenizerReport = report;
  }
});

const contextview = () => results.filter((r) => r.system.startsWith("contextview"));

test("contextview keeps at least the measured required facts on every fixture", () => {
  expect(contextview()).toHaveLength(FIXTURES.length + 5);
  for (const r of contextview()) {
    const min = MIN_KEPT[r.system]?.[r.fixture];
    expect({ at: `${r.system} / ${r.fixture}`, ok: min !== undefined && r.retention.kept >= min }).toEqual({ at: `${r.system} / ${r.fixture}`, ok: true });
  }
});

test("every contextview view fits the prompt limit, keeps exchanges whole and obeys provider order", () => {
  for (const r of contextview()) {
    const at = `${r.system} / ${r.fixture}`;
    expect({ at, error: r.error, made: r.calls.made }).toEqual({ at, error: undefined, made: r.calls.expected });
    expect({ at, within: r.budget.within, maxInput: r.tokens.maxInput <= r.limit }).toEqual({ at, within: r.calls.expected, maxInput: true });
    expect({ at, broken: r.brokenExchanges, order: r.orderViolations, requestLost: r.requestLost }).toEqual({ at, broken: 0, order: 0, requestLost: 0 });
    // A result the model answers from is never cleared, so it never has to call the same tool again
    // (in a long tool loop, older exchanges of the turn are cleared by design: a measured ceiling).
    const maxRecalls = MAX_RECALLS[r.fixture];
    if (maxRecalls === undefined) expect({ at, recalls: r.recallsFromClearing }).toEqual({ at, recalls: 0 });
    else expect({ at, recalls: r.recallsFromClearing <= maxRecalls }).toEqual({ at, recalls: true });
  }
});

test("contextview's views stay cacheable: the measured prefix-cache share, and at least LangChain's on transaction-search", () => {
  for (const r of contextview()) {
    const min = MIN_CACHED[r.system]?.[r.fixture];
    expect({ at: `${r.system} / ${r.fixture}`, ok: min !== undefined && r.cache.openai.share >= min }).toEqual({ at: `${r.system} / ${r.fixture}`, ok: true });
    // Cached plus written never exceeds what was sent.
    for (const call of r.cache.anthropic.perCall) if (call) expect(call.cached + call.written).toBeLessThanOrEqual(call.prompt);
  }
  const node = results.find((r) => r.system === "contextview node" && r.fixture === "transaction-search") as SystemResult;
  for (const other of results.filter((r) => !r.system.startsWith("contextview"))) expect({ system: other.system, ok: node.cache.openai.share >= other.cache.openai.share }).toEqual({ system: other.system, ok: true });
});

test("contextview's tool calls see the values they reuse: the measured grounding, and at least LangChain's on transaction-search", () => {
  for (const r of contextview()) {
    const at = `${r.system} / ${r.fixture}`;
    const min = MIN_GROUNDING[r.fixture];
    if (min !== undefined) expect({ at, ok: r.grounding.ratio >= min }).toEqual({ at, ok: true });
  }
  const tx = contextview().filter((r) => r.fixture === "transaction-search");
  for (const other of results.filter((r) => !r.system.startsWith("contextview")))
    for (const r of tx) expect({ system: other.system, ok: r.grounding.ratio >= other.grounding.ratio }).toEqual({ system: other.system, ok: true });
});

test("contextview keeps older turns in some form (cleared, or in the summary) before it leaves a view mostly empty", () => {
  // The node runs on five fixtures here (finance and pinned are left to `pnpm eval`).
  for (const [system, fixtures] of [["contextview buildContext", FIXTURES.length], ["contextview node", 5]] as const) {
    const own = results.filter((r) => r.system === system);
    expect(own).toHaveLength(fixtures);
    expect({ system, idle: own.reduce((sum, r) => sum + r.idleViews, 0) <= MAX_IDLE_VIEWS }).toEqual({ system, idle: true });
  }
});

test("the checkpoint: contextview's node leaves it whole; LangChain's middlewares rewrite it (observed)", () => {
  const observed = Object.fromEntries(results.filter((r) => r.system !== "contextview buildContext").map((r) => [`${r.system} / ${r.fixture}`, r.checkpointRewritten]));
  expect(observed).toEqual({
    "contextview node / notes": false,
    "contextview node / transaction-search": false,
    "contextview node / mixed-agent": false,
    "contextview node / api-search": false,
    "contextview node / tau-airline": false,
    "summarizationMiddleware / transaction-search": true,
    "contextEditingMiddleware / transaction-search": true,
  });
});

test("the default estimator never under-estimates a view by more than the safety reserve (js-tiktoken o200k_base, cl100k_base)", () => {
  const tokenizer = tokenizerReport.tokenizer;
  expect(tokenizer?.encodings.map((e) => e.encoding)).toEqual(["o200k_base", "cl100k_base"]);
  for (const e of tokenizer?.encodings ?? []) {
    expect(e.views.samples).toBeGreaterThan(200);
    expect(e.viewsOverReserve).toBe(0);
    expect(e.maxViewShortfall).toBeLessThanOrEqual(tokenizer?.safetyReserve ?? 0);
    // Per message the estimate may fall short; never by more than the share of an 8k limit the reserve covers.
    expect(e.messages.min).toBeGreaterThan(1 - 2048 / 8000);
  }
});

test("pinned context keeps the opening request and the pinned message for a few dozen tokens a call (measured)", async () => {
  const [cost] = await measurePinningCost([byName("pinned")]);
  // Measured: 5/5 with pinning; without it 1/5 until the recall brief after tool turns, which
  // brings the facts the last two requests ask about back into the last view: 5/5 (issue 26).
  // The block averages 80 tokens a call, at most 130.
  expect(cost?.factsKept).toEqual({ pinned: 5, unpinned: 5, required: 5 });
  expect(cost?.callsWithPinned).toBeGreaterThan(0);
  expect(cost?.pinnedTokens.max).toBeLessThanOrEqual(400);
  expect(cost?.meanInput.pinned).toBeLessThanOrEqual(8000);
});
