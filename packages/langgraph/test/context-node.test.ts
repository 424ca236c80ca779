import { InMemoryContextStore } from "@contextview/core";
import { CONTEXT_REPORT_EVENT, ContextIntegrationError, createContextNode, type ContextLogRecord, type ContextReportEvent, type ContextNodeInput, type ContextNodeUpdate } from "@contextview/langgraph";
import { AIMessage } from "@langchain/core/messages";
import { searchConversation } from "@contextview/test-support";

const config = (context?: unknown) => ({ configurable: { thread_id: "t-1", user_id: "u-1", ...(context === undefined ? {} : { context }) } });

function memoryLogger() {
  const records: ContextLogRecord[] = [];
  return { records, info: (record: ContextLogRecord) => void records.push(record), warn: (record: ContextLogRecord) => void records.push(record) };
}

describe("createContextNode", () => {
  it("writes a view within budget to llmInputMessages and never changes the state", async () => {
    const messages = searchConversation(30);
    const before = JSON.stringify(messages);
    const node = createContextNode({ budget: { contextWindow: 16384, promptBudget: 3000 } });
    const update = await node.invoke({ messages }, config());
    expect(update.llmInputMessages.length).toBeGreaterThan(0);
    expect(update.llmInputMessages.length).toBeLessThan(messages.length);
    expect(update.llmInputMessages.at(-1)?.id).toBe("current");
    expect(JSON.stringify(messages)).toBe(before);
  });

  it("emits the report as a custom event and logs both records without content", async () => {
    const logger = memoryLogger();
    const events: ContextReportEvent[] = [];
    const node = createContextNode({ budget: { promptBudget: 3000 }, logger });
    await node.invoke({ messages: searchConversation(20) }, { ...config(), callbacks: [{ handleCustomEvent: (name: string, data: ContextReportEvent) => void (name === CONTEXT_REPORT_EVENT && events.push(data)) }] });
    expect(events).toHaveLength(1);
    expect(events[0]?.report.tokens.total).toBeLessThanOrEqual(events[0]?.report.limit ?? 0);
    expect(logger.records.map((r) => r.event)).toEqual(["context_budget", "prompt_budget"]);
    expect(logger.records[0]).toMatchObject({ source: "node", conversationId: "t-1", turnsDropped: expect.any(Number) });
    expect(logger.records[1]).toMatchObject({ totalTokens: events[0]?.report.tokens.total, fixedTokens: expect.any(Number) });
    expect(JSON.stringify([logger.records, events])).not.toContain("SECRET-TEXT");
  });

  it("applies per-request settings over the factory's", async () => {
    const node = createContextNode({ budget: { promptBudget: 6000 } });
    const wide = await node.invoke({ messages: searchConversation(30) }, config());
    const narrow = await node.invoke({ messages: searchConversation(30) }, config({ budget: { promptBudget: 1500 } }));
    expect(narrow.llmInputMessages.length).toBeLessThan(wide.llmInputMessages.length);
  });

  it("rejects an invalid request setting before touching the store", async () => {
    const store = new InMemoryContextStore();
    const update = jest.spyOn(store, "update");
    const node = createContextNode({ store });
    await expect(node.invoke({ messages: searchConversation(2) }, config({ budget: { promptBudget: "lots" } }))).rejects.toMatchObject({
      code: "INVALID_REQUEST_CONFIG",
      field: "context.budget.promptBudget",
    });
    await expect(node.invoke({ messages: searchConversation(2) }, config({ budget: { contextWindow: 4000, responseReserve: 4000 } }))).rejects.toMatchObject({
      code: "INVALID_REQUEST_CONFIG",
      field: "context.budget.responseReserve",
    });
    expect(update).not.toHaveBeenCalled();
  });

  it("refuses a malformed conversation key and a state without a messages array", async () => {
    const node = createContextNode();
    const wrongUser = { configurable: { thread_id: "t", user_id: 7 } };
    await expect(node.invoke({ messages: searchConversation(1) }, wrongUser)).rejects.toMatchObject({ code: "MISSING_CONVERSATION_KEY" });
    const error = await node.invoke({} as never, config()).catch((caught: unknown) => caught);
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_STATE", field: "state.messages" });
  });

  it("updates evidence inline by default and shows it in the view", async () => {
    const store = new InMemoryContextStore();
    const node = createContextNode({ store, budget: { promptBudget: 3000 } });
    const update = await node.invoke({ messages: searchConversation(20) }, config());
    expect((await store.load("u-1", "t-1")).cursor).toBe(searchConversation(20).length - 1);
    expect(update.llmInputMessages.some((m) => String(m.content).includes("contextview_evidence"))).toBe(true);
  });

  it("updates evidence once per turn: later calls with the same prefix objects reuse it, a changed prefix updates again", async () => {
    const store = new InMemoryContextStore();
    const update = jest.spyOn(store, "update");
    const node = createContextNode({ store, budget: { promptBudget: 3000 } });
    const messages = searchConversation(20);
    const first = await node.invoke({ messages }, config());
    // The agent loop's next call: the same turn, with the model's tool call and its result appended.
    const next = [...messages, new AIMessage({ id: "reply", content: "done" })];
    const second = await node.invoke({ messages: next }, config());
    expect(update).toHaveBeenCalledTimes(1);
    const evidence = (view: { llmInputMessages: { content: unknown }[] }) => view.llmInputMessages.find((m) => String(m.content).includes("contextview_evidence"))?.content;
    expect(evidence(second)).toEqual(evidence(first));
    // An edited prefix (a new object at a summarized position) is validated by the store again.
    const edited = [...messages];
    edited[2] = new AIMessage({ id: "edited", content: "changed" });
    await node.invoke({ messages: edited }, config());
    expect(update).toHaveBeenCalledTimes(2);
  });

  it("runs background updates with one request of lag, and drains them", async () => {
    const store = new InMemoryContextStore();
    const original = store.update.bind(store);
    jest.spyOn(store, "update").mockImplementation(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return original(...args);
    });
    // A budget the conversation outgrows: evidence quotes what the view leaves out (never what it shows);
    // all of it that fits (at 1,500 tokens a tenth, the default share, holds no excerpt).
    const node = createContextNode({ store, evidence: "background", budget: { promptBudget: 1500 }, view: { evidenceShare: 1 } });
    const first = await node.invoke({ messages: searchConversation(3) }, config());
    expect(node.pendingEvidenceUpdates).toBe(1);
    expect(first.llmInputMessages.some((m) => String(m.content).includes("contextview_evidence"))).toBe(false);
    await node.drain();
    expect(node.pendingEvidenceUpdates).toBe(0);
    expect((await store.load("u-1", "t-1")).cursor).toBe(searchConversation(3).length - 1);
    const second = await node.invoke({ messages: searchConversation(4) }, config());
    expect(second.llmInputMessages.some((m) => String(m.content).includes("contextview_evidence"))).toBe(true);
    await node.drain();
  });

  it("logs failed evidence updates and goes on without evidence, or throws when strict", async () => {
    const store = new InMemoryContextStore();
    jest.spyOn(store, "update").mockRejectedValue(Object.assign(new Error("prefix changed"), { code: "PREFIX_CHANGED" }));
    const logger = memoryLogger();
    const lenient = createContextNode({ store, logger });
    await expect(lenient.invoke({ messages: searchConversation(3) }, config())).resolves.toHaveProperty("llmInputMessages");
    expect(logger.records[0]).toEqual({ event: "context_evidence_error", source: "node", conversationId: "t-1", mode: "inline", error: "Error", code: "PREFIX_CHANGED" });
    const strict = createContextNode({ store, advanced: { strictEvidence: true } });
    await expect(strict.invoke({ messages: searchConversation(3) }, config())).rejects.toThrow("prefix changed");

    const background = createContextNode({ store, logger, evidence: "background" });
    await background.invoke({ messages: searchConversation(3) }, config());
    await background.drain();
    expect(logger.records.filter((r) => r.event === "context_evidence_error").map((r) => (r as { mode: string }).mode)).toEqual(["inline", "background"]);
  });

  it("keeps only the newest waiting snapshot per conversation", async () => {
    const store = new InMemoryContextStore();
    const seen: number[] = [];
    const original = store.update.bind(store);
    jest.spyOn(store, "update").mockImplementation(async (user, conversationId, messages) => {
      seen.push(messages.length);
      await new Promise((resolve) => setTimeout(resolve, 5));
      return original(user, conversationId, messages);
    });
    const node = createContextNode({ store, evidence: "background" });
    for (const turns of [2, 3, 4]) await node.invoke({ messages: searchConversation(turns) }, config());
    await node.drain();
    expect(seen).toEqual([searchConversation(2).length, searchConversation(4).length]);
  });

  it("calibrates from the usage of the answer that followed its last view", async () => {
    const store = new InMemoryContextStore();
    const node = createContextNode({ store, evidence: "off" });
    const messages = searchConversation(2);
    const { llmInputMessages } = await node.invoke({ messages }, config());
    expect(llmInputMessages.length).toBeGreaterThan(0);
    const answer = new AIMessage({ content: "ok", usage_metadata: { input_tokens: 5000, output_tokens: 2, total_tokens: 5002 } } as never);
    await node.invoke({ messages: [...messages, answer] }, config());
    expect((await store.getCompaction({ userId: "u-1", conversationId: "t-1" }))?.calibration?.samples).toBe(1);
  });
});

describe("createContextNode().withOverflowRecovery", () => {
  it("rejects a model node that is not a function, naming it", () => {
    expect(() => createContextNode().withOverflowRecovery("model" as never)).toThrow(ContextIntegrationError);
    expect(() => createContextNode().withOverflowRecovery(42 as never)).toThrow(/`modelNode` to be a function/);
  });

  it("passes other errors through without a second call", async () => {
    let calls = 0;
    const node = createContextNode().withOverflowRecovery(async () => {
      calls++;
      throw new Error("rate limited");
    });
    await expect(node({ messages: searchConversation(2), llmInputMessages: [] }, config())).rejects.toThrow("rate limited");
    expect(calls).toBe(1);
  });

  it("returns the model node's update as it is when there is no overflow", async () => {
    const reply = new AIMessage("ok");
    const node = createContextNode().withOverflowRecovery(async (state: ContextNodeInput & Partial<ContextNodeUpdate>) => ({ messages: [reply], seen: state.llmInputMessages?.length }));
    await expect(node({ messages: searchConversation(2), llmInputMessages: [reply] }, config())).resolves.toEqual({ messages: [reply], seen: 1 });
  });
});
