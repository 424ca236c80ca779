import { createContextManager, InMemoryContextStore, type ManagedReport } from "@contextview/core";
import { rebuildView, viewRecordOf } from "@contextview/core/internal";
import type { StoredView } from "@contextview/core/store";
import { searchConversation } from "@contextview/test-support";
import { AIMessage } from "@langchain/core/messages";
import { callDetail } from "../src/page/call-detail";

// Issue 28, item 8: the inspector's "What the view did" uses the report's vocabulary
// (docs/observability.md): dropped messages were read; the never-read ones are unread.

const key = { userId: "u1", conversationId: "t1" };

async function recordedCall(evidenceShare?: number): Promise<{ stored: StoredView; messages: ReturnType<typeof searchConversation> }> {
  const store = new InMemoryContextStore();
  const manager = createContextManager({ budget: { promptBudget: 3000 }, store, ...(evidenceShare === undefined ? {} : { evidenceShare }) });
  const messages = searchConversation(40);
  const evidence = (await store.update(key.userId, key.conversationId, messages)).asMessage();
  const request = { messages, key, evidence };
  const view = await manager.build(request);
  await store.recordView(key, viewRecordOf(request, view, { source: "node" }));
  const stored = (await store.listViews(key))[0];
  if (!stored) throw new Error("no record");
  return { stored, messages };
}

/** The facts of the detail panel, as label → value. */
function facts(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of html.matchAll(/<dt>([^<]+)<\/dt><dd>([^<]+)<\/dd>/g)) out[match[1] as string] = match[2] as string;
  return out;
}

describe("the inspector's counts of a call", () => {
  it("shows the checkpoint's messages as summarized, read (kept or dropped) and unread, and the history slot as evidence", async () => {
    const { stored, messages } = await recordedCall();
    const rebuilt = rebuildView(stored, messages);
    expect(rebuilt.status).toBe("match");
    const html = callDetail({ record: stored.record, rebuilt, checkpointId: null, usage: null, summaryChanged: false, evidenceChanged: false }).toString();
    const m = stored.record.report.messages;
    expect(m.unread).toBeGreaterThan(100);
    expect(facts(html)).toMatchObject({
      "Messages in the checkpoint": String(messages.length),
      "Messages read": String(m.read),
      "Messages dropped": String(m.dropped),
      "Messages unread": String(m.unread),
      History: "evidence",
    });
    expect(Number(facts(html)["Messages dropped"])).toBeLessThan(m.unread);
    // The current turn by form, and the recall stage's outcome (an agent's tool turns: switched off).
    const t = stored.record.report.currentTurn;
    expect(facts(html)["Current turn: exchanges kept / compacted / cleared / excerpted / summarized"]).toBe([t.kept, t.compacted, t.cleared, t.excerpted, t.summarized].join(" / "));
    // The form chosen, in words (a search turn that fits whole here).
    expect(t.form).toBe("whole");
    expect(facts(html)["Current turn shown"]).toBe("whole");
    // In words, never the report's code (issue 49: "none: later-call").
    const words: Record<string, string> = {
      off: "none: recall is off (recallBudget 0)",
      "later-call": "none: after tool turns a brief comes on a turn's first call only",
      "no-match": "none: nothing outside the view matches the request",
      "nothing-left-out": "none: the view shows the whole conversation",
      "all-in-view": "none: every word of the request is already in the view",
      "no-query": "none: the request has no word to search for",
      "no-room": "none: no room was left for it",
    };
    const outcome = stored.record.report.recall.outcome;
    expect(facts(html)["Recalled messages"]).toBe(words[outcome]);
    expect(outcome).not.toBe("recalled");
    expect(facts(html)["Compaction"]).not.toMatch(/^(none|micro|summary|drop|overflow-recovery)$/);
    expect(html).toMatch(new RegExp(`older messages left out of this view: (${m.dropped} dropped \\(read, ${stored.record.report.turns.dropped} turns?\\), )?${m.unread} unread`));
  });

  it("shows a record made before the vocabulary changed in its own counts, or exactly when the rebuild verifies it", async () => {
    const { stored, messages } = await recordedCall();
    const { inCheckpoint: _c, summarized: _s, providerCompacted: _p, read, ...counts } = stored.record.report.messages;
    const { history, ...report } = stored.record.report;
    // Such a record counted the messages given (`in`) and held `summary` where `history` is now.
    const given = read + counts.unread;
    const legacy = { ...report, summary: { given: history.given, included: history.included }, messages: { ...counts, in: given, dropped: given - counts.kept } };
    const old = { ...stored, record: { ...stored.record, report: legacy as unknown as ManagedReport } };
    const verified = facts(callDetail({ record: old.record, rebuilt: rebuildView(old, messages), checkpointId: null, usage: null, summaryChanged: false, evidenceChanged: false }).toString());
    expect(verified).toMatchObject({ "Messages dropped": String(stored.record.report.messages.dropped), History: "evidence" });
    const unverified = facts(callDetail({ record: old.record, rebuilt: rebuildView(old, null), checkpointId: null, usage: null, summaryChanged: false, evidenceChanged: false }).toString());
    expect(unverified).toMatchObject({ "Messages left out": String(given - counts.kept), History: "summary or evidence, shown (recorded before the two were told apart)" });
    expect(unverified["Messages dropped"]).toBeUndefined();
    // A record made before the long-turn and recall stages has neither fact.
    const { currentTurn: _t, recall: _rc, ...older } = report;
    const before = facts(callDetail({ record: { ...stored.record, report: older as unknown as ManagedReport }, rebuilt: rebuildView(old, null), checkpointId: null, usage: null, summaryChanged: false, evidenceChanged: false }).toString());
    expect(before["Recalled messages"]).toBeUndefined();
    expect(before["Current turn: exchanges kept / compacted / cleared / excerpted / summarized"]).toBeUndefined();
    expect(before["Messages read"]).toBe(String(stored.record.report.messages.read));
  });

  it("says why the evidence was left out when not one excerpt fits its share", async () => {
    const { stored, messages } = await recordedCall(0);
    expect(stored.record.report.history).toMatchObject({ given: true, included: false, reason: "evidence-share" });
    const html = callDetail({ record: stored.record, rebuilt: rebuildView(stored, messages), checkpointId: null, usage: null, summaryChanged: false, evidenceChanged: false }).toString();
    expect(facts(html).History).toBe("left out: no evidence excerpt fits evidenceShare");
  });
});

describe("the inspector's counts of a call after a provider compaction", () => {
  it("says how many messages the provider's compaction stands for, and says nothing of it without one", async () => {
    const messages = searchConversation(6);
    // The fourth message becomes an assistant message that holds an Anthropic compaction block.
    const at = messages.findIndex((m, i) => i > 2 && m.type === "ai" && ((m as AIMessage).tool_calls ?? []).length === 0);
    const compacted = [...messages.slice(0, at), new AIMessage({ id: "cmp", content: [{ type: "compaction", content: "So far: searches." }, { type: "text", text: "Continuing." }] as never }), ...messages.slice(at + 1)];
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget: { promptBudget: 3000 }, store });
    const request = { messages: compacted, key };
    await store.recordView(key, viewRecordOf(request, await manager.build(request), { source: "node" }));
    const stored = (await store.listViews(key))[0] as StoredView;
    const html = callDetail({ record: stored.record, rebuilt: rebuildView(stored, compacted), checkpointId: null, usage: null, summaryChanged: false, evidenceChanged: false }).toString();
    expect(facts(html)["Messages compacted by the provider"]).toBe(String(at - (compacted[0]?.type === "system" ? 1 : 0)));
    const { stored: plain, messages: plainMessages } = await recordedCall();
    const without = callDetail({ record: plain.record, rebuilt: rebuildView(plain, plainMessages), checkpointId: null, usage: null, summaryChanged: false, evidenceChanged: false }).toString();
    expect(facts(without)["Messages compacted by the provider"]).toBeUndefined();
  });
});
