import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createContextManager, InMemoryContextStore, pinMessage, type ContextReport, type Summarizer } from "@contextview/core";
import { budget, longConversation } from "../manager/finance-turns";
import { evidenceWithout } from "../../src/evidence/held-evidence";

// Issue 28, item 8: one vocabulary of counts (see docs/observability.md, "The vocabulary").
// Every message given is summarized, read or unread; what was read is kept or dropped.

/** The invariants of the vocabulary, as one object for a readable failure. */
function partition(report: ContextReport) {
  const { inCheckpoint, summarized, read, unread, kept, dropped } = report.messages;
  return {
    checkpoint: inCheckpoint === summarized + read + unread,
    droppedWereRead: dropped <= read,
    keptOrDropped: kept + dropped >= read,
  };
}

const ALL_HOLD = { checkpoint: true, droppedWereRead: true, keptOrDropped: true };

describe("the report's vocabulary", () => {
  it("counts as dropped only messages the view read; those it never read are unread, not dropped", () => {
    const messages = longConversation(60);
    const { report } = buildContext({ messages, budget: { promptBudget: 3000 }, excerptBudget: 0 });
    expect(report.messages.unread).toBeGreaterThan(100);
    expect(partition(report)).toEqual(ALL_HOLD);
    // The dropped messages are among those the view read, not the whole history; the opening
    // request, pinned from the unread part, is kept.
    expect(report.messages.dropped).toBeLessThan(report.messages.unread);
    expect(report.messages.kept - (report.messages.read - report.messages.dropped)).toBe(1);
    expect(report.messages.dropped).toBeLessThanOrEqual(report.messages.read - report.messages.kept + report.pinned.messages.length + 1);
    expect(report.messages.inCheckpoint).toBe(messages.length);
  });

  it("counts a pinned message once when its kept turn shows it as an excerpt and the pinned block whole", () => {
    const long = pinMessage(new HumanMessage({ id: "spec", content: `The specification. ${"requirement detail ".repeat(900)}` }));
    const messages = [new HumanMessage({ id: "h0", content: "Start." }), new AIMessage({ id: "a0", content: "Started." }), long, new AIMessage({ id: "a1", content: "Noted." }), new HumanMessage({ id: "now", content: "Go on." })];
    const { messages: view, report } = buildContext({ messages, budget: { promptBudget: 12000 }, pinnedBudget: 6000, maxOlderMessageTokens: 200 });
    // The view shows the pinned message twice: excerpted in its turn, whole in the pinned block.
    expect(view.filter((m) => m.id === "spec")).toHaveLength(2);
    expect(report.messages).toMatchObject({ read: messages.length, unread: 0, kept: messages.length, dropped: 0 });
  });

  it("counts the checkpoint's messages, the summarized prefix included, beside those the view read", async () => {
    const summarizer: Summarizer = async () => "The user asked about item budgets; every item is fine.";
    const manager = createContextManager({ budget, summarizer });
    const messages = longConversation(40);
    const { report } = await manager.build({ messages, key: { userId: "u1", conversationId: "t1" } });
    expect(report.compaction.summarizedMessages).toBeGreaterThan(0);
    expect(report.messages.inCheckpoint).toBe(messages.length);
    expect(report.messages.summarized).toBe(report.compaction.summarizedMessages);
    expect(report.messages.read + report.messages.unread).toBeLessThan(messages.length);
    expect(partition(report)).toEqual(ALL_HOLD);
    expect(report.history).toMatchObject({ given: true, included: true, summary: true, evidence: false });
  });

  it("says whether the history slot shows a summary or durable evidence", async () => {
    const messages = longConversation(30);
    const evidence = (await new InMemoryContextStore().update("u1", "t0", messages)).asMessage();
    expect(evidence).not.toBeNull();
    const evidenceOnly = buildContext({ messages, budget, historyMessage: evidence, evidenceShare: 1 });
    // The excerpts of messages the view shows itself are left out, counted in evidenceShown.
    const inView = evidenceWithout(evidence as BaseMessage, (q) => messages.slice(evidenceOnly.report.cut).some((m) => m.id === q.messageId)).removed.length;
    expect(inView).toBeGreaterThan(0);
    expect(evidenceOnly.report.history).toEqual({ given: true, included: true, summary: false, evidence: true, evidenceOmitted: 0, evidenceShown: inView });
    // Evidence that quotes only messages the view shows is left out, and why.
    const recent = evidenceWithout(evidence as BaseMessage, (q) => !messages.slice(evidenceOnly.report.cut).some((m) => m.id === q.messageId)).message as BaseMessage;
    const shownAll = buildContext({ messages, budget, historyMessage: recent, evidenceShare: 1 });
    expect(shownAll.report.history).toMatchObject({ given: true, included: false, reason: "shown", evidence: false });
    expect(shownAll.report.history.evidenceShown).toBeGreaterThan(0);
    expect(shownAll.messages.some((m) => String(m.content).includes("contextview_evidence"))).toBe(false);
    // The 0.x name of the slot's flags is gone: `history` alone says it.
    expect("summary" in evidenceOnly.report).toBe(false);
    // Within its share of the limit, the excerpts left out are counted, and in the envelope too. (At the default
    // tenth all of it fits once the excerpts of messages the view shows leave: a twentieth does not.)
    const atDefault = buildContext({ messages, budget, historyMessage: evidence }).report;
    const inDefault = evidenceWithout(evidence as BaseMessage, (q) => messages.slice(atDefault.cut).some((m) => m.id === q.messageId)).removed.length;
    expect(atDefault.history).toMatchObject({ included: true, evidenceOmitted: 0, evidenceShown: inDefault });
    const shared = buildContext({ messages, budget, historyMessage: evidence, evidenceShare: 0.05 });
    const omitted = shared.report.history.evidenceOmitted;
    expect(omitted).toBeGreaterThan(0);
    const envelope = (content: unknown) => JSON.parse(String(content)).contextview_evidence as { omitted: number };
    expect(envelope(shared.messages.find((m) => String(m.content).includes("contextview_evidence"))?.content).omitted).toBe(envelope(evidence?.content).omitted + omitted);
    // Not one excerpt within its share: left out, and why.
    const none0 = buildContext({ messages, budget, historyMessage: evidence, evidenceShare: 0 });
    expect(none0.report.history).toMatchObject({ given: true, included: false, reason: "evidence-share", evidence: false });
    expect(none0.report.history.evidenceOmitted).toBeGreaterThan(omitted);

    const own = buildContext({ messages, budget, historyMessage: new AIMessage("Notes the application wrote.") });
    expect(own.report.history).toEqual({ given: true, included: true, summary: false, evidence: false, evidenceOmitted: 0, evidenceShown: 0 });

    const none = buildContext({ messages: [new HumanMessage("hi")] });
    expect(none.report.history).toEqual({ given: false, included: false, summary: false, evidence: false, evidenceOmitted: 0, evidenceShown: 0 });

    const store = new InMemoryContextStore();
    const summarizer: Summarizer = async () => "The user asked about item budgets; every item is fine.";
    const manager = createContextManager({ budget, summarizer, store });
    const long = longConversation(40);
    const fresh = (await store.update("u1", "t2", long)).asMessage();
    const both = await manager.build({ messages: long, key: { userId: "u1", conversationId: "t2" }, evidence: fresh });
    expect(both.report.history).toMatchObject({ given: true, included: true, summary: true, evidence: true });
  });
});
