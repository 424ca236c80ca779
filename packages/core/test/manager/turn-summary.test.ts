import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, InMemoryContextStore, type Summarizer } from "@contextview/core";
import { rebuildView, viewRecordOf } from "@contextview/core/internal";
import { TURN_SUMMARY_AHEAD } from "../../src/manager/turn-summary.js";

/** Exchange `i` of the loop: a search call and its ~300-token result. */
function exchange(i: number): BaseMessage[] {
  const id = `call-${i}`;
  const rows = Array.from({ length: 8 }, (_, r) => ({ id: `F${i}-${r}`, price: 100 + r, note: "window seat near the wing ".repeat(3) }));
  return [
    new AIMessage({ id: `ai-${i}`, content: "", tool_calls: [{ id, name: "search_flights", args: { leg: i, reservation_id: `RES-${i}` }, type: "tool_call" }] }),
    new ToolMessage({ id: `tool-${i}`, tool_call_id: id, name: "search_flights", content: JSON.stringify({ leg: i, rows }) }),
  ];
}

const opening = (): BaseMessage[] => [new SystemMessage("You are a booking agent."), new HumanMessage({ id: "req", content: "Find and book the cheapest of three flights." })];

/**
 * A summarizer that answers with the legs it read, recording each call's transcript and
 * signal; `answer` runs before it answers (a model's latency, a failure, an abort).
 */
function recordingSummarizer(answer: (signal: AbortSignal) => Promise<void> = async () => {}): Summarizer & { transcripts: string[]; signals: AbortSignal[] } {
  const transcripts: string[] = [];
  const signals: AbortSignal[] = [];
  const summarize: Summarizer = async (transcript, context) => {
    transcripts.push(transcript);
    signals.push(context.signal);
    await answer(context.signal);
    const legs = [...transcript.matchAll(/"leg":(\d+)/g)].map((m) => m[1]);
    return `${context.previousSummary ? `${context.previousSummary}\n` : ""}- searched legs ${[...new Set(legs)].join(", ")}`;
  };
  return Object.assign(summarize, { transcripts, signals });
}

const budget = { contextWindow: 32768, responseReserve: 4096, promptBudget: 3000 };
const key = { userId: "u-1", conversationId: "loop" };

describe("a long turn summarized by the manager", () => {
  it("summarizes the excerpted exchanges a few ahead, reuses the summary on the next calls of the loop, and stays within budget", async () => {
    const summarizer = recordingSummarizer();
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, summarizer, store });
    const messages = opening();
    const summarizedAt: number[] = [];
    for (let i = 0; i < 40; i++) {
      messages.push(...exchange(i));
      const before = summarizer.transcripts.length;
      const view = await manager.build({ messages: [...messages], key });
      expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
      if (summarizer.transcripts.length > before) summarizedAt.push(i);
      const { currentTurn } = view.report;
      expect(currentTurn.kept + currentTurn.compacted + currentTurn.cleared + currentTurn.excerpted + currentTurn.summarized).toBe(i + 1);
      if (currentTurn.summarized > 0) {
        const standIn = view.messages.find((m) => typeof m.content === "string" && m.content.startsWith("Summary of the earlier steps of this turn"));
        expect(standIn?.content).toContain("- searched legs 0");
      }
    }
    // Summaries came, and far fewer than calls: each one covers the next few steps too.
    expect(summarizedAt.length).toBeGreaterThan(0);
    expect(summarizedAt.length).toBeLessThanOrEqual(Math.ceil(40 / TURN_SUMMARY_AHEAD));
    // Each transcript reads only exchanges no summary covered yet: leg 0 once.
    expect(summarizer.transcripts.filter((t) => t.includes('"leg":0,')).length).toBe(1);

    // Another process with the same store finds it: the same view, no summarizer call.
    const again = createContextManager({ budget, summarizer, store });
    const calls = summarizer.transcripts.length;
    const first = await manager.build({ messages: [...messages], key });
    const second = await again.build({ messages: [...messages], key });
    expect(summarizer.transcripts.length).toBe(calls);
    expect(second.report.currentTurn.summarized).toBeGreaterThan(0);
    expect(second.messages).toEqual(first.messages);
  });

  it("a view shown with a turn summary is recorded with it and rebuilt equal", async () => {
    const summarizer = recordingSummarizer();
    const store = new InMemoryContextStore({ maxViewRecords: 100 });
    const manager = createContextManager({ budget, summarizer, store });
    const messages = opening();
    const steps: BaseMessage[][] = [];
    for (let i = 0; i < 20; i++) {
      messages.push(...exchange(i));
      const request = { messages: [...messages], key };
      const view = await manager.build(request);
      await store.recordView(key, viewRecordOf(request, view, { source: "test" }));
      steps.push(request.messages);
    }
    const views = await store.listViews(key);
    const summarized = views.filter((v) => v.record.report.currentTurn.summarized > 0);
    expect(summarized.length).toBeGreaterThan(0);
    expect(summarized.every((v) => typeof v.record.inputs.turnSummary === "string")).toBe(true);
    for (const stored of views) {
      const rebuilt = rebuildView(stored, steps[stored.record.sequence - 1] ?? null);
      expect({ sequence: stored.record.sequence, status: rebuilt.status, problems: rebuilt.problems }).toEqual({ sequence: stored.record.sequence, status: "match", problems: [] });
    }
  });

  it("does not carry a summary into the next turn, and a failing summarizer leaves the excerpt within budget", async () => {
    const summarizer = recordingSummarizer();
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, summarizer, store });
    const messages = opening();
    for (let i = 0; i < 25; i++) messages.push(...exchange(i));
    const long = await manager.build({ messages: [...messages], key });
    expect(long.report.currentTurn.summarized + long.report.currentTurn.excerpted).toBeGreaterThan(0);
    messages.push(new AIMessage({ id: "done", content: "Booked F3-0." }), new HumanMessage({ id: "next", content: "Now a hotel." }), ...exchange(100));
    const next = await manager.build({ messages: [...messages], key });
    expect(next.report.currentTurn.summarized).toBe(0);
    expect(next.messages.some((m) => typeof m.content === "string" && m.content.startsWith("Summary of the earlier steps of this turn"))).toBe(false);

    const failing = createContextManager({ budget, store: new InMemoryContextStore(), summarizer: async () => { throw new Error("model down"); } });
    const loop = opening();
    for (let i = 0; i < 25; i++) loop.push(...exchange(i));
    const view = await failing.build({ messages: loop, key });
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    expect(view.report.currentTurn.summarized).toBe(0);
    expect(view.report.currentTurn.excerpted).toBeGreaterThan(0);
    expect(view.report.compaction.summarizerFailure).toBeDefined();
  });
});

describe("concurrent builds of one long turn (single-flight, issue 25)", () => {
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const longTurn = () => {
    const messages = opening();
    for (let i = 0; i < 25; i++) messages.push(...exchange(i));
    return messages;
  };
  const isTurnSummary = (m: BaseMessage) => typeof m.content === "string" && m.content.startsWith("Summary of the earlier steps of this turn");

  /** The summarizer calls of one build alone. */
  let aloneCalls = 0;
  beforeAll(async () => {
    const alone = recordingSummarizer();
    const view = await createContextManager({ budget, summarizer: alone }).build({ messages: longTurn(), key });
    expect(view.report.currentTurn.summarized).toBeGreaterThan(0);
    aloneCalls = alone.transcripts.length;
    expect(aloneCalls).toBeGreaterThan(0);
  });

  it("3 builds make the summarizer calls of one and show the same summary", async () => {
    const summarizer = recordingSummarizer(() => sleep(20));
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, summarizer, store });
    const messages = longTurn();
    const views = await Promise.all(Array.from({ length: 3 }, () => manager.build({ messages: [...messages], key })));
    expect(summarizer.transcripts.length).toBe(aloneCalls);
    for (const view of views) {
      expect(view.report.currentTurn.summarized).toBeGreaterThan(0);
      expect(view.report.compaction.summarizerFailure).toBeUndefined();
      expect(view.messages).toEqual(views[0]?.messages);
    }
    expect(views.filter((v) => v.messages.some(isTurnSummary)).length).toBe(3);
    // The calls are reported once, by one view.
    expect(views.reduce((sum, v) => sum + v.report.compaction.summarizerCalls, 0)).toBe(aloneCalls);
    const state = await store.getCompaction(key);
    expect(state?.failures).toBe(0);
    expect(state?.turnSummary?.steps).toBe(views[0]?.report.currentTurn.summarized);
  });

  it("one caller's abort does not cancel the summary the other waits for", async () => {
    const controller = new AbortController();
    const summarizer = recordingSummarizer(async () => {
      setTimeout(() => controller.abort(new Error("client went away")), 5);
      await sleep(30);
    });
    const manager = createContextManager({ budget, summarizer });
    const messages = longTurn();
    const [left, stayed] = await Promise.all([manager.build({ messages, key, signal: controller.signal }), manager.build({ messages, key, signal: new AbortController().signal })]);
    expect(summarizer.transcripts.length).toBe(aloneCalls);
    expect(summarizer.signals.some((s) => s.aborted)).toBe(false);
    expect(left.report.compaction.summarizerFailure).toBe("aborted");
    expect(left.report.currentTurn.summarized).toBe(0);
    expect(left.report.currentTurn.excerpted).toBeGreaterThan(0);
    expect(stayed.report.compaction.summarizerFailure).toBeUndefined();
    expect(stayed.report.currentTurn.summarized).toBeGreaterThan(0);
  });

  it("the attempt is aborted once every caller waiting for it aborted", async () => {
    const controllers = [new AbortController(), new AbortController()];
    const summarizer = recordingSummarizer((signal) => new Promise<void>((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true })));
    const manager = createContextManager({ budget, summarizer, summarizerTimeoutMs: 10_000 });
    const messages = longTurn();
    const builds = controllers.map((c) => manager.build({ messages, key, signal: c.signal }));
    while (summarizer.signals.length === 0) await sleep(2);
    await sleep(5);
    controllers[0]?.abort();
    await sleep(5);
    expect(summarizer.signals.every((s) => !s.aborted)).toBe(true);
    controllers[1]?.abort();
    const views = await Promise.all(builds);
    expect(summarizer.signals.length).toBe(1);
    expect(summarizer.signals[0]?.aborted).toBe(true);
    for (const view of views) {
      expect(view.report.compaction.summarizerFailure).toBe("aborted");
      expect(view.report.currentTurn.excerpted).toBeGreaterThan(0);
    }
  });

  it("a shared failure leaves every view the excerpt, counted once, with no unhandled rejection", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const summarizer = recordingSummarizer(async () => {
        await sleep(10);
        throw new Error("model down");
      });
      const store = new InMemoryContextStore();
      const manager = createContextManager({ budget, summarizer, store });
      const messages = longTurn();
      const views = await Promise.all(Array.from({ length: 3 }, () => manager.build({ messages: [...messages], key })));
      expect(summarizer.transcripts.length).toBe(1);
      for (const view of views) {
        expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
        expect(view.report.currentTurn.summarized).toBe(0);
        expect(view.report.currentTurn.excerpted).toBeGreaterThan(0);
        expect(view.report.compaction.summarizerFailure).toBe("error");
        expect(view.report.compaction.consecutiveFailures).toBe(1);
      }
      expect((await store.getCompaction(key))?.failures).toBe(1);
      await sleep(10);
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });
});
