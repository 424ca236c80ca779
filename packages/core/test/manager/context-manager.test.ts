import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ContextOverflowError } from "@langchain/core/errors";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import {
  chatModelSummarizer,
  createContextManager,
  createEstimator,
  InMemoryContextStore,
  isContextOverflow,
  type CompactionEvent,
  type Summarizer,
} from "@contextview/core";
import { isSummaryMessage } from "../../src/summarize/summary-message.js";
import * as prefixHashModule from "../../src/summarize/prefix-hash";
import { conversation, deepFreeze } from "@contextview/test-support";
import { budget, turnSpec, upToRequest } from "./finance-turns";

const estimator = createEstimator();
const key = { userId: "u1", conversationId: "t1" };


/** A summarizer that records every transcript and returns a short summary. */
function recordingSummarizer() {
  const transcripts: string[] = [];
  const summarizer: Summarizer = async (transcript, context) => {
    transcripts.push(transcript);
    return `summary #${transcripts.length} (previous: ${context.previousSummary ? "yes" : "no"})`;
  };
  return { summarizer, transcripts };
}


describe("createContextManager: summarizing over 200 turns", () => {
  const all = deepFreeze(conversation(Array.from({ length: 200 }, (_, i) => turnSpec(i)), "You are a finance assistant."));

  it("stays within budget every turn, sees every message of what it replaces, and reuses its cache", async () => {
    const { summarizer, transcripts } = recordingSummarizer();
    const events: CompactionEvent[] = [];
    const manager = createContextManager({ budget, summarizer, store: new InMemoryContextStore(), onCompaction: (e) => events.push(e) });
    let summarized = 0;
    let calls = 0;
    let summaries = 0;
    for (let turn = 0; turn < 200; turn++) {
      const messages = upToRequest(all, turn);
      const view = await manager.build({ messages, key });
      calls += view.report.compaction.summarizerCalls;
      if (view.report.compaction.kind === "summary") summaries++;
      expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
      expect(view.messages.at(-1)?.content).toBe(messages.at(-1)?.content);
      expect(view.report.compaction.summarizedMessages).toBeGreaterThanOrEqual(summarized);
      summarized = view.report.compaction.summarizedMessages;
      if (summarized > 0) expect(view.messages.some((m) => isSummaryMessage(m))).toBe(true);
    }
    expect(summarized).toBeGreaterThan(all.length / 2);
    // Every user question and answer of the summarized prefix reached the summarizer.
    const seen = transcripts.join("\n");
    for (let i = 0; i < summarized; i++) {
      const m = all[i] as BaseMessage;
      if ((m.type === "human" || m.type === "ai") && typeof m.content === "string" && m.content) expect(seen).toContain(m.content.slice(0, 40));
    }
    // Cached: far fewer calls than turns, and later summaries fold the previous one.
    // (A long prefix reaches the summarizer in chunks of `summarizerInputTokens`: one summary, several calls.)
    expect(transcripts.length).toBeLessThan(60);
    expect(transcripts).toHaveLength(calls);
    expect(summaries).toBeGreaterThan(0);
    expect(events.filter((e) => e.kind === "summary")).toHaveLength(summaries);
  });

  it("reuses the stored summary with zero calls from a new manager on the same store", async () => {
    const store = new InMemoryContextStore();
    const first = recordingSummarizer();
    const messages = upToRequest(all, 60);
    await createContextManager({ budget, summarizer: first.summarizer, store }).build({ messages, key });
    expect(first.transcripts.length).toBeGreaterThan(0);
    const second = recordingSummarizer();
    const view = await createContextManager({ budget, summarizer: second.summarizer, store }).build({ messages, key });
    expect(second.transcripts).toHaveLength(0);
    expect(view.report.compaction.summaryCacheHit).toBe(true);
    expect(view.messages.some((m) => String(m.content).includes("summary #"))).toBe(true);
  });

  it("hashes a summarized prefix once per process while its message objects stay the same", async () => {
    const hashing = jest.spyOn(prefixHashModule, "summaryPrefixHash");
    const manager = createContextManager({ budget, summarizer: recordingSummarizer().summarizer, store: new InMemoryContextStore() });
    const messages = upToRequest(all, 60);
    await manager.build({ messages, key });
    const afterFirst = hashing.mock.calls.length;
    // The agent loop's next calls: the same turn with more messages appended.
    await manager.build({ messages: [...messages, new AIMessage("thinking")], key });
    const view = await manager.build({ messages: [...messages, new AIMessage("thinking"), new AIMessage("more")], key });
    expect(view.report.compaction.summaryCacheHit).toBe(true);
    expect(hashing.mock.calls.length).toBe(afterFirst);
    hashing.mockRestore();
  });

  it("re-summarizes when the summarized prefix changed, without an error", async () => {
    const store = new InMemoryContextStore();
    const { summarizer, transcripts } = recordingSummarizer();
    const manager = createContextManager({ budget, summarizer, store });
    await manager.build({ messages: upToRequest(all, 60), key });
    const calls = transcripts.length;
    const edited = [...upToRequest(all, 60)];
    edited[3] = new HumanMessage({ id: "edited", content: "an edited old message" });
    const view = await manager.build({ messages: edited, key });
    expect(view.report.compaction.summaryCacheHit).toBe(false);
    expect(transcripts.length).toBeGreaterThan(calls);
  });
});

describe("createContextManager: failing summarizers", () => {
  const messages = deepFreeze(upToRequest(conversation(Array.from({ length: 80 }, (_, i) => turnSpec(i))), 79));

  it.each<[string, Summarizer]>([
    ["throws", async () => {
      throw new Error("rate limited: SECRET-ERROR-TEXT");
    }],
    ["returns null", async () => null],
    ["returns empty text", async () => "   "],
    ["returns junk", async () => 42 as unknown as string],
    ["hangs", () => new Promise<string>(() => undefined)],
  ])("a summarizer that %s falls back to dropping the oldest and is counted", async (_, summarizer) => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, summarizer, store, summarizerTimeoutMs: 50 });
    const view = await manager.build({ messages, key });
    expect(view.report.compaction.kind).toBe("drop");
    expect(view.report.compaction.summarizerFailure).toBeDefined();
    expect(view.report.compaction.consecutiveFailures).toBe(1);
    expect(view.messages.some((m) => isSummaryMessage(m))).toBe(false);
    expect(JSON.stringify(view.messages)).not.toContain("SECRET-ERROR-TEXT");
    expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
    expect((await store.getCompaction(key))?.failures).toBe(1);
  });

  it("skips the summarizer for a cool-down after repeated failures", async () => {
    let calls = 0;
    let clock = 1_000;
    const manager = createContextManager({
      budget,
      summarizer: async () => {
        calls++;
        throw new Error("down");
      },
      maxSummarizerFailures: 2,
      summarizerCooldownMs: 10_000,
      now: () => clock,
    });
    await manager.build({ messages, key });
    await manager.build({ messages, key });
    expect(calls).toBe(2);
    const skipped = await manager.build({ messages, key });
    expect(calls).toBe(2);
    expect(skipped.report.compaction.summarizerFailure).toBe("cooldown");
    clock += 20_000;
    await manager.build({ messages, key });
    expect(calls).toBe(3);
  });

  it("treats a failing store as no cache and still builds the view", async () => {
    const errors: string[] = [];
    const broken = {
      getCompaction: async () => {
        throw new Error("disk I/O error");
      },
      putCompaction: async () => {
        throw new Error("disk I/O error");
      },
      deleteCompaction: async () => undefined,
    };
    const manager = createContextManager({ budget, summarizer: recordingSummarizer().summarizer, store: broken, onStoreError: (_e, op) => errors.push(op) });
    const view = await manager.build({ messages, key });
    expect(view.report.compaction.storeError).toBe(true);
    expect(errors).toEqual(["get", "put"]);
    expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
  });
});

describe("createContextManager: overflow recovery and calibration", () => {
  const messages = conversation(Array.from({ length: 30 }, (_, i) => turnSpec(i)));

  it("retries exactly once after ContextOverflowError, with a smaller view", async () => {
    const manager = createContextManager({ budget });
    const sizes: number[] = [];
    let failures = 1;
    const { result, recovered, view } = await manager.run({ messages, key }, async (view) => {
      sizes.push(estimator.estimateMessages(view));
      if (failures-- > 0) throw new ContextOverflowError("prompt is too long");
      return "ok";
    });
    expect(result).toBe("ok");
    expect(recovered).toBe(true);
    expect(sizes).toHaveLength(2);
    expect(sizes[1]).toBeLessThan(sizes[0] as number);
    expect(view.report.limit).toBeLessThan(4000);
  });

  it("surfaces a second overflow, and never retries other errors", async () => {
    const manager = createContextManager({ budget });
    let calls = 0;
    await expect(
      manager.run({ messages, key }, async () => {
        calls++;
        throw new ContextOverflowError();
      }),
    ).rejects.toThrow(ContextOverflowError);
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      manager.run({ messages, key }, async () => {
        calls++;
        throw new Error("network down");
      }),
    ).rejects.toThrow("network down");
    expect(calls).toBe(1);
  });

  it.each<[string, unknown, boolean]>([
    ["ContextOverflowError", new ContextOverflowError(), true],
    ["provider code", Object.assign(new Error("400"), { code: "context_length_exceeded" }), true],
    ["provider message", new Error("This model's maximum context length is 8192 tokens"), true],
    ["cause chain", new Error("wrapped", { cause: new ContextOverflowError() }), true],
    ["finish reason", new AIMessage({ content: "", response_metadata: { finish_reason: "model_context_window_exceeded" } }), true],
    ["normal answer", new AIMessage({ content: "fine", response_metadata: { finish_reason: "stop" } }), false],
    ["other error", new Error("rate limited"), false],
  ])("isContextOverflow: %s → %s", (_, value, expected) => {
    expect(isContextOverflow(value)).toBe(expected);
  });

  it("learns actual/estimated from usage_metadata and shrinks later limits", async () => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, store });
    const view = await manager.build({ messages, key });
    await manager.recordUsage(key, view, { usage_metadata: { input_tokens: Math.round(view.report.tokens.total * 2), output_tokens: 5 } });
    expect((await store.getCompaction(key))?.calibration).toEqual({ ratio: 2, samples: 1 });
    const next = await manager.build({ messages, key });
    expect(next.report.compaction.calibration).toBe(2);
    expect(next.report.limit).toBe(2000);
    await manager.recordUsage(key, view, { usage_metadata: { input_tokens: view.report.tokens.total * 100 } });
    expect((await store.getCompaction(key))?.calibration?.ratio).toBeLessThanOrEqual(3);
  });
});

describe("chatModelSummarizer", () => {
  it("calls the model with isolated callbacks and nostream tags, and returns its text", async () => {
    const model = new FakeListChatModel({ responses: ["The user budgets 400 a month."] });
    const seen: Record<string, unknown>[] = [];
    const inputs: BaseMessage[][] = [];
    const spy = { invoke: async (input: BaseMessage[], options: Record<string, unknown>) => (seen.push(options), inputs.push(input), model.invoke(input as never)) };
    const summarizer = chatModelSummarizer(spy as never);
    const text = await summarizer("user: hi", { previousSummary: "old", chunk: 1, chunks: 1, maxTokens: 1000, signal: new AbortController().signal });
    expect(text).toBe("The user budgets 400 a month.");
    // The model is told the bound, in words (three characters a token, five a word).
    expect(String(inputs[0]?.[0]?.content)).toContain("Write at most 600 words.");
    expect(seen[0]?.["callbacks"]).toEqual([]);
    expect(seen[0]?.["tags"]).toEqual(expect.arrayContaining(["langsmith:nostream", "nostream"]));
  });

  it("rejects a non-model", () => {
    expect(() => chatModelSummarizer({} as never)).toThrow(/`model`/);
  });
});
