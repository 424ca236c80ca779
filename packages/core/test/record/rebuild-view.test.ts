import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { EvidenceState, type StoredView } from "@contextview/core/store";
import { InMemoryContextStore, createContextManager, pinMessage, type Summarizer } from "@contextview/core";
import { rebuildView, viewRecordOf } from "@contextview/core/internal";
import { conversation, deepFreeze, type TurnSpec } from "@contextview/test-support";

const key = { userId: "u1", conversationId: "t1" };
const search = tool(async () => "[]", { name: "search_transactions", description: "Search the user's transactions.", schema: z.object({ query: z.string(), limit: z.number().optional() }) });

function turnSpec(i: number): TurnSpec {
  return {
    text: `Question ${i}: how is my budget for item-${i}? ${"context ".repeat(15)}`,
    calls: i % 3 === 0 ? [{ parallel: 2, resultSize: 4000 }] : i % 3 === 1 ? [{ parallel: 1, resultSize: 600 }] : [],
    answer: `Answer ${i}: item-${i} is fine. ${"detail ".repeat(25)}`,
  };
}

/** Where an agent calls the model: after each user request and after each block of tool results. */
function modelCallPoints(all: readonly BaseMessage[]): number[] {
  const points: number[] = [];
  all.forEach((message, i) => {
    if (message.type === "human" || (message.type === "tool" && all[i + 1]?.type !== "tool")) points.push(i + 1);
  });
  return points;
}

const summarizer: Summarizer = async (transcript, { previousSummary }) => `Summary (${transcript.length} chars; previous ${previousSummary ? "kept" : "none"}).`;

/** Runs a long thread through a manager + store, recording each call as the integrations do. */
async function recordThread(turns: number) {
  const all = deepFreeze(conversation(Array.from({ length: turns }, (_, i) => turnSpec(i)), "You are a finance assistant."));
  const store = new InMemoryContextStore({ maxViewRecords: 1000 });
  const manager = createContextManager({ budget: { promptBudget: 5000 }, summarizer, store, keepRecentToolResults: 2, clearStep: 4 });
  const steps: BaseMessage[][] = [];
  for (const end of modelCallPoints(all)) {
    const messages = all.slice(0, end);
    const evidence = (await store.update(key.userId, key.conversationId, messages)).asMessage();
    const request = { messages, key, evidence, tools: [search], memories: ["Prefers EUR.", "Budget: 400 a month for food."], systemPrompt: new SystemMessage("Quote ids exactly.") };
    const view = await manager.build(request);
    await store.recordView(key, viewRecordOf(request, view, { source: "test" }));
    steps.push(messages);
  }
  return { store, steps, views: await store.listViews(key) };
}

describe("rebuildView over a long generated thread", () => {
  let thread: Awaited<ReturnType<typeof recordThread>>;
  beforeAll(async () => {
    thread = await recordThread(40);
  });

  it("rebuilds every recorded view with an equal report, through tool calls, summaries and compaction", () => {
    const { views, steps } = thread;
    expect(views.map((v) => v.record.sequence)).toEqual(steps.map((_, i) => i + 1));
    const kinds = new Set(views.map((v) => v.record.report.compaction.kind));
    expect(kinds.has("summary")).toBe(true);
    expect(views.some((v) => v.record.report.toolResults.cleared > 0 || v.record.report.toolResults.compacted > 0)).toBe(true);
    expect(views.some((v) => v.record.messages.offset > 0)).toBe(true);
    for (const stored of views) {
      const rebuilt = rebuildView(stored, steps[stored.record.sequence - 1] ?? null);
      expect({ sequence: stored.record.sequence, status: rebuilt.status, problems: rebuilt.problems }).toEqual({ sequence: stored.record.sequence, status: "match", problems: [] });
      expect(rebuilt.view?.report.tokens.total).toBe(stored.record.report.tokens.total);
    }
  });

  it("rebuilds a view recorded before the report's vocabulary changed (issue 28): compared in the counts it recorded", () => {
    const { views, steps } = thread;
    const legacy = views.filter((v) => v.record.report.messages.unread > 0 || v.record.report.messages.summarized > 0);
    expect(legacy.length).toBeGreaterThan(0);
    for (const stored of legacy) {
      const { inCheckpoint: _c, summarized: _s, providerCompacted: _p, read, ...counts } = stored.record.report.messages;
      const { history, ...report } = stored.record.report;
      // Then `in` counted every message given, `dropped` was every message given and not shown, and `summary` held the slot's flags.
      const given = read + counts.unread;
      const summary = { given: history.given, included: history.included, ...(history.reason === undefined ? {} : { reason: history.reason }) };
      const old = { ...report, summary, messages: { ...counts, in: given, dropped: given - counts.kept } } as unknown as StoredView["record"]["report"];
      const rebuilt = rebuildView({ ...stored, record: { ...stored.record, report: old } }, steps[stored.record.sequence - 1] ?? null);
      expect({ sequence: stored.record.sequence, problems: rebuilt.problems }).toEqual({ sequence: stored.record.sequence, problems: [] });
      // An old record whose counts differ is still a mismatch.
      const wrong = { ...old, messages: { ...old.messages, dropped: old.messages.dropped + 1 } };
      expect(rebuildView({ ...stored, record: { ...stored.record, report: wrong } }, steps[stored.record.sequence - 1] ?? null).status).toBe("mismatch");
    }
  });

  it("rebuilds a view recorded by 0.x after issue 28, with the `messages.in` and `summary` that 1.0 no longer reports", () => {
    const { views, steps } = thread;
    for (const stored of views) {
      const { report } = stored.record;
      const summary = { given: report.history.given, included: report.history.included, ...(report.history.reason === undefined ? {} : { reason: report.history.reason }) };
      const old = { ...report, summary, messages: { ...report.messages, in: report.messages.read + report.messages.unread } };
      const rebuilt = rebuildView({ ...stored, record: { ...stored.record, report: old } }, steps[stored.record.sequence - 1] ?? null);
      expect({ sequence: stored.record.sequence, problems: rebuilt.problems }).toEqual({ sequence: stored.record.sequence, problems: [] });
      const wrong = { ...old, summary: { ...summary, included: !summary.included } };
      expect(rebuildView({ ...stored, record: { ...stored.record, report: wrong } }, steps[stored.record.sequence - 1] ?? null).problems).toEqual([
        `summary.included: recorded ${!summary.included}, rebuilt ${summary.included}`,
      ]);
    }
  });

  it("keeps no second copy of an excerpt the checkpoint holds: the excerpts of messages the view shows are made again from it", () => {
    const { views, steps } = thread;
    const beside = views.filter((v) => typeof v.record.inputs.evidenceBeside === "string");
    expect(beside.length).toBeGreaterThan(0);
    for (const stored of beside) {
      const { evidence, evidenceBeside } = stored.record.inputs;
      // Only the part beside the shown messages is stored; the whole evidence is named by its hash.
      expect(stored.inputs[evidence as string]).toBeUndefined();
      const kept = JSON.parse(stored.inputs[evidenceBeside as string] as string) as { content: string; aside: { bucket: string; at: number; index: number }[] };
      expect(kept.aside.length).toBeGreaterThan(0);
      const rebuilt = rebuildView(stored, steps[stored.record.sequence - 1] ?? null);
      expect({ sequence: stored.record.sequence, status: rebuilt.status, problems: rebuilt.problems }).toEqual({ sequence: stored.record.sequence, status: "match", problems: [] });
      const whole = (JSON.parse(rebuilt.evidenceText as string) as { contextview_evidence: Record<string, { excerpt: string; index: number }[]> }).contextview_evidence;
      for (const { bucket, at, index } of kept.aside) {
        const entry = whole[bucket]?.[at];
        expect(entry?.index).toBe(index);
        // The excerpt is the quoted message's text, which no stored input repeats.
        const words = String(entry?.excerpt).slice(0, 40);
        expect(String((steps[stored.record.sequence - 1] as BaseMessage[])[index]?.content)).toContain(words);
        expect(Object.values(stored.inputs).some((text) => text.includes(words))).toBe(false);
      }
    }
    // Without the checkpoint the part kept is what there is to show.
    const first = beside[0] as StoredView;
    // A stored text that lost where its excerpts go is reported, never rebuilt with less evidence.
    const hash = first.record.inputs.evidenceBeside as string;
    const { aside: _aside, ...lost } = JSON.parse(first.inputs[hash] as string) as Record<string, unknown>;
    const broken = rebuildView({ ...first, inputs: { ...first.inputs, [hash]: JSON.stringify(lost) } }, steps[first.record.sequence - 1] ?? null);
    expect(broken.status).toBe("unverifiable");
    expect(broken.problems).toContain("the evidence of this call could not be made again from the checkpoint");
    const alone = rebuildView(first, null);
    expect(alone.status).toBe("unverifiable");
    expect(alone.evidenceText).not.toBeNull();
  });

  it("rebuilds views whose evidence was cut to its share, giving the history message as the view showed it", () => {
    const { views, steps } = thread;
    const cut = views.filter((v) => v.record.report.history.evidenceOmitted > 0 && v.record.report.history.included);
    expect(cut.length).toBeGreaterThan(0);
    for (const stored of cut) {
      const rebuilt = rebuildView(stored, steps[stored.record.sequence - 1] ?? null);
      expect(rebuilt.status).toBe("match");
      const shown = rebuilt.view?.messages.map((m) => m.content) ?? [];
      expect(shown).toContain(rebuilt.historyMessage?.content);
    }
  });

  it("rebuilds a view recorded before evidence had a share as all the evidence that fits", () => {
    const { views, steps } = thread;
    // Views whose evidence this version cuts: recorded before, they showed all of it.
    const cut = views.filter((v) => v.record.report.history.evidenceOmitted > 0 && v.record.report.history.included).slice(0, 3);
    expect(cut.length).toBeGreaterThan(0);
    for (const stored of cut) {
      const messages = steps[stored.record.sequence - 1] ?? null;
      const { evidenceShare: _share, ...view } = stored.record.options.view;
      const allOfIt = rebuildView({ ...stored, record: { ...stored.record, options: { ...stored.record.options, view: { ...view, evidenceShare: 1 } } } }, messages).view;
      expect(allOfIt?.report.history.evidenceOmitted).toBe(0);
      // The record as that version wrote it: no evidenceShare among the options, no evidenceOmitted in the report.
      const { elapsedMs: _elapsed, history: { evidenceOmitted: _omitted, ...history }, ...report } = allOfIt?.report as NonNullable<typeof allOfIt>["report"];
      const old = { ...stored.record, options: { ...stored.record.options, view }, report: { ...stored.record.report, ...report, history } } as unknown as StoredView["record"];
      expect(rebuildView({ ...stored, record: old }, messages)).toMatchObject({ status: "match", problems: [] });
    }
  });

  it("keeps no message content in the record itself", () => {
    for (const { record } of thread.views) {
      const json = JSON.stringify(record);
      expect(json).not.toContain("item-");
      expect(json).not.toContain("Quote ids exactly");
      expect(json).not.toContain("Prefers EUR");
    }
  });

  it("says mismatch when the options changed in code", () => {
    const stored = thread.views.find((v) => v.record.report.toolResults.cleared > 0) as StoredView;
    const view = stored.record.options.view;
    const changed: StoredView = { ...stored, record: { ...stored.record, options: { ...stored.record.options, view: { ...view, keepRecentToolResults: view.keepRecentToolResults + 5 } } } };
    const rebuilt = rebuildView(changed, thread.steps[stored.record.sequence - 1] ?? null);
    expect(rebuilt.status).toBe("mismatch");
    expect(rebuilt.problems.some((p) => p.startsWith("toolResults.cleared: recorded"))).toBe(true);
  });

  it("says mismatch when a checkpoint message was edited", () => {
    const stored = thread.views.at(-1) as StoredView;
    const messages = [...(thread.steps.at(-1) as BaseMessage[])];
    const last = messages.length - 1;
    messages[last] = new HumanMessage({ id: messages[last]?.id as string, content: "edited request" });
    const rebuilt = rebuildView(stored, messages);
    expect(rebuilt.status).toBe("mismatch");
    expect(rebuilt.problems).toContain("the checkpoint messages differ from those the view was built from (the checkpoint was edited)");
  });

  it("says unverifiable, without guessing, when an input text or the checkpoint is gone", () => {
    const stored = thread.views.at(-1) as StoredView;
    expect(rebuildView({ record: stored.record, inputs: {} }, thread.steps.at(-1) ?? null)).toMatchObject({ status: "unverifiable", view: null });
    expect(rebuildView(stored, null).problems).toEqual(["the checkpoint of this call was not found"]);
    const custom: StoredView = { ...stored, record: { ...stored.record, options: { ...stored.record.options, estimator: "custom" } } };
    expect(rebuildView(custom, thread.steps.at(-1) ?? null).status).toBe("unverifiable");
  });
});

describe("view records in InMemoryContextStore", () => {
  const entry = async (n: number, extra = "") => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ store });
    const messages = [new HumanMessage({ id: `h${n}`, content: `hello ${n}` })];
    const request = { messages, key, systemPrompt: `system ${extra}`, evidence: new AIMessage({ content: "evidence", id: "e" }) };
    return viewRecordOf(request, await manager.build(request), { source: "test", now: n });
  };

  it("numbers records, keeps the newest maxViewRecords, drops unreferenced inputs, and deletes them with the conversation", async () => {
    const store = new InMemoryContextStore({ maxViewRecords: 3 });
    for (let i = 1; i <= 5; i++) await store.recordView(key, await entry(i, i === 1 ? "first" : ""));
    const views = await store.listViews(key);
    expect(views.map((v) => v.record.sequence)).toEqual([3, 4, 5]);
    expect(Object.values(views[0]?.inputs ?? {})).toContain("system ");
    expect((await store.listViews(key, { limit: 1 })).map((v) => v.record.sequence)).toEqual([5]);
    const first = (await entry(1, "first")).record.inputs.systemPrompt as string;
    expect(views.some((v) => first in v.inputs)).toBe(false);
    await store.deleteConversation(key.userId, key.conversationId);
    expect(await store.listViews(key)).toEqual([]);
    expect((await store.recordView(key, await entry(6))).sequence).toBe(1);
  });

  it("rejects a malformed entry with a typed error naming the field, and stores nothing", async () => {
    const store = new InMemoryContextStore();
    const good = await entry(1);
    const bad = { ...good, record: { ...good.record, messages: { ...good.record.messages, count: -1 } } };
    await expect(store.recordView(key, bad)).rejects.toMatchObject({ code: "INVALID_OPTION", details: { field: "entry.record.messages.count" } });
    await expect(store.listViews(key, { limit: -2 })).rejects.toMatchObject({ code: "INVALID_OPTION" });
    expect(await store.listViews(key)).toEqual([]);
    expect(() => new InMemoryContextStore({ maxViewRecords: 1.5 })).toThrow("Expected `maxViewRecords` to be a non-negative integer (0 keeps none), got 1.5");
  });

  it("keeps evidence state independent of view records", async () => {
    const store = new InMemoryContextStore();
    await store.recordView(key, await entry(1));
    expect(await store.load(key.userId, key.conversationId)).toEqual(EvidenceState.empty());
  });
});

describe("rebuildView with pinned context, held evidence and a model profile", () => {
  it("rebuilds views whose summarized prefix holds the opening request and pins (predicate and field), and sees an edited pin", async () => {
    const turns = Array.from({ length: 24 }, (_, i) => turnSpec(i));
    const all = conversation(turns, "You are a finance assistant.").map((m, i) => (i === 6 && m.type === "human" ? pinMessage(m) : m));
    const frozen = deepFreeze(all);
    const store = new InMemoryContextStore({ maxViewRecords: 1000 });
    const pinnedName = (m: BaseMessage, index: number) => m.type === "human" && index % 11 === 3;
    const manager = createContextManager({ budget: { promptBudget: 5000 }, summarizer, store, keepRecentToolResults: 2, pin: pinnedName, profile: { imageInputs: false } });
    const steps: BaseMessage[][] = [];
    for (const end of modelCallPoints(frozen)) {
      const messages = frozen.slice(0, end);
      const evidence = (await store.update(key.userId, key.conversationId, messages)).asMessage();
      const request = { messages, key, evidence, tools: [search], systemPrompt: "Quote ids exactly." };
      await store.recordView(key, viewRecordOf(request, await manager.build(request), { source: "test" }));
      steps.push(messages);
    }
    const views = await store.listViews(key);
    expect(views.some((v) => v.record.messages.offset > 0 && v.record.report.pinned.openingRequest?.placement === "pinned")).toBe(true);
    expect(views.some((v) => v.record.report.pinned.messages.length > 0)).toBe(true);
    expect(views.every((v) => Array.isArray(v.record.messages.pins))).toBe(true);
    expect(views.every((v) => v.record.options.view.imageInputs === false)).toBe(true);
    for (const stored of views) {
      const rebuilt = rebuildView(stored, steps[stored.record.sequence - 1] ?? null);
      expect({ sequence: stored.record.sequence, status: rebuilt.status, problems: rebuilt.problems }).toEqual({ sequence: stored.record.sequence, status: "match", problems: [] });
    }
    // An edit to the opening request, which the view read from the summarized prefix, is seen.
    const stored = views.find((v) => v.record.messages.offset > 0 && v.record.report.pinned.openingRequest?.placement === "pinned") as StoredView;
    const messages = [...(steps[stored.record.sequence - 1] as BaseMessage[])];
    const opening = messages.findIndex((m) => m.type === "human");
    messages[opening] = new HumanMessage({ id: messages[opening]?.id as string, content: "An edited opening request." });
    expect(rebuildView(stored, messages).problems).toContain("the checkpoint messages differ from those the view was built from (the checkpoint was edited)");
  });
});
