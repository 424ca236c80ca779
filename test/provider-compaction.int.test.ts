import { InMemoryContextStore } from "@contextview/core";
import { createContextNode, type ContextBudgetRecord, type ContextLogRecord } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { anthropicOrderProblems, RecordingChatModel, readableText, searchTool } from "@contextview/test-support";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { customGraph } from "./support/custom-graph.js";

// Issue 50, item 4, on real graphs: a scripted Anthropic model compacts its context inside
// the tool loop; every later call of the loop starts with the compaction message, and the
// next turn too; the checkpoint keeps every message; nothing before the compaction reaches
// the model again.

const thinking = (id: string) => ({ type: "thinking", thinking: `THOUGHT-${id}`, signature: `SIG-${id}` });

/** Call k of the loop: a search step (the second one compacts first), then an answer. */
function scripted(steps: number) {
  return (_messages: BaseMessage[], { index }: { index: number }): AIMessage | string => {
    if (index >= steps) return `Answer after ${index} calls: the ledger balances.`;
    const id = `call_${index}`;
    const content: Record<string, unknown>[] = [thinking(`s${index}`), { type: "text", text: `Step ${index}: searching.` }, { type: "tool_use", id, name: "search_transactions", input: { query: `q${index}` } }];
    if (index === 1) content.unshift({ type: "compaction", content: "PROVIDER-SUMMARY: the user asked to reconcile the ledger; two searches so far.", encrypted_content: "COMPACTED-SECRET" });
    return new AIMessage({ id: `ai_${index}`, content: content as never, tool_calls: [{ id, name: "search_transactions", args: { query: `q${index}` }, type: "tool_call" }] });
  };
}

const request = new HumanMessage({ id: "req", content: "PRE-REQUEST: reconcile the ledger of March, please." });
const history: BaseMessage[] = [new HumanMessage({ id: "old", content: "PRE-OLD: what was my rent?" }), new AIMessage({ id: "old_a", content: "Rent was 900." })];

/** What every call after the compaction must show: the compaction message first after the system prompt, and nothing of before. */
function afterCompaction(calls: readonly BaseMessage[][]): void {
  const later = calls.slice(2);
  expect(later.length).toBeGreaterThan(0);
  for (const call of later) {
    const start = call[0]?.type === "system" ? 1 : 0;
    expect(call[start]?.id).toBe("ai_1");
    expect((call[start]?.content as { type: string }[])[0]?.type).toBe("compaction");
    expect(readableText(call)).not.toMatch(/PRE-(REQUEST|OLD)/);
    expect(anthropicOrderProblems(call)).toEqual([]);
  }
}

describe("a provider compaction inside the tool loop, on real graphs", () => {
  it("createAgent with contextMiddleware: the loop and the next turn start with the compaction", async () => {
    const model = new RecordingChatModel({ answer: scripted(3) });
    const checkpointer = new MemorySaver();
    const agent = createAgent({ model, tools: [searchTool(6)], checkpointer, middleware: [contextMiddleware({ budget: { promptBudget: 6000 }, store: new InMemoryContextStore() })] });
    const config = { configurable: { thread_id: "t1" } };
    await agent.invoke({ messages: [...history, request] }, config);
    expect(model.calls).toHaveLength(4);
    // The call that made the compaction saw the request; the ones after it never do.
    expect(readableText(model.calls[1] ?? [])).toContain("PRE-REQUEST");
    afterCompaction(model.calls);
    // Within the loop the compaction message goes back as it came: thinking and signature included.
    const sent = model.calls[2]?.find((m) => m.id === "ai_1");
    expect(JSON.stringify(sent?.content)).toContain("SIG-s1");
    // The next turn: the compaction stays the head, its thinking cleared now that a user message follows.
    await agent.invoke({ messages: [new HumanMessage({ id: "next", content: "And April?" })] }, config);
    afterCompaction(model.calls);
    const next = model.calls.at(-1)?.find((m) => m.id === "ai_1");
    expect(JSON.stringify(next?.content)).not.toContain("SIG-s1");
    expect(JSON.stringify(next?.content)).toContain("COMPACTED-SECRET");
    // The checkpoint keeps every message, the compacted span included.
    const state = await agent.graph.getState(config);
    expect((state.values.messages as BaseMessage[]).map((m) => m.id)).toEqual(expect.arrayContaining(["old", "req", "ai_0", "ai_1", "next"]));
  });

  it("createContextNode in a StateGraph: the same, and the record counts the span the provider compacted", async () => {
    const model = new RecordingChatModel({ answer: scripted(3) });
    const records: ContextLogRecord[] = [];
    const node = createContextNode({ budget: { promptBudget: 6000 }, store: new InMemoryContextStore(), tools: [searchTool(6)], logger: { info: (r) => void records.push(r), warn: (r) => void records.push(r) } });
    const graph = customGraph(model, new MemorySaver(), node, undefined, 6);
    await graph.invoke({ messages: [...history, request] }, { configurable: { thread_id: "t2", user_id: "u" } });
    expect(model.calls).toHaveLength(4);
    afterCompaction(model.calls);
    const budgets = records.filter((r): r is ContextBudgetRecord => r.event === "context_budget");
    expect(budgets.map((r) => r.messagesProviderCompacted)).toEqual([0, 0, 5, 5]);
    for (const r of budgets) expect(r.messagesSummarized + r.messagesProviderCompacted + r.messagesRead + r.messagesUnread).toBe(r.messagesInCheckpoint);
  });
});
