import fc from "fast-check";
import { buildContext, createEstimator } from "@contextview/core";
import { LARGE_RESULT_CHARS } from "@contextview/core/tool-results";
import { precomputeLargeResults } from "../../src/compact/large-result-floors.js";
import { artifactJsonInSlices } from "../../src/compact/artifact-json.js";
import { readArtifactSource } from "../../src/compact/compact-tool-result.js";
import { resolveCompactOptions } from "../../src/compact/options.js";
import { clearResultMemo } from "../../src/compact/result-memo.js";
import { Slicer } from "../../src/evidence/slicer.js";
import { conversation, inThread, parsesOf, rows, rowsJson, viewReadOff } from "./large-results.js";

const budget = { promptBudget: 6000 };

afterEach(() => clearResultMemo());

describe("large results that once missed the worker", () => {
  it("JSON behind 100 spaces goes to `largeResults`, and the view reads it off as it would have computed it", async () => {
    const content = " ".repeat(100) + rowsJson(LARGE_RESULT_CHARS, "spaced");
    const { expected, compute, precomputed, view, parses } = await viewReadOff(content, budget);
    expect(precomputed).toBe(1);
    expect(compute.jobs).toHaveLength(1);
    expect(parses).toBe(0);
    expect(view.messages).toEqual(expected.messages);
  });

  it("a large text that starts like JSON but does not parse is parsed once: the worker's finding is kept, no view parses it, no job sends it", async () => {
    const content = rowsJson(LARGE_RESULT_CHARS, "brace") + "}";
    const estimator = createEstimator();
    const compute = inThread();
    expect(await precomputeLargeResults(conversation(content), estimator, 6000, compute)).toBe(0);
    const { value: view, parses } = parsesOf(content, () => buildContext({ messages: conversation(content), budget, estimator }));
    expect(parses).toBe(0);
    expect(view.report.toolResults).toEqual(expect.objectContaining({ compacted: 1 }));
    expect(await precomputeLargeResults(conversation(content), createEstimator(), 6000, compute)).toBe(0);
    expect(compute.jobs).toHaveLength(1);
  });

  it("without a worker, a large text that does not parse is parsed once across views with their own estimators", () => {
    const content = rowsJson(LARGE_RESULT_CHARS, "views") + "}";
    const { parses } = parsesOf(content, () => {
      buildContext({ messages: conversation(content), budget, estimator: createEstimator() });
      return buildContext({ messages: conversation(content), budget, estimator: createEstimator() });
    });
    expect(parses).toBe(1);
  });
});

/** A row whose JSON is its own `toJSON` (a class instance, as a tool's client library returns), counting the calls. */
class Transaction {
  static calls = 0;
  constructor(
    private readonly row: { id: string; date: string; amount: number; payee: string },
    private readonly secret = "internal",
  ) {}

  toJSON(): unknown {
    Transaction.calls++;
    return { ...this.row, booked: new Date(Date.UTC(2024, 0, 1)), note: this.secret === "internal" ? undefined : this.secret };
  }
}

describe("a large result with an artifact", () => {
  it.each([
    ["plain rows", (r: ReturnType<typeof rows>) => r, "artifact"],
    ["rows with a toJSON of their own (Dates, a value left out)", (r: ReturnType<typeof rows>) => r.map((row) => new Transaction(row)), "artifact"],
    ["a model_context beside other keys", (r: ReturnType<typeof rows>) => ({ model_context: { rows: r }, raw: "left out" }), "model_context"],
  ] as const)("%s: the JSON of what compaction reads is sent, and the view reads it off as it would have computed it", async (_name, make, origin) => {
    const data = rows(LARGE_RESULT_CHARS, "art");
    const content = JSON.stringify(data);
    const artifact = make(data);
    const estimator = createEstimator();
    const expected = buildContext({ messages: conversation(content, artifact), budget, estimator });
    clearResultMemo();
    const compute = inThread();
    const messages = conversation(content, artifact);
    expect(await precomputeLargeResults(messages, estimator, 6000, compute)).toBe(1);
    expect(compute.jobs.map((job) => job.origin)).toEqual([origin]);
    Transaction.calls = 0;
    const view = buildContext({ messages, budget, estimator });
    // The artifact is not read again on this thread.
    expect(Transaction.calls).toBe(0);
    expect(view.messages).toEqual(expected.messages);
    expect(view.report.toolResults).toEqual(expected.report.toolResults);
  });

  it("an artifact the view refuses (a Map inside) is not sent: the view says why, as before", async () => {
    const data = rows(LARGE_RESULT_CHARS, "map");
    const artifact = { rows: data, index: new Map([["a", 1]]) };
    const content = JSON.stringify(data);
    const estimator = createEstimator();
    const expected = buildContext({ messages: conversation(content, artifact), budget, estimator });
    clearResultMemo();
    const compute = inThread();
    expect(await precomputeLargeResults(conversation(content, artifact), estimator, 6000, compute)).toBe(0);
    expect(compute.jobs).toHaveLength(0);
    expect(buildContext({ messages: conversation(content, artifact), budget, estimator }).messages).toEqual(expected.messages);
  });
});

describe("an artifact's JSON written in slices", () => {
  const options = resolveCompactOptions(undefined);
  /** Values JSON reads in its own way: toJSON, Dates, boxed and non-finite numbers, values it leaves out, shared objects. */
  const odd = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.date({ noInvalidDate: true }),
    fc.constantFrom(undefined, Number.NaN, -0, Infinity, () => 1, Symbol("s")),
    fc.double().map((n) => new Number(n)),
    fc.string().map((text) => ({ toJSON: (key: string) => `${key}:${text}` })),
  );
  const artifact = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      odd,
      fc.array(tie("value"), { maxLength: 6 }),
      fc.dictionary(fc.string({ maxLength: 4 }), tie("value"), { maxKeys: 5 }),
    ),
  })).value;

  it("is JSON.stringify of what compaction reads of it, for any artifact, large ones too", async () => {
    await fc.assert(
      fc.asyncProperty(artifact, fc.integer({ min: 0, max: 9000 }), async (value, copies) => {
        // Large collections are written piece by piece: some artifacts repeat a shared value thousands of times.
        const subject = copies > 0 && typeof value === "object" && value !== null ? { many: Array.from({ length: copies }, () => value), one: value } : value;
        let expected: string | undefined;
        try {
          const read = readArtifactSource(subject, options);
          expected = read !== undefined && typeof read.value === "object" && read.value !== null ? JSON.stringify(read.value) : undefined;
        } catch {
          await expect(artifactJsonInSlices(subject, options, new Slicer(undefined))).rejects.toThrow();
          return;
        }
        expect((await artifactJsonInSlices(subject, options, new Slicer(undefined, 0)))?.text).toBe(expected);
      }),
      { numRuns: 60 },
    );
  });
});
