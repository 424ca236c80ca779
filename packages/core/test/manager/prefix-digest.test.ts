import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, InMemoryContextStore, type Summarizer } from "@contextview/core";
import { sha256BytesHashed } from "../../src/sha256.js";
import { isLegacySummaryPrefixHash, legacySummaryPrefixHash, PREFIX_DIGEST_TAG, summaryPrefixHash } from "../../src/summarize/prefix-hash.js";

const key = { userId: "u1", conversationId: "t1" };

function checkpoint(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `question ${i} ${"words ".repeat(50)}` }));
    out.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "search", args: { i } }] }));
    out.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: "row ".repeat(2000) }));
    out.push(new AIMessage({ id: `r${i}`, content: `answer ${i}` }));
  }
  out.push(new HumanMessage({ id: "now", content: "the current request" }));
  return out;
}

describe("one prefix digest per turn", () => {
  it("the summary cache's digest resumes from the evidence update's pass over the same messages", async () => {
    const messages = checkpoint(40);
    const fresh = await summaryPrefixHash([...messages], 120);
    const store = new InMemoryContextStore();
    await store.update(key.userId, key.conversationId, messages);
    const before = sha256BytesHashed();
    const shared = await summaryPrefixHash(messages, 120);
    const resumedBytes = sha256BytesHashed() - before;
    const again = sha256BytesHashed();
    await summaryPrefixHash([...messages], 120);
    const freshBytes = sha256BytesHashed() - again;
    expect(shared).toBe(fresh);
    expect(resumedBytes).toBeLessThan(freshBytes / 10);
  });

  it("accepts a summary stored with an earlier version's prefix hash", async () => {
    const messages = checkpoint(20);
    const store = new InMemoryContextStore();
    await store.putCompaction(key, { version: 1, summary: { prefixN: 40, prefixHash: await legacySummaryPrefixHash(messages, 40), text: "earlier summary", createdAt: 1 }, failures: 0 });
    const summarizer: Summarizer = async () => "should not be called";
    // Results cleared in steps (not left for the summary), so the rest fits and no new summary is due.
    const view = await createContextManager({ store, summarizer, budget: { promptBudget: 12000 }, keepRecentToolResults: 3, clearStep: 4 }).build({ messages, key });
    expect(view.report.compaction.summaryCacheHit).toBe(true);
    expect(view.report.compaction.summarizedMessages).toBe(40);
  });

  it("messages without ids (outside a checkpoint) get the evidence digest too, keyed by position and content; a stored hash of the earlier kind still matches", async () => {
    const messages = [new HumanMessage("hi"), new AIMessage("hello"), new HumanMessage("again")];
    const hash = await summaryPrefixHash(messages, 2);
    expect(hash.startsWith(PREFIX_DIGEST_TAG)).toBe(true);
    // The same messages built anew hash the same; another text does not.
    expect(await summaryPrefixHash([new HumanMessage("hi"), new AIMessage("hello")], 2)).toBe(hash);
    expect(await summaryPrefixHash([new HumanMessage("hey"), new AIMessage("hello")], 2)).not.toBe(hash);
    // A cache written by an earlier version (the legacy kind) is checked the way it was made.
    expect(isLegacySummaryPrefixHash(await legacySummaryPrefixHash(messages, 2))).toBe(true);
  });
});
