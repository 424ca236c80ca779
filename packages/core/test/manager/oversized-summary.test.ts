import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { createContextManager, createEstimator, InMemoryContextStore, type Summarizer } from "@contextview/core";
import type { CompactionState } from "@contextview/core/store";
import { isSummaryMessage } from "../../src/summarize/summary-message.js";
import { summaryPrefixHash } from "../../src/summarize/prefix-hash";
import { budget, financeTurns, upToRequest } from "./finance-turns";

// An accepted summary must fit the room it is for, evidence must not depend on it
// fitting, and whatever stands for a dropped span is counted.
const estimator = createEstimator();


const all = financeTurns(40);
const upTo = (turn: number) => upToRequest(all, turn);


/** A summarizer that answers 12,000 characters whatever it is asked (and records what it was told). */
function longWindedSummarizer() {
  const told: (number | undefined)[] = [];
  const summarizer: Summarizer = async (_transcript, context) => {
    told.push(context.maxTokens);
    return `LONG-SUMMARY ${"the user discussed budgets and items at length. ".repeat(250)}`.slice(0, 12_000);
  };
  return { summarizer, told };
}

describe("an oversized summary", () => {
  it("is cut to fit at acceptance: every later view shows a summary or counts what it drops, and evidence keeps its place", async () => {
    const store = new InMemoryContextStore();
    const { summarizer, told } = longWindedSummarizer();
    const manager = createContextManager({ budget, summarizer, store });
    let summarized = 0;
    for (let turn = 5; turn < 40; turn++) {
      const messages = upTo(turn);
      const evidence = (await store.update("u1", "t1", messages)).asMessage();
      const view = await manager.build({ messages, key: { userId: "u1", conversationId: "t1" }, evidence });
      expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
      const summaryShown = view.messages.find((m) => isSummaryMessage(m));
      const text = JSON.stringify(view.messages);
      if (view.report.compaction.summarizedMessages > 0) {
        summarized++;
        expect(summaryShown).toBeDefined();
        expect(String(summaryShown?.content)).toContain("LONG-SUMMARY");
        expect(view.report.history.included).toBe(true);
      } else {
        // Nothing stands for the older turns but what the report counts.
        expect(view.report.turns.dropped + view.report.turns.kept).toBe(view.report.turns.read);
      }
      // Evidence never rides out with a summary that does not fit: every message it quotes is in
      // the view, quoted by the evidence or shown itself (evidence never repeats what is shown),
      // but for the excerpts left out to keep it within its share, which the report counts.
      if (evidence !== null) {
        const unseen = (String(evidence.content).match(/"messageId":"[^"]+"/g) ?? [])
          .map((quoted) => quoted.slice(13, -1))
          .filter((id) => !text.includes(`"id":"${id}"`) && !text.includes(`\\"messageId\\":\\"${id}\\"`));
        expect(unseen.length).toBeLessThanOrEqual(view.report.history.evidenceOmitted);
      }
    }
    expect(summarized).toBeGreaterThan(20);
    // The summarizer was told the bound, and it is a share of the prompt limit.
    expect(told.length).toBeGreaterThan(0);
    for (const maxTokens of told) {
      expect(maxTokens).toBeGreaterThan(0);
      expect(maxTokens).toBeLessThan(4000 / 2);
    }
    // What was stored fits the bound the summarizer was told, as a marked excerpt.
    const stored = (await store.getCompaction({ userId: "u1", conversationId: "t1" }))?.summary;
    expect(stored).toBeDefined();
    expect(estimator.estimateText(stored?.text ?? "")).toBeLessThanOrEqual((told.at(-1) ?? 0) + 30);
    expect(stored?.text).toMatch(/excerpt: \d+ of \d+ characters omitted/);
  });

  it("stored by an earlier version is cut to this view's room, not left out with the evidence", async () => {
    const store = new InMemoryContextStore();
    const key = { userId: "u1", conversationId: "t2" };
    const messages = upTo(30);
    const prefixN = 40;
    const state: CompactionState = {
      version: 1,
      failures: 0,
      summary: { prefixN, prefixHash: await summaryPrefixHash(messages, prefixN, undefined), text: `OLD-SUMMARY ${"x ".repeat(6000)}`, createdAt: 1 },
    };
    await store.putCompaction(key, state);
    const evidence = (await store.update("u1", "t2", messages)).asMessage();
    expect(evidence).not.toBeNull();
    const manager = createContextManager({ budget, summarizer: longWindedSummarizer().summarizer, store });
    const view = await manager.build({ messages, key, evidence });
    expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
    const shown = view.messages.find((m) => isSummaryMessage(m));
    expect(shown).toBeDefined();
    expect(String(shown?.content)).toContain("OLD-SUMMARY");
    expect(String(shown?.content)).toMatch(/excerpt: \d+ of \d+ characters omitted/);
    expect(view.report.history.included).toBe(true);
    expect(view.report.compaction.summaryExcerpted).toBe(true);
    expect(JSON.stringify(view.messages)).toContain("untrusted");
  });

  it("with no room at all for it, gives its span back to the older turns: dropped and counted, evidence shown", async () => {
    const store = new InMemoryContextStore();
    const key = { userId: "u1", conversationId: "t3" };
    const messages = [...upTo(30)];
    // A current request that leaves little room beside the system prompt.
    let words = 100;
    const request = () => new HumanMessage({ id: "big-request", content: `Please look at this: ${Array.from({ length: words }, (_, i) => `w${i}`).join(" ")}` });
    while (estimator.estimateMessage(request()) < 4000 - 250) words += 20;
    messages[messages.length - 1] = request();
    const prefixN = 40;
    await store.putCompaction(key, {
      version: 1,
      failures: 0,
      summary: { prefixN, prefixHash: await summaryPrefixHash(messages, prefixN, undefined), text: `OLD-SUMMARY ${"x ".repeat(6000)}`, createdAt: 1 },
    });
    const evidence = new AIMessage({ id: "contextview-evidence", content: "Untrusted historical evidence: the user budgets 400 EUR." });
    const manager = createContextManager({ budget, store });
    const view = await manager.build({ messages, key, evidence });
    expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
    expect(view.messages.some((m) => isSummaryMessage(m))).toBe(false);
    expect(view.report.compaction.summarizedMessages).toBe(0);
    // The span the summary stood for is counted as dropped turns, not represented by nothing.
    expect(view.report.messages.read + view.report.messages.unread).toBe(messages.length);
    expect(view.report.messages.dropped + view.report.messages.unread).toBeGreaterThanOrEqual(prefixN - 1);
    expect(JSON.stringify(view.messages)).toContain("the user budgets 400 EUR");
  });
});
