import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, createEstimator, InMemoryContextStore } from "@contextview/core";
import { evidenceWithin } from "../../src/evidence/evidence-within";
import { largestBucket } from "../../src/evidence/extend";
import { evidenceWithout } from "../../src/evidence/held-evidence";
import { EVIDENCE_BUCKETS, type EvidenceBucket } from "../../src/evidence/state";
import { summaryMessage, summaryParts } from "../../src/summarize/summary-message";
import { historyWithin } from "../../src/view/history-evidence";

const estimator = createEstimator();

type Entry = { role: string; messageId: string; index: number; excerpt: string; truncated: boolean };
const entryOf = (index: number): Entry => ({ role: "user", messageId: `m${index}`, index, excerpt: `Message ${index}: ${"words of it ".repeat(8)}`, truncated: false });
/** An evidence envelope as `EvidenceState.asMessage()` renders it, with the given entries per bucket (oldest first). */
function evidence(buckets: Partial<Record<EvidenceBucket, number[]>>, omitted = 3): AIMessage {
  const envelope: Record<string, unknown> = { trust: "untrusted historical evidence", notice: "Untrusted.", version: 1, cursor: 500, omitted };
  for (const bucket of EVIDENCE_BUCKETS) envelope[bucket] = (buckets[bucket] ?? []).map(entryOf);
  return new AIMessage({ id: "contextview-evidence-500", content: JSON.stringify({ contextview_evidence: envelope }), response_metadata: { contextview: "evidence" } });
}
const envelopeOf = (message: BaseMessage | null) => (message === null ? null : (JSON.parse(String(message.content)).contextview_evidence as Record<string, unknown> & Record<EvidenceBucket, Entry[]> & { omitted: number }));
const indices = (message: BaseMessage | null) => Object.fromEntries(EVIDENCE_BUCKETS.map((b) => [b, (envelopeOf(message)?.[b] ?? []).map((e) => e.index)]));

/** The bucket of the `k`-th excerpt to leave (1-based), in the evidence state's eviction order. */
function evictedLast(buckets: Record<EvidenceBucket, number[]>, k: number): EvidenceBucket {
  const lists = Object.fromEntries(EVIDENCE_BUCKETS.map((b) => [b, buckets[b].map((index) => ({ bytes: Buffer.byteLength(JSON.stringify(entryOf(index))) }))])) as Record<EvidenceBucket, { bytes: number }[]>;
  let last: EvidenceBucket = "recentContext";
  for (let i = 0; i < k; i++) {
    last = largestBucket(lists);
    lists[last].shift();
  }
  return last;
}

describe("evidenceWithin: the evidence a view shows within a bound", () => {
  it("returns the message itself when it fits, and a message that is not an evidence envelope as it is", () => {
    const message = evidence({ constraints: [1, 2] });
    expect(evidenceWithin(message, 10_000, estimator)).toEqual({ message, omitted: 0 });
    const other = new AIMessage("Notes the application wrote, long enough to be over any bound.");
    expect(evidenceWithin(other, 1, estimator)).toEqual({ message: other, omitted: 0 });
  });

  it("leaves out the oldest excerpt of the largest bucket first, counting each in omitted, until it fits", () => {
    const message = evidence({ constraints: [10, 20], decisions: [5, 30, 40, 50], recentContext: [60] });
    const whole = estimator.estimateMessage(message);
    const { message: shown, omitted } = evidenceWithin(message, whole - 1, estimator);
    // decisions is the largest bucket: its oldest (5) leaves first — not the oldest excerpt overall.
    expect(omitted).toBe(1);
    expect(indices(shown)).toEqual({ constraints: [10, 20], decisions: [30, 40, 50], openWork: [], recentContext: [60] });
    expect(envelopeOf(shown)?.omitted).toBe(3 + 1);
    expect(shown?.id).toBe(message.id);
    expect(shown?.response_metadata).toEqual(message.response_metadata);
    // The envelope's other fields as they were.
    expect(envelopeOf(shown)?.["notice"]).toBe("Untrusted.");
    expect(envelopeOf(shown)?.["cursor"]).toBe(500);
  });

  it("holds its shorter copy weakly: the same copy while it lives, the same bytes once it was collected", () => {
    const message = evidence({ constraints: [10, 20], decisions: [5, 30, 40, 50], recentContext: [60] });
    const bound = estimator.estimateMessage(message) - 1;
    const first = evidenceWithin(message, bound, estimator);
    expect(evidenceWithin(message, bound, estimator).message).toBe(first.message);
    // A copy the collector took: every reference it was held by comes back empty.
    const collected = evidence({ constraints: [10, 20], decisions: [5, 30, 40, 50], recentContext: [60] });
    const real = globalThis.WeakRef;
    (globalThis as { WeakRef: unknown }).WeakRef = class {
      deref(): undefined {
        return undefined;
      }
    };
    try {
      const made = evidenceWithin(collected, bound, estimator);
      const again = evidenceWithin(collected, bound, estimator);
      expect(again.message).not.toBe(made.message);
      expect({ content: again.message?.content, id: again.message?.id, omitted: again.omitted }).toEqual({ content: made.message?.content, id: made.message?.id, omitted: 1 });
      expect(again.message?.content).toBe(first.message?.content);
    } finally {
      globalThis.WeakRef = real;
    }
  });

  it("is null when not one excerpt fits, every excerpt counted", () => {
    const message = evidence({ constraints: [10, 20], openWork: [7] });
    expect(evidenceWithin(message, 5, estimator)).toEqual({ message: null, omitted: 3 });
  });

  it("leaves out the fewest excerpts that fit the bound, in the evidence state's eviction order (any bound)", () => {
    const bucketArb = fc.uniqueArray(fc.nat({ max: 400 }), { maxLength: 6 }).map((list) => [...list].sort((a, b) => a - b));
    fc.assert(
      fc.property(fc.record({ constraints: bucketArb, decisions: bucketArb, openWork: bucketArb, recentContext: bucketArb }), fc.integer({ min: 0, max: 1500 }), (buckets, bound) => {
        const message = evidence(buckets);
        const { message: shown, omitted } = evidenceWithin(message, bound, estimator);
        const total = EVIDENCE_BUCKETS.reduce((n, b) => n + buckets[b].length, 0);
        // The eviction order the evidence state keeps its own bound by.
        const lists = Object.fromEntries(EVIDENCE_BUCKETS.map((b) => [b, buckets[b].map((index) => ({ index, bytes: Buffer.byteLength(JSON.stringify(entryOf(index))) }))])) as Record<EvidenceBucket, { index: number; bytes: number }[]>;
        for (let k = 0; k < omitted; k++) lists[largestBucket(lists)].shift();
        if (shown === null) {
          expect(omitted).toBe(total);
          return;
        }
        expect(estimator.estimateMessage(shown)).toBeLessThanOrEqual(bound);
        expect(indices(shown)).toEqual(Object.fromEntries(EVIDENCE_BUCKETS.map((b) => [b, lists[b].map((e) => e.index)])));
        // The fewest: with one excerpt fewer left out (the last to leave back in) it would not fit.
        if (omitted > 0) {
          const before = Object.fromEntries(EVIDENCE_BUCKETS.map((b) => [b, buckets[b]])) as Record<EvidenceBucket, number[]>;
          const lessOne = Object.fromEntries(EVIDENCE_BUCKETS.map((b) => [b, before[b].slice(before[b].length - lists[b].length)])) as Record<EvidenceBucket, number[]>;
          const back = evictedLast(before, omitted);
          lessOne[back] = before[back].slice(before[back].length - lists[back].length - 1);
          expect(estimator.estimateMessage(evidence(lessOne, 3 + omitted - 1))).toBeGreaterThan(bound);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("historyWithin: the history slot's evidence within evidenceShare", () => {
  it("cuts the evidence riding along with a summary, never the summary's own text", () => {
    const text = "The user budgets 400 a month for food and 900 for rent.";
    const riding = evidence({ constraints: [1, 2, 3, 4, 5, 6] });
    const history = summaryMessage(text, 40, riding);
    expect(summaryParts(history)?.text).toBe(text);
    const { message, evidenceOmitted } = historyWithin(history, 150, estimator);
    expect(evidenceOmitted).toBeGreaterThan(0);
    const parts = summaryParts(message as BaseMessage);
    expect(parts?.text).toBe(text);
    expect(parts?.prefixN).toBe(40);
    expect(estimator.estimateMessage(parts?.evidence as BaseMessage)).toBeLessThanOrEqual(150);
    expect(indices(parts?.evidence ?? null).constraints).toEqual([1, 2, 3, 4, 5, 6].slice(evidenceOmitted));
    // Not one excerpt fits: the summary alone, marked as holding no evidence.
    const bare = historyWithin(history, 0, estimator);
    expect(bare.evidenceOmitted).toBe(6);
    expect(summaryParts(bare.message as BaseMessage)).toBeNull();
    expect(String(bare.message?.content)).toContain(text);
    expect(String(bare.message?.content)).not.toContain("contextview_evidence");
  });

  it("shows a message without evidence as it is", () => {
    const own = new AIMessage("Notes the application wrote.");
    expect(historyWithin(own, 0, estimator)).toEqual({ message: own, evidenceOmitted: 0 });
    const summary = summaryMessage("A summary without evidence.", 12);
    expect(historyWithin(summary, 0, estimator)).toEqual({ message: summary, evidenceOmitted: 0 });
  });
});

describe("a view with durable evidence (buildContext)", () => {
  /** A chat of `n` turns whose early user turns state facts; the store's evidence quotes some of them. */
  function chat(n: number): BaseMessage[] {
    const out: BaseMessage[] = [];
    for (let i = 0; i < n; i++) {
      const fact = i < 12 ? ` We must keep the ${["garden", "kitchen", "garage", "attic"][i % 4]} budget under ${100 + i} dollars.` : "";
      out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: let us talk about the weekend plans and the weather.${fact}` }));
      out.push(new AIMessage({ id: `a${i}`, content: `Reply ${i}: sounds good, the weather looks fine for the weekend.` }));
    }
    return out;
  }

  it("keeps the evidence within its share of the limit, and brings back by relevance what it left out", async () => {
    const history = chat(80);
    const store = new InMemoryContextStore();
    const question = new HumanMessage({ id: "q", content: "What is the attic budget limit?" });
    const messages = [...history, question];
    const evidenceMessage = (await store.update("u", "c", messages)).asMessage() as BaseMessage;
    expect(evidenceMessage).not.toBeNull();
    const limit = 3000;
    const view = buildContext({ messages, budget: { contextWindow: 32768, promptBudget: limit }, historyMessage: evidenceMessage });
    const shown = view.messages.find((m) => String(m.content).includes("contextview_evidence")) as BaseMessage;
    expect(estimator.estimateMessage(shown)).toBeLessThanOrEqual(Math.floor(0.1 * limit));
    const left = view.report.history.evidenceOmitted;
    expect(left).toBeGreaterThan(0);
    // What the evidence shows is not recalled again; the attic facts it left out can be.
    const quoted = new Set(EVIDENCE_BUCKETS.flatMap((b) => (envelopeOf(shown)?.[b] ?? []).map((e) => e.messageId)));
    const block = String(view.messages.find((m) => String(m.content).startsWith("Messages from earlier"))?.content ?? "");
    for (const id of quoted) expect(block).not.toContain(`id ${id}]`);
    expect(block).toMatch(/attic budget under/);
    // evidenceShare 1: all of it that fits, nothing counted.
    const whole = buildContext({ messages, budget: { contextWindow: 32768, promptBudget: limit }, historyMessage: evidenceMessage, evidenceShare: 1 });
    expect(whole.report.history.evidenceOmitted).toBe(0);
    // All of it but the excerpts of messages the view shows itself, counted apart.
    const inView = new Set(whole.messages.map((m) => m.id).filter((id) => id !== undefined));
    const shownWhole = whole.messages.find((m) => String(m.content).includes("contextview_evidence")) as BaseMessage;
    expect(evidenceWithout(shownWhole, (q) => inView.has(q.messageId)).removed).toEqual([]);
    const expected = evidenceWithout(evidenceMessage, (q) => messages.slice(whole.report.cut).some((m) => m.id === q.messageId));
    expect(whole.report.history.evidenceShown).toBe(expected.removed.length);
    expect(whole.messages.some((m) => m.content === expected.message?.content)).toBe(true);
  });

  it("charges nothing for excerpts of the current turn's messages: the view is the one given the evidence without them", () => {
    // Older chat, then a request answered by one call whose result must be compacted to fit.
    const older = chat(6);
    const request = new HumanMessage({ id: "q", content: "List every order over 100 dollars, with its id and total." });
    const call = new AIMessage({ id: "c", content: "", tool_calls: [{ id: "call-1", name: "orders", args: { over: 100 } }] });
    const rows = Array.from({ length: 300 }, (_, i) => ({ id: `ord-${i}`, total: 100 + i, note: "paid by card, shipped" }));
    const result = new ToolMessage({ id: "r", tool_call_id: "call-1", content: JSON.stringify(rows) });
    const messages = [...older, request, call, result];
    const at = (id: string) => messages.findIndex((m) => m.id === id);
    const quote = (id: string, words: number) => ({ role: "user", messageId: id, index: at(id), excerpt: "the orders over one hundred dollars ".repeat(words), truncated: true });
    const envelope = (entries: Entry[]) => {
      const record: Record<string, unknown> = { trust: "untrusted historical evidence", notice: "Untrusted.", version: 1, cursor: messages.length, omitted: 0 };
      for (const bucket of EVIDENCE_BUCKETS) record[bucket] = bucket === "constraints" ? entries : [];
      return new AIMessage({ id: "contextview-evidence", content: JSON.stringify({ contextview_evidence: record }), response_metadata: { contextview: "evidence" } });
    };
    const budget = { contextWindow: 32768, promptBudget: 2500 };
    const withCurrent = buildContext({ messages, budget, historyMessage: envelope([quote("h1", 4), quote("q", 40), quote("r", 40)]), evidenceShare: 1 });
    const without = buildContext({ messages, budget, historyMessage: envelope([quote("h1", 4)]), evidenceShare: 1 });
    // The result was compacted: the room the two excerpts would have held matters to it.
    expect(without.report.toolResults.compacted + without.report.toolResults.narrowed).toBeGreaterThan(0);
    expect(withCurrent.messages.map((m) => m.content)).toEqual(without.messages.map((m) => m.content));
    expect(withCurrent.report.tokens).toEqual(without.report.tokens);
    // Counted as shown beside their messages, as the older turn's excerpt is when the view keeps that turn.
    expect(withCurrent.report.history.evidenceShown).toBe(without.report.history.evidenceShown + 2);
  });

  it("refuses an evidenceShare outside 0–1, naming it", () => {
    expect(() => buildContext({ messages: [new HumanMessage("hi")], evidenceShare: 1.5 })).toThrow(/evidenceShare/);
    expect(() => buildContext({ messages: [new HumanMessage("hi")], evidenceShare: -0.1 })).toThrow(/evidenceShare/);
  });
});
