import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, createEstimator, InMemoryContextStore } from "@contextview/core";

const key = { userId: "u1", conversationId: "t1" };
const BUDGET = { contextWindow: 32768, promptBudget: 2000, responseReserve: 4096 };

/** `n` turns of a user request and an answer of ~`chars` characters each; ids h<i>, f<i>. */
function turns(n: number, chars = 600): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Request ${i}: keep rent under 900. ${"more words ".repeat(chars / 11)}` }));
    out.push(new AIMessage({ id: `f${i}`, content: `Answer ${i}. ${"detail ".repeat(chars / 7)}` }));
  }
  return out;
}

/** An evidence envelope as `EvidenceState.asMessage()` renders it, covering the messages before `cursor`. */
function evidence(cursor: number, quoted: number[], more = ""): AIMessage {
  const entries = quoted.map((index) => ({ role: "user", messageId: `h${index / 2}`, index, excerpt: `Request ${index / 2}: keep rent under 900.${more}`, truncated: true }));
  return new AIMessage({ id: `contextview-evidence-${cursor}`, content: JSON.stringify({ contextview_evidence: { trust: "untrusted historical evidence", cursor, omitted: 0, constraints: entries, decisions: [], openWork: [], recentContext: [] } }) });
}

const shown = (view: { messages: BaseMessage[] }) => view.messages.find((m) => typeof m.content === "string" && m.content.includes("contextview_evidence"))?.content;

// These views show all the evidence that fits (evidenceShare 1): what they check is which
// evidence is held, byte for byte; the last test holds it within the default share. Recall
// is off: the cuts they reach are those of the older turns alone.
describe("the context manager holds the evidence it showed", () => {
  it("shows the earlier evidence byte for byte while it covers everything the view leaves out, then the fresh one", async () => {
    const manager = createContextManager({ store: new InMemoryContextStore(), budget: BUDGET, evidenceShare: 1, recallBudget: 0 });
    const all = turns(40);
    const request = (n: number, ev: AIMessage) => manager.build({ messages: [...all.slice(0, 2 * n), new HumanMessage({ id: `q${n}`, content: "Next?" })], key, evidence: ev });

    const first = await request(10, evidence(20, [2, 4]));
    expect(shown(first)).toBe(evidence(20, [2, 4]).content);
    // The store has newer evidence, but the view still shows everything after message 20: the old one holds.
    const second = await request(11, evidence(22, [2, 4, 20]));
    expect(second.report.cut).toBeLessThanOrEqual(20);
    expect(shown(second)).toBe(evidence(20, [2, 4]).content);
    // Far later the view leaves out messages past 20: the fresh evidence replaces it.
    const later = await request(30, evidence(60, [2, 4, 20, 40]));
    expect(later.report.cut).toBeGreaterThan(20);
    expect(shown(later)).toBe(evidence(60, [2, 4, 20, 40]).content);
  });

  it("does not hold evidence that quotes another message at the same position (a fork or an edit)", async () => {
    const manager = createContextManager({ store: new InMemoryContextStore(), budget: BUDGET, evidenceShare: 1, recallBudget: 0 });
    const all = turns(12);
    await manager.build({ messages: [...all.slice(0, 20), new HumanMessage({ id: "q10", content: "Next?" })], key, evidence: evidence(20, [2, 4]) });
    const forked = all.slice(0, 22).map((m) => (m.id === "h1" ? new HumanMessage({ id: "h1-edited", content: "Edited request." }) : m));
    const view = await manager.build({ messages: [...forked, new HumanMessage({ id: "q11", content: "Next?" })], key, evidence: evidence(22, [4, 20]) });
    // The fresh evidence, less its excerpt of message 20, which the view shows itself.
    expect(view.report.cut).toBeLessThanOrEqual(20);
    expect(shown(view)).toBe(evidence(22, [4]).content);
  });

  // The opening request (message 0) is pinned in every view: evidence never quotes it either.
  it("never repeats what the view shows: excerpts of kept messages leave the evidence, and their room goes to older turns", async () => {
    const manager = createContextManager({ store: new InMemoryContextStore(), budget: BUDGET, evidenceShare: 1, recallBudget: 0 });
    const all = turns(30);
    const quoted = [0, 2, 4, 40, 44, 48, 50, 52, 54, 56, 58];
    const view = await manager.build({ messages: [...all.slice(0, 60), new HumanMessage({ id: "q30", content: "Next?" })], key, evidence: evidence(60, quoted) });
    const cut = view.report.cut;
    expect(cut).toBeGreaterThan(2);
    expect(cut).toBeLessThan(58);
    // Every quoted message is in the view or in the evidence, never both.
    const inView = new Set(view.messages.map((m) => m.id));
    const envelope = JSON.parse(String(shown(view))).contextview_evidence as { constraints: { messageId: string; index: number }[] };
    for (const entry of envelope.constraints) expect(inView.has(entry.messageId)).toBe(false);
    for (const index of quoted) expect(inView.has(`h${index / 2}`) || envelope.constraints.some((e) => e.index === index)).toBe(true);
    expect(envelope.constraints.map((e) => e.index)).toEqual(quoted.filter((index) => index > 0 && index < cut));
  });

  it("holds it within its share too: the same excerpts, byte for byte, while it holds; the oldest of the largest bucket left out and counted", async () => {
    const manager = createContextManager({ store: new InMemoryContextStore(), budget: BUDGET, recallBudget: 0 });
    const all = turns(40);
    const request = (n: number, ev: AIMessage) => manager.build({ messages: [...all.slice(0, 2 * n), new HumanMessage({ id: `q${n}`, content: "Next?" })], key, evidence: ev });
    // Excerpts of the messages before the view's cut, each about 60 tokens: more than a tenth of the limit together.
    const more = " more words".repeat(15);
    const first = await request(10, evidence(20, [2, 4, 6, 8], more));
    const envelope = (view: { messages: BaseMessage[] }) => JSON.parse(String(shown(view))).contextview_evidence as { omitted: number; constraints: { index: number }[] };
    const kept = envelope(first);
    // Within a tenth of the 2,000-token limit: the newest excerpts stay, the oldest leave, each counted.
    expect(first.report.history.evidenceOmitted).toBeGreaterThan(0);
    expect(kept.omitted).toBe(first.report.history.evidenceOmitted);
    expect(first.report.cut).toBeGreaterThan(8);
    expect(kept.constraints.map((e) => e.index)).toEqual([2, 4, 6, 8].slice(first.report.history.evidenceOmitted));
    expect(createEstimator().estimateMessage(first.messages.find((m) => String(m.content).includes("contextview_evidence")) as BaseMessage)).toBeLessThanOrEqual(200);
    // Newer evidence in the store, while the held one covers what the view leaves out: the same bytes.
    const second = await request(11, evidence(22, [2, 4, 6, 8, 20], more));
    expect(second.report.cut).toBeLessThanOrEqual(20);
    expect(shown(second)).toBe(shown(first));
  });
});
