// The manager's stages, each alone: a failure names the stage.
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ContextOverflowError } from "@langchain/core/errors";
import { createEstimator, isContextOverflow, resolveBudget, type ContextReport } from "@contextview/core";
import { retryOnOverflow, streamRetryOnOverflow } from "@contextview/core/internal";
import { cachedSummary } from "../../src/manager/cached-summary.js";
import { compactionKind } from "../../src/manager/compaction-kind.js";
import { limitFor } from "../../src/manager/limit-for.js";
import { stateAfterFailure, stateAfterSummary, summarizeAttempt, wantsSummary } from "../../src/manager/summarize-attempt.js";

const noEnv = {};

describe("limitFor", () => {
  const base = resolveBudget({ contextWindow: 32768, promptBudget: 16000, responseReserve: 4096, safetyReserve: 2048 }, noEnv);

  it("divides the limit by the calibration ratio and keeps the trigger under it", () => {
    const { limit, budget, trigger } = limitFor(base, 1.25, false, undefined);
    expect(limit).toBe(Math.floor(base.promptLimit / 1.25));
    expect(budget.promptBudget).toBe(limit);
    expect(trigger).toBeLessThanOrEqual(limit);
  });

  it("takes a share of the limit when compacting harder", () => {
    expect(limitFor(base, 1, true, undefined).limit).toBe(Math.floor(base.promptLimit * 0.6));
  });

  it("never gives the view more than the configured limit, whatever the ratio", () => {
    expect(limitFor(base, 0.5, false, undefined).budget.promptBudget).toBe(base.promptLimit);
  });
});

describe("compactionKind", () => {
  const report = (dropped: number, cleared: number, compacted: number) =>
    ({ turns: { dropped }, toolResults: { cleared, compacted, narrowed: 0 } }) as unknown as ContextReport;

  it.each<[string, boolean, ContextReport, string]>([
    ["a new summary", true, report(3, 1, 1), "summary"],
    ["dropped turns", false, report(3, 1, 1), "drop"],
    ["cleared results", false, report(0, 1, 0), "micro"],
    ["compacted results", false, report(0, 0, 1), "micro"],
    ["nothing", false, report(0, 0, 0), "none"],
  ])("%s → its kind", (_case, summarized, r, kind) => {
    expect(compactionKind(summarized, r)).toBe(kind);
  });
});

describe("cachedSummary", () => {
  const summary = { prefixN: 4, prefixHash: "h", text: "s", createdAt: 1 };
  const state = { version: 1 as const, summary, failures: 0 };

  it("reuses the summary while the prefix hashes the same", async () => {
    expect(await cachedSummary(state, 1, 10, async () => "h")).toEqual({ summary, cacheHit: true });
  });

  it("drops it when the prefix changed, without an error", async () => {
    expect(await cachedSummary(state, 1, 10, async () => "other")).toEqual({ summary: null, cacheHit: false });
  });

  it("does not hash when the summary cannot stand for these messages", async () => {
    const hashOf = jest.fn(async () => "h");
    expect((await cachedSummary(state, 4, 10, hashOf)).cacheHit).toBe(false);
    expect((await cachedSummary(state, 1, 3, hashOf)).cacheHit).toBe(false);
    expect(hashOf).not.toHaveBeenCalled();
  });
});

describe("summarize attempt", () => {
  const estimator = createEstimator();
  const messages = [
    new HumanMessage("first question"),
    new AIMessage("first answer ".repeat(200)),
    new HumanMessage("second question"),
    new AIMessage("second answer ".repeat(200)),
    new HumanMessage("now"),
  ];
  const inputs = { messages, offset: 0, limit: 400, keep: {}, estimator, previous: null, chunkTokens: 6000, timeoutMs: 1000, signal: undefined };

  it("summarizes up to a safe cut before the newest request", async () => {
    const attempt = await summarizeAttempt({ ...inputs, summarizer: async () => "the summary" });
    expect(attempt).toMatchObject({ status: "ok", text: "the summary", calls: 1 });
    expect(attempt.status === "ok" && attempt.prefixN).toBeGreaterThan(0);
    expect(attempt.status === "ok" && attempt.prefixN).toBeLessThan(messages.length);
  });

  it("reports a failure without a summary", async () => {
    expect(await summarizeAttempt({ ...inputs, summarizer: async () => null })).toMatchObject({ status: "failed", reason: "empty" });
  });

  it("does not call the summarizer when nothing precedes the request", async () => {
    const summarizer = jest.fn(async () => "x");
    expect(await summarizeAttempt({ ...inputs, messages: [new HumanMessage("only")], summarizer })).toEqual({ status: "no-cut" });
    expect(summarizer).not.toHaveBeenCalled();
  });

  it("wants a summary only when over and allowed", () => {
    const over = { turns: { dropped: 1 }, toolResults: { cleared: 0 }, tokens: { total: 10 }, history: { given: false, included: false } } as unknown as ContextReport;
    const under = { turns: { dropped: 0 }, toolResults: { cleared: 0 }, tokens: { total: 10 }, history: { given: false, included: false } } as unknown as ContextReport;
    const cleared = { turns: { dropped: 0 }, toolResults: { cleared: 2 }, tokens: { total: 10 }, history: { given: false, included: false } } as unknown as ContextReport;
    const summarizer = async () => "x";
    expect(wantsSummary(over, { summarizer, summarize: undefined, harder: false, trigger: 100 })).toBe(true);
    expect(wantsSummary(under, { summarizer, summarize: undefined, harder: false, trigger: 100 })).toBe(false);
    // Clearing tool results alone does not ask for a summary: the view fits.
    expect(wantsSummary(cleared, { summarizer, summarize: undefined, harder: false, trigger: 100 })).toBe(false);
    expect(wantsSummary(under, { summarizer, summarize: undefined, harder: true, trigger: 100 })).toBe(true);
    expect(wantsSummary(over, { summarizer, summarize: false, harder: false, trigger: 100 })).toBe(false);
    expect(wantsSummary(over, { summarizer: null, summarize: undefined, harder: false, trigger: 100 })).toBe(false);
  });

  it("counts failures into a cool-down and clears them with a summary", () => {
    const state = { version: 1 as const, summary: null, failures: 2 };
    const failed = stateAfterFailure(state, 3, 1000, 5);
    expect(failed).toEqual({ version: 1, summary: null, failures: 3, skipUntil: 1005 });
    const summary = { prefixN: 2, prefixHash: "h", text: "t", createdAt: 6 };
    expect(stateAfterSummary(failed, summary)).toEqual({ version: 1, summary, failures: 0 });
  });
});

describe("the overflow rule", () => {
  it("calls once more after an overflow thrown or answered, and lets a second one surface", async () => {
    const thrown = await retryOnOverflow({ isOverflow: isContextOverflow, call: async () => Promise.reject(new ContextOverflowError()), retry: async () => "smaller" });
    expect(thrown).toEqual({ result: "smaller", recovered: true });
    const answered = await retryOnOverflow({
      isOverflow: isContextOverflow,
      call: async () => new AIMessage({ content: "", response_metadata: { finish_reason: "model_context_window_exceeded" } }),
      retry: async () => new AIMessage("fine"),
    });
    expect(answered.recovered).toBe(true);
    await expect(retryOnOverflow({ isOverflow: isContextOverflow, call: async () => Promise.reject(new ContextOverflowError()), retry: async () => Promise.reject(new ContextOverflowError("again")) })).rejects.toThrow("again");
    await expect(retryOnOverflow({ isOverflow: isContextOverflow, call: async () => Promise.reject(new Error("other")), retry: async () => "never" })).rejects.toThrow("other");
  });

  it("streams retry only before the first chunk", async () => {
    async function* failing(after: number) {
      for (let i = 0; i < after; i++) yield `chunk ${i}`;
      throw new ContextOverflowError();
    }
    async function* fine() {
      yield "retried";
    }
    const collect = async (iterable: AsyncIterable<string>) => {
      const out: string[] = [];
      for await (const chunk of iterable) out.push(chunk);
      return out;
    };
    expect(await collect(streamRetryOnOverflow({ isOverflow: isContextOverflow, call: async () => failing(0), retry: async () => fine() }))).toEqual(["retried"]);
    await expect(collect(streamRetryOnOverflow({ isOverflow: isContextOverflow, call: async () => failing(1), retry: async () => fine() }))).rejects.toThrow(ContextOverflowError);
  });
});

