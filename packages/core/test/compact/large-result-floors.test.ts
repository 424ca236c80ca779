import { buildContext, createContextManager, createEstimator } from "@contextview/core";
import {
  computeLargeResultFloors,
  LARGE_RESULT_CHARS,
  type LargeResultComputer,
  type LargeResultJob,
} from "@contextview/core/tool-results";
import { portableEstimatorSpec } from "@contextview/core/internal";
import { precomputeLargeResults } from "../../src/compact/large-result-floors.js";
import { clearResultMemo } from "../../src/compact/result-memo.js";
import { conversation, inThread, parsesOf, rowsJson, viewReadOff } from "./large-results.js";

/** Few rows of long text: their identifiers fit a prompt, so the levels above 0 are what the view picks from. */
function notesJson(count: number, prefix: string): string {
  return JSON.stringify({ query: "all notes", notes: Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, date: "2024-02-01", title: `Note ${i}`, text: `word${i % 13} `.repeat(1200) })) });
}

const budget = { promptBudget: 6000 };

afterEach(() => clearResultMemo());

describe("large JSON results computed in another thread", () => {
  it.each([
    ["many small rows (narrowed to their totals)", () => rowsJson(LARGE_RESULT_CHARS + 1000, "narrow")],
    ["few long rows (a level picked from the ladder)", () => notesJson(150, "ladder")],
  ])("%s: the view reads them off without parsing, and is the view computed in place", async (_name, make) => {
    const content = make();
    expect(content.length).toBeGreaterThanOrEqual(LARGE_RESULT_CHARS);
    const { estimator, expected, compute, precomputed, view, parses } = await viewReadOff(content, budget);
    expect(precomputed).toBe(1);
    expect(compute.jobs).toHaveLength(1);
    expect(parses).toBe(0);
    expect(view.messages).toEqual(expected.messages);
    expect(view.report.toolResults).toEqual(expected.report.toolResults);
    // Computed once: a second pass finds the memo filled.
    expect(await precomputeLargeResults(conversation(content), estimator, 6000, compute)).toBe(0);
  });

  it("a limit above the one the ladder was computed for parses the content after all, and the view is still the one computed in place", async () => {
    const content = notesJson(150, "above");
    const estimator = createEstimator();
    const wide = { promptBudget: 30000 };
    const expected = buildContext({ messages: conversation(content), budget: wide, estimator });
    clearResultMemo();
    await precomputeLargeResults(conversation(content), estimator, 2000, inThread());
    const { value: view, parses } = parsesOf(content, () => buildContext({ messages: conversation(content), budget: wide, estimator }));
    expect(parses).toBe(1);
    expect(view.messages).toEqual(expected.messages);
  });

  it("leaves to the view what it cannot compute alike: a tokenizer of its own, a text that is not JSON, a failed computation", async () => {
    const content = rowsJson(LARGE_RESULT_CHARS + 10, "skip");
    const compute = inThread();
    const tokenizer = createEstimator({ tokenizer: (text) => Math.ceil(text.length / 3) });
    expect(portableEstimatorSpec(tokenizer)).toBeUndefined();
    expect(await precomputeLargeResults(conversation(content), tokenizer, 6000, compute)).toBe(0);
    const estimator = createEstimator();
    expect(await precomputeLargeResults(conversation(`log line\n`.repeat(LARGE_RESULT_CHARS / 8)), estimator, 6000, compute)).toBe(0);
    expect(compute.jobs).toHaveLength(0);

    const failing: LargeResultComputer = async () => {
      throw new Error("worker gone");
    };
    expect(await precomputeLargeResults(conversation(content), estimator, 6000, failing)).toBe(0);
    const { parses } = parsesOf(content, () => buildContext({ messages: conversation(content), budget, estimator }));
    expect(parses).toBe(1);
  });

  it("an aborted request stops waiting for the computation", async () => {
    const controller = new AbortController();
    const never: LargeResultComputer = (_job, signal) => new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
    const pending = precomputeLargeResults(conversation(rowsJson(LARGE_RESULT_CHARS, "abort")), createEstimator(), 6000, never, controller.signal);
    controller.abort(new Error("client went away"));
    await expect(pending).rejects.toThrow("client went away");
  });

  it("the manager computes large results before its build, with its own estimator; a largeResults that is no function is refused", async () => {
    const content = rowsJson(LARGE_RESULT_CHARS + 500, "manager");
    const estimator = createEstimator();
    // Worked out before counting, as a worker thread would: only the build's own parses count.
    const floors = computeLargeResultFloors({ text: content, estimator: portableEstimatorSpec(estimator)!, maxTokens: 6000 });
    const jobs: LargeResultJob[] = [];
    const manager = createContextManager({ budget, estimator, largeResults: async (job) => (jobs.push(job), structuredClone(floors)) });
    const spy = jest.spyOn(JSON, "parse");
    try {
      await manager.build({ messages: conversation(content), key: { userId: "u", conversationId: "c" } });
      expect(spy.mock.calls.filter(([arg]) => arg === content)).toHaveLength(0);
    } finally {
      spy.mockRestore();
    }
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.estimator).toEqual(portableEstimatorSpec(estimator));
    expect(jobs[0]!.text).toBe(content);
    expect(() => createContextManager({ largeResults: 5 as never })).toThrow(/largeResults/);
  });
});
