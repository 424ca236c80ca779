// Summarizer answers that are no summary (issue 24, item 8): invisible-only and oversized ones.
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { chatModelSummarizer, createContextManager, InMemoryContextStore } from "@contextview/core";
import { isSummaryMessage } from "../../src/summarize/summary-message.js";
import { budget, longConversation } from "./finance-turns";




const messages = longConversation(80);
const key = { userId: "u1", conversationId: "t1" };

describe("invisible answers", () => {
  it.each([
    ["a zero-width space", "\u200b"],
    ["zero-width joiners and non-joiners", "\u200d\u200c\u200d"],
    ["a byte-order mark", "\ufeff"],
    ["whitespace of every kind", " \t\n\u00a0\u2003\u3000"],
    ["a word joiner, a soft hyphen and a Hangul filler between spaces", " \u2060\u00ad\u3164 "],
  ])("%s is refused like an empty answer", async (_case, answer) => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, summarizer: async () => answer, store });
    const view = await manager.build({ messages, key });
    expect(view.report.compaction.kind).toBe("drop");
    expect(view.report.compaction.summarizerFailure).toBe("empty");
    expect(view.report.compaction.consecutiveFailures).toBe(1);
    expect(view.messages.some((m) => isSummaryMessage(m))).toBe(false);
    expect((await store.getCompaction(key))?.summary ?? null).toBeNull();
  });

  it("a visible answer wrapped in invisible characters is still a summary", async () => {
    const manager = createContextManager({ budget, summarizer: async () => "\u200b the user budgets 400 EUR \ufeff" });
    const view = await manager.build({ messages, key });
    expect(view.report.compaction.kind).toBe("summary");
    expect(view.report.compaction.summarizerFailure).toBeUndefined();
  });

  it("chatModelSummarizer answers null for a model that says only a zero-width space", async () => {
    const summarizer = chatModelSummarizer(new FakeListChatModel({ responses: ["\u200b\u200d"] }));
    const signal = new AbortController().signal;
    expect(await summarizer("user: hi", { previousSummary: null, chunk: 1, chunks: 1, maxTokens: 100, signal })).toBeNull();
  });
});

describe("an oversized answer", () => {
  it("of 40,001 characters is reported as too long, not empty", async () => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, summarizer: async () => "s".repeat(40_001), store });
    const view = await manager.build({ messages, key });
    expect(view.report.compaction.summarizerFailure).toBe("too-long");
    expect(view.report.compaction.kind).toBe("drop");
    expect(view.messages.some((m) => isSummaryMessage(m))).toBe(false);
    expect((await store.getCompaction(key))?.failures).toBe(1);
  });

  it("under 40,000 characters is still kept as a marked excerpt", async () => {
    const manager = createContextManager({ budget, summarizer: async () => `LONG ${"budget talk. ".repeat(2_000)}`.slice(0, 20_000) });
    const view = await manager.build({ messages, key });
    expect(view.report.compaction.kind).toBe("summary");
    expect(view.report.compaction.summaryExcerpted).toBe(true);
  });
});
