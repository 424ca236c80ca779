import fc from "fast-check";
import { ToolMessage } from "@langchain/core/messages";
import { ContextViewError, createEstimator } from "@contextview/core";
import { compactToolResult, compactionMarkerOf } from "@contextview/core/tool-results";
import { textOf } from "../../src/messages.js";
import { deepFreeze } from "@contextview/test-support";
import { contentJson, omissionTotals, omittedReferences, projectionProblems } from "./laws.js";

const estimator = createEstimator();
const char = fc.constantFrom("a", "b", " ", "é", "😀", "\n", "#", "\ud800", '"', "\\");
const text = (maxLength: number) => fc.string({ unit: char, maxLength, size: "max" });

const row = fc.record(
  {
    id: fc.string({ minLength: 1, maxLength: 8 }),
    date: fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
    amount: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
    memo: text(300),
    tags: fc.array(fc.string({ maxLength: 5 }), { maxLength: 6 }),
    __proto__: fc.constant("data"),
  },
  { requiredKeys: ["amount"] },
);

const payload = fc.record({
  query: fc.string({ maxLength: 30 }),
  count: fc.nat(),
  totals: fc.record({ spending: fc.integer() }),
  transactions: fc.array(row, { maxLength: 120, size: "max" }),
  items: fc.array(fc.oneof(row, fc.integer(), fc.string({ maxLength: 20 })), { maxLength: 60, size: "max" }),
  markdown: text(4000),
});

/**
 * Seeds stay random so every run explores new payloads, but a failure must end
 * in bounded time instead of shrinking for minutes (each run compacts a payload
 * of up to ~100 KB several times, and CI read the long shrink as a hang). Every
 * property is interrupted, as a failure, past a limit far above its usual time
 * (about a second) that a loaded two-core machine does not reach; the costliest,
 * repeated compaction, also reports its first counterexample unshrunk. The seed comes
 * from the clock, or from FUZZ_SEED, which replays the seed a report prints.
 */
const SEED = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
const bounded = (timeLimitMs: number, endOnFailure = false): fc.Parameters<unknown> => ({
  seed: SEED,
  endOnFailure,
  plugins: [fc.interruptAfterTimeLimit(timeLimitMs, { failOnInterrupt: true })],
});

/** The marker reports what the nodes say: its totals are those of every node and nested omission. */
function expectHonestMarker(out: ToolMessage): void {
  const marker = compactionMarkerOf(out);
  if (marker?.form !== "json") return;
  expect(omissionTotals(contentJson(out))).toEqual({ omittedRows: marker.omittedRows, omittedChars: marker.omittedChars });
}

const message = (artifact: unknown) => new ToolMessage({ content: JSON.stringify(artifact), artifact, tool_call_id: "call-p" });

/** Compacts, or checks that the refusal is honest: it names figures over the limit that a retry at them meets. */
function compactOrProveLimit(input: ToolMessage, limit: number): ToolMessage | undefined {
  try {
    return compactToolResult(input, limit);
  } catch (error) {
    if (!ContextViewError.isInstance(error) || error.code !== "COMPACTION_LIMIT") throw error;
    const required = error.details["requiredTokens"] as number;
    expect(required).toBeGreaterThan(limit);
    expect(estimator.estimateText(textOf(compactToolResult(input, required).content))).toBeLessThanOrEqual(required);
    return undefined;
  }
}

describe("compactToolResult laws", () => {
  it("output parses, fits, keeps order and every omitted reference; input untouched", () => {
    let compacted = 0;
    fc.assert(
      fc.property(payload, fc.integer({ min: 50, max: 4000 }), (raw, limit) => {
        const artifact = deepFreeze(raw);
        const before = JSON.stringify(artifact);
        const input = message(artifact);
        const out = compactOrProveLimit(input, limit);
        expect(JSON.stringify(artifact)).toBe(before);
        if (out === undefined) return;
        expect(estimator.estimateText(textOf(out.content))).toBeLessThanOrEqual(Math.max(limit, estimator.estimateText(before)));
        const json = contentJson(out);
        if (compactionMarkerOf(out) !== undefined) compacted++;
        if (compactionMarkerOf(out) !== undefined) expect(projectionProblems(artifact, json)).toEqual([]);
        else expect(textOf(out.content)).toBe(before);
        expectHonestMarker(out);
      }),
      { numRuns: 80, ...bounded(20_000) },
    );
    // The generator must exercise compaction, not only small payloads kept whole.
    expect(compacted).toBeGreaterThan(20);
  });

  it("a second, smaller limit keeps the laws and never loses an earlier omission", () => {
    fc.assert(
      fc.property(payload, fc.integer({ min: 400, max: 4000 }), fc.double({ min: 0.3, max: 1, noNaN: true }), (raw, limit, shrink) => {
        const artifact = deepFreeze(raw);
        const once = compactOrProveLimit(message(artifact), limit);
        if (once === undefined) return;
        const twice = compactOrProveLimit(once, Math.max(1, Math.floor(limit * shrink)));
        if (twice === undefined) return;
        const [a, b] = [compactionMarkerOf(once), compactionMarkerOf(twice)];
        if (a?.form === "json" && b?.form === "json") {
          expect(b.omittedRows).toBeGreaterThanOrEqual(a.omittedRows);
          expect(b.omittedChars).toBeGreaterThanOrEqual(a.omittedChars);
          expect(projectionProblems(artifact, contentJson(twice))).toEqual([]);
          expectHonestMarker(twice);
          // References survive while they fit; the identifiers-only form keeps the counts, not every reference.
          if ((b.references ?? "full") === "full") expect(omittedReferences(contentJson(twice))).toEqual(expect.arrayContaining(omittedReferences(contentJson(once))));
        }
        expect(compactToolResult(twice, Math.max(1, Math.floor(limit * shrink))).content).toBe(twice.content);
      }),
      { numRuns: 60, ...bounded(20_000, true) },
    );
  });

  it("plain text excerpts add up and fit", () => {
    fc.assert(
      fc.property(text(6000), fc.integer({ min: 60, max: 1500 }), (content, limit) => {
        const out = compactOrProveLimit(new ToolMessage({ content, tool_call_id: "t" }), limit);
        if (out === undefined) return;
        const marker = compactionMarkerOf(out);
        if (marker === undefined) return void expect(out.content).toBe(content);
        expect(estimator.estimateText(textOf(out.content))).toBeLessThanOrEqual(limit);
        if (marker.form !== "text") throw new Error("text marker expected");
        expect(marker.headChars + marker.tailChars + marker.omittedChars).toBe(content.length);
        const body = textOf(out.content);
        expect(content.startsWith(body.slice(body.indexOf("\n") + 1, body.indexOf("\n") + 1 + marker.headChars))).toBe(true);
      }),
      { numRuns: 80, ...bounded(20_000) },
    );
  });
});
