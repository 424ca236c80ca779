// One summarizer, many callers (issue 24, item 8): concurrent builds of one conversation
// share one attempt, and a summarizer down for every conversation is skipped everywhere.
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, createEstimator, InMemoryContextStore, type Summarizer } from "@contextview/core";
import { isSummaryMessage } from "../../src/summarize/summary-message.js";
import { budget, longConversation } from "./finance-turns";

const estimator = createEstimator();



const messages = longConversation(80);
const key = { userId: "u1", conversationId: "t1" };

describe("concurrent builds of one conversation", () => {
  /** A summarizer that answers after a few milliseconds, as a model would, and counts its calls. */
  function slowSummarizer(answer = (n: number) => `the shared summary, call ${n}`) {
    let calls = 0;
    const summarizer: Summarizer = async () => {
      const n = ++calls;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return answer(n);
    };
    return { summarizer, calls: () => calls };
  }

  /** The summarizer calls of one build alone (a long prefix goes in several chunks). */
  let aloneCalls = 0;
  beforeAll(async () => {
    const alone = slowSummarizer();
    await createContextManager({ budget, summarizer: alone.summarizer }).build({ messages, key });
    aloneCalls = alone.calls();
    expect(aloneCalls).toBeGreaterThan(1);
  });

  it("8 builds make the summarizer calls of one, all within budget with the same summary", async () => {
    const shared = slowSummarizer();
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, summarizer: shared.summarizer, store });
    const views = await Promise.all(Array.from({ length: 8 }, () => manager.build({ messages, key })));
    expect(shared.calls()).toBe(aloneCalls);
    const summaries = new Set<string>();
    for (const view of views) {
      expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
      expect(view.report.compaction.kind).toBe("summary");
      const summary = view.messages.find((m) => isSummaryMessage(m));
      expect(summary).toBeDefined();
      summaries.add(JSON.stringify(summary?.content));
    }
    expect(summaries.size).toBe(1);
    // The calls are reported once, by one view; the stored state counts no failure.
    expect(views.reduce((sum, v) => sum + v.report.compaction.summarizerCalls, 0)).toBe(shared.calls());
    expect((await store.getCompaction(key))?.failures).toBe(0);
  });

  it("a shared failure is counted once, not once per waiting build", async () => {
    let calls = 0;
    const store = new InMemoryContextStore();
    const summarizer: Summarizer = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      throw new Error("down");
    };
    const manager = createContextManager({ budget, summarizer, store });
    const views = await Promise.all(Array.from({ length: 8 }, () => manager.build({ messages, key })));
    expect(calls).toBe(1);
    for (const view of views) {
      expect(view.report.compaction.summarizerFailure).toBe("error");
      expect(view.report.compaction.consecutiveFailures).toBe(1);
    }
    expect((await store.getCompaction(key))?.failures).toBe(1);
  });

  it("one caller's abort does not cancel the attempt the others wait for", async () => {
    const { summarizer, calls } = slowSummarizer();
    const manager = createContextManager({ budget, summarizer });
    const controller = new AbortController();
    const first = manager.build({ messages, key, signal: controller.signal });
    const others = Array.from({ length: 3 }, () => manager.build({ messages, key, signal: new AbortController().signal }));
    setTimeout(() => controller.abort(new Error("client went away")), 5);
    const aborted = await first;
    expect(aborted.report.compaction.summarizerFailure).toBe("aborted");
    for (const view of await Promise.all(others)) {
      expect(view.report.compaction.kind).toBe("summary");
      expect(view.report.compaction.summarizerFailure).toBeUndefined();
    }
    expect(calls()).toBe(aloneCalls);
  });

  it("also with a summarizer that answers at once", async () => {
    let calls = 0;
    const manager = createContextManager({ budget, summarizer: async () => `summary ${++calls}` });
    const views = await Promise.all(Array.from({ length: 8 }, () => manager.build({ messages, key })));
    expect(calls).toBe(aloneCalls);
    expect(new Set(views.map((v) => JSON.stringify(v.messages.find((m) => isSummaryMessage(m))?.content))).size).toBe(1);
  });

  it("builds of copies of the same checkpoint (other objects, same messages) share it too", async () => {
    const { summarizer, calls } = slowSummarizer();
    const manager = createContextManager({ budget, summarizer });
    const copy = () => messages.map((m) => new (m.constructor as new (fields: object) => BaseMessage)({ ...m }));
    const views = await Promise.all(Array.from({ length: 4 }, () => manager.build({ messages: copy(), key })));
    expect(calls()).toBe(aloneCalls);
    for (const view of views) expect(view.report.compaction.kind).toBe("summary");
  });

  it("builds of a different prefix (an edited or forked checkpoint) make their own attempt", async () => {
    const { summarizer, calls } = slowSummarizer();
    const manager = createContextManager({ budget, summarizer });
    const edited = [...messages];
    edited[3] = new HumanMessage({ id: "edited", content: "an edited old message" });
    const [a, b] = await Promise.all([manager.build({ messages, key }), manager.build({ messages: edited, key })]);
    expect(calls()).toBe(2 * aloneCalls);
    expect(a.report.compaction.summarizerCalls + b.report.compaction.summarizerCalls).toBe(2 * aloneCalls);
  });

  it("writes back once for a shared summary", async () => {
    const writeBack = jest.fn();
    const manager = createContextManager({ budget, summarizer: slowSummarizer().summarizer, writeBack });
    await Promise.all(Array.from({ length: 4 }, () => manager.build({ messages, key })));
    expect(writeBack).toHaveBeenCalledTimes(1);
  });

  it("the attempt is aborted once every caller waiting for it aborted", async () => {
    const seen: AbortSignal[] = [];
    const summarizer: Summarizer = (_t, context) => {
      seen.push(context.signal);
      return new Promise((_resolve, reject) => context.signal.addEventListener("abort", () => reject(new Error("aborted")), { once: true }));
    };
    const manager = createContextManager({ budget, summarizer, summarizerTimeoutMs: 10_000 });
    const controllers = [new AbortController(), new AbortController()];
    const builds = controllers.map((c) => manager.build({ messages, key, signal: c.signal }));
    await new Promise((resolve) => setTimeout(resolve, 5));
    controllers[0]?.abort();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(seen.every((s) => !s.aborted)).toBe(true);
    controllers[1]?.abort();
    const views = await Promise.all(builds);
    expect(seen.length).toBe(1);
    expect(seen[0]?.aborted).toBe(true);
    for (const view of views) expect(view.report.compaction.summarizerFailure).toBe("aborted");
  });
});

describe("a summarizer down for every conversation", () => {
  it("is skipped everywhere after maxSummarizerFailures failures in total, and tried again after the cool-down", async () => {
    let calls = 0;
    let clock = 1_000;
    const manager = createContextManager({
      budget,
      summarizer: async () => {
        calls++;
        throw new Error("down");
      },
      summarizerCooldownMs: 60_000,
      now: () => clock,
    });
    const conversations = Array.from({ length: 10 }, (_, i) => ({ userId: "u1", conversationId: `c${i}` }));
    const failures: (string | undefined)[] = [];
    for (const conversation of conversations) {
      const view = await manager.build({ messages, key: conversation });
      failures.push(view.report.compaction.summarizerFailure);
      expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
    }
    // maxSummarizerFailures defaults to 3.
    expect(calls).toBe(3);
    expect(failures).toEqual(["error", "error", "error", ...Array(7).fill("cooldown")]);
    clock += 60_001;
    const retried = await manager.build({ messages, key: conversations[9] as { userId: string; conversationId: string } });
    expect(calls).toBe(4);
    expect(retried.report.compaction.summarizerFailure).toBe("error");
    // Still down: the next failure opens the breaker again at once.
    expect((await manager.build({ messages, key: conversations[8] as { userId: string; conversationId: string } })).report.compaction.summarizerFailure).toBe("cooldown");
    expect(calls).toBe(4);
  });

  it("a success anywhere resets the count", async () => {
    let failing = true;
    const manager = createContextManager({
      budget,
      summarizer: async () => {
        if (failing) throw new Error("flaky");
        return "a summary at last";
      },
      now: () => 1_000,
    });
    const seen: (string | undefined)[] = [];
    for (let i = 0; i < 9; i++) {
      // Two failures, then a success, in turn: never three failures in a row.
      failing = i % 3 !== 2;
      seen.push((await manager.build({ messages, key: { userId: "u1", conversationId: `c${i}` } })).report.compaction.summarizerFailure);
    }
    expect(seen).toEqual(["error", "error", undefined, "error", "error", undefined, "error", "error", undefined]);
  });
});
