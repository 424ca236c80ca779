import fc from "fast-check";
import { ToolMessage } from "@langchain/core/messages";
import { ContextViewError, createEstimator } from "@contextview/core";
import { compactOrNarrow, compactToolResult, compactionMarkerOf } from "@contextview/core/tool-results";
import { textOf } from "../../src/messages.js";
import { deepFreeze } from "@contextview/test-support";
import { contentJson, omissionTotals, projectionProblems } from "./laws.js";

const estimator = createEstimator();
/** Runs from the clock's seed, or FUZZ_SEED's (a failure prints the seed it ran). */
const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
const bounded = (ms: number): fc.Parameters<unknown> => ({ seed, endOnFailure: true, plugins: [fc.interruptAfterTimeLimit(ms, { failOnInterrupt: true })] });

const host = fc.constantFrom("https://api.example.com", "https://hooks.example.org/v2");
/** A nested object as APIs embed them: an identifier, a name, links, a template, flags. */
const nested = fc.record(
  { id: fc.nat(), login: fc.string({ minLength: 1, maxLength: 12 }), avatar_url: host.map((h) => `${h}/a.png`), events_url: host.map((h) => `${h}/events{/privacy}`), site_admin: fc.boolean() },
  { requiredKeys: ["id"] },
);
/** A row shaped like a REST/MCP API's: ids, dates, hypermedia links (some templates), nested objects, named lists, prose. */
const apiRow = (i: number) =>
  fc.record(
    {
      id: fc.constant(1_000_000 + i),
      number: fc.constant(i + 1),
      node_id: fc.string({ minLength: 4, maxLength: 20 }),
      url: host.map((h) => `${h}/items/${i + 1}`),
      html_url: fc.constantFrom(`https://example.com/items/${i + 1}`, `https://example.com/other/${i * 7}`),
      labels_url: host.map((h) => `${h}/items/${i + 1}/labels{/name}`),
      title: fc.string({ maxLength: 80 }),
      user: nested,
      labels: fc.array(fc.record({ id: fc.nat(), name: fc.string({ minLength: 1, maxLength: 10 }), color: fc.constant("f29513") }), { maxLength: 3 }),
      created_at: fc.date({ min: new Date("2020-01-01"), max: new Date("2030-01-01"), noInvalidDate: true }).map((d) => d.toISOString()),
      closed_at: fc.constantFrom(null, "2025-01-01T00:00:00Z"),
      body: fc.string({ maxLength: 1500 }),
    },
    { requiredKeys: ["url", "title"] },
  );
const apiPayload = fc.nat({ max: 150 }).chain((n) =>
  fc.record({ total_count: fc.constant(n), incomplete_results: fc.boolean(), items: fc.tuple(...Array.from({ length: n }, (_, i) => apiRow(i))) }),
);

describe("compaction over random API-shaped payloads and limits (property)", () => {
  it("within the limit or a typed error; valid JSON; rows findable or counted; nothing invented; honest marker", () => {
    fc.assert(
      fc.property(apiPayload, fc.integer({ min: 50, max: 6000 }), (raw, limit) => {
        const artifact = deepFreeze(raw);
        const message = new ToolMessage({ content: JSON.stringify(artifact), artifact, tool_call_id: "c" });
        let out: ToolMessage;
        try {
          out = compactToolResult(message, limit);
        } catch (error) {
          expect(ContextViewError.isInstance(error) && (error as ContextViewError).code).toBe("COMPACTION_LIMIT");
          expect((error as ContextViewError).details["requiredTokens"]).toBeGreaterThan(limit);
          return;
        }
        const text = textOf(out.content);
        expect(estimator.estimateText(text) <= limit || text === JSON.stringify(artifact)).toBe(true);
        const json = contentJson(out);
        expect(projectionProblems(artifact, json)).toEqual([]);
        const marker = compactionMarkerOf(out);
        if (marker?.form === "json") {
          expect(omissionTotals(json)).toEqual({ omittedRows: marker.omittedRows, omittedChars: marker.omittedChars });
          // Every row is kept, referred to, or counted: the items node adds up to the rows returned.
          const items = (json as { items: unknown }).items as { returned?: number; retained?: number; omitted?: number } | unknown[];
          if (!Array.isArray(items)) expect((items.retained ?? 0) + (items.omitted ?? 0)).toBe(raw.items.length);
          // A second, smaller pass keeps every omission counted (or refuses with a typed error).
          try {
            const second = compactionMarkerOf(compactToolResult(out, Math.max(1, Math.floor(limit * 0.9))));
            if (second?.form === "json") expect(second.omittedRows).toBeGreaterThanOrEqual(marker.omittedRows);
          } catch (error) {
            expect(ContextViewError.isInstance(error) && (error as ContextViewError).code).toBe("COMPACTION_LIMIT");
          }
        }
      }),
      { numRuns: 60, ...bounded(60_000) },
    );
  });

  it("a current-turn result is never cleared: compacted or narrowed within the limit, never told to call the tool again", () => {
    fc.assert(
      fc.property(apiPayload, fc.integer({ min: 80, max: 6000 }), (raw, limit) => {
        const message = new ToolMessage({ content: JSON.stringify(raw), tool_call_id: "c", name: "search" });
        const { message: out, outcome } = compactOrNarrow(message, limit);
        const text = textOf(out.content);
        expect(text).not.toMatch(/call (the|the source) tool again/);
        expect(compactionMarkerOf(out)?.form).not.toBe("cleared");
        expect(estimator.estimateText(text)).toBeLessThanOrEqual(Math.max(limit, outcome === "narrowed" ? 80 : limit));
        if (outcome === "narrowed") expect(text).toMatch(/narrow the query/i);
      }),
      { numRuns: 60, ...bounded(60_000) },
    );
  });
});
