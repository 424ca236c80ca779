import { InMemoryContextStore, type ManagedReport } from "@contextview/core";
import { ContextIntegrationError, ContextViewAnnotation, createContextNode, deleteConversation, NO_USER_ID, withContext } from "@contextview/langgraph";
import type { ReportListener } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { Annotation, END, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { RecordingChatModel, searchConversation } from "@contextview/test-support";

const budget = { promptBudget: 3000 };

function reports() {
  const seen: { report: ManagedReport; conversationId: string }[] = [];
  const onReport: ReportListener = (report, meta) => void seen.push({ report, conversationId: meta.conversationId });
  return { seen, onReport };
}

/** An in-memory store whose every method is watched. */
function watchedStore() {
  const store = new InMemoryContextStore();
  const methods = ["update", "load", "getCompaction", "putCompaction", "deleteCompaction", "deleteConversation", "recordView", "listViews"] as const;
  const spies = methods.map((name) => jest.spyOn(store, name));
  return { store, touched: () => methods.filter((_name, i) => (spies[i]?.mock.calls.length ?? 0) > 0) };
}

function contextGraph(options: Parameters<typeof createContextNode>[0], model: RecordingChatModel) {
  return new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
    .addNode("context", createContextNode(options))
    .addNode("model", async (state) => ({ messages: [await model.invoke(state.llmInputMessages)] }))
    .addEdge(START, "context")
    .addEdge("context", "model")
    .addEdge("model", END);
}

describe("a request without a thread id and without a checkpointer is stateless", () => {
  it("createAgent answers with a bounded view, the store untouched, and the report says stateless", async () => {
    const { store, touched } = watchedStore();
    const { seen, onReport } = reports();
    const model = new RecordingChatModel();
    const agent = createAgent({ model, tools: [], middleware: [contextMiddleware({ store, budget, onReport })] });
    const history = searchConversation(20);
    const result = await agent.invoke({ messages: history });
    expect(result.messages).toHaveLength(history.length + 1);
    expect(model.calls[0]?.length).toBeLessThan(history.length);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.report.scope).toBe("stateless");
    expect(seen[0]?.report.tokens.total).toBeLessThanOrEqual(3000);
    expect(touched()).toEqual([]);
  });

  it("a StateGraph node builds the view and keeps nothing", async () => {
    const { store, touched } = watchedStore();
    const { seen, onReport } = reports();
    const model = new RecordingChatModel();
    const graph = contextGraph({ store, budget, onReport }, model).compile();
    await graph.invoke({ messages: searchConversation(20) });
    expect(model.calls).toHaveLength(1);
    expect(seen[0]?.report.scope).toBe("stateless");
    expect(touched()).toEqual([]);
  });

  it("the wrapper called outside a graph, with no config at all", async () => {
    const { store, touched } = watchedStore();
    const { seen, onReport } = reports();
    const model = new RecordingChatModel();
    await withContext(model, { store, budget, onReport }).invoke(searchConversation(20));
    expect(model.calls[0]?.length).toBeLessThan(searchConversation(20).length);
    expect(seen[0]?.report.scope).toBe("stateless");
    expect(touched()).toEqual([]);
  });

  it("makes no summary, which it would have nowhere to cache, even with a summarizer", async () => {
    const summarizer = jest.fn(async () => "A summary.");
    const { seen, onReport } = reports();
    await withContext(new RecordingChatModel(), { budget, summarizer, onReport }).invoke(searchConversation(20));
    expect(summarizer).not.toHaveBeenCalled();
    expect(seen[0]?.report.compaction.kind).not.toBe("summary");
  });

  it("with a checkpointer, a missing thread id is our typed error, before LangGraph fails to save", async () => {
    const model = new RecordingChatModel();
    const graph = contextGraph({ budget }, model).compile({ checkpointer: new MemorySaver() });
    const error = await graph.invoke({ messages: searchConversation(2) }).catch((caught: unknown) => caught);
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "MISSING_CONVERSATION_KEY", field: "config.configurable.thread_id" });
    expect((error as Error).message).toContain("checkpointer");
    expect(model.calls).toHaveLength(0);
  });
});

describe("a request without a user id is scoped to its thread", () => {
  it("createAgent with a checkpointer and a thread id alone answers, and its state is kept under the thread", async () => {
    const store = new InMemoryContextStore();
    const { seen, onReport } = reports();
    const middleware = [contextMiddleware({ store, budget, onReport })];
    const agent = createAgent({ model: new RecordingChatModel(), tools: [], checkpointer: new MemorySaver(), middleware });
    await agent.invoke({ messages: searchConversation(20) }, { configurable: { thread_id: "shared-thread" } });
    expect(seen[0]?.report.scope).toBe("thread");
    expect(seen[0]?.conversationId).toBe("shared-thread");
    expect(await store.listViews({ userId: NO_USER_ID, conversationId: "shared-thread" })).toHaveLength(1);
    expect((await store.load(NO_USER_ID, "shared-thread")).cursor).toBeGreaterThan(0);
  });

  it("keeps it apart from the state of a user on the same thread id", async () => {
    const store = new InMemoryContextStore();
    const { seen, onReport } = reports();
    const graph = contextGraph({ store, budget, onReport }, new RecordingChatModel()).compile();
    await graph.invoke({ messages: searchConversation(20) }, { configurable: { thread_id: "t-1" } });
    await graph.invoke({ messages: searchConversation(20) }, { configurable: { thread_id: "t-1", user_id: "u-1" } });
    expect(seen.map((s) => s.report.scope)).toEqual(["thread", "user"]);
    expect(await store.listViews({ userId: NO_USER_ID, conversationId: "t-1" })).toHaveLength(1);
    expect(await store.listViews({ userId: "u-1", conversationId: "t-1" })).toHaveLength(1);
  });

  it("deleteConversation without a user id deletes the thread's own state", async () => {
    const store = new InMemoryContextStore();
    const checkpointer = new MemorySaver();
    const agent = createAgent({ model: new RecordingChatModel(), tools: [], checkpointer, middleware: [contextMiddleware({ store, budget })] });
    await agent.invoke({ messages: searchConversation(20) }, { configurable: { thread_id: "t-del" } });
    await deleteConversation({ checkpointer, store }, { threadId: "t-del" });
    expect(await store.listViews({ userId: NO_USER_ID, conversationId: "t-del" })).toHaveLength(0);
    expect((await store.load(NO_USER_ID, "t-del")).cursor).toBe(0);
  });

  it("refuses the reserved user id, and memories, which are per user", async () => {
    const graph = contextGraph({ budget }, new RecordingChatModel()).compile();
    await expect(graph.invoke({ messages: searchConversation(2) }, { configurable: { thread_id: "t", user_id: NO_USER_ID } })).rejects.toMatchObject({
      code: "INVALID_REQUEST_CONFIG",
      field: "config.configurable.user_id",
    });
    const withMemories = contextGraph({ budget, memories: true }, new RecordingChatModel()).compile({ store: new InMemoryStore() });
    const error = await withMemories.invoke({ messages: searchConversation(2) }, { configurable: { thread_id: "t" } }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "MISSING_CONVERSATION_KEY", field: "config.configurable.user_id" });
    expect((error as Error).message).toContain("`memories` are saved per user");
  });

  it("a resolveUserId that answers undefined scopes the request to its thread too", async () => {
    const { seen, onReport } = reports();
    const model = withContext(new RecordingChatModel(), { budget, onReport, resolveUserId: () => undefined });
    await model.invoke(searchConversation(2), { configurable: { thread_id: "t" } });
    expect(seen[0]?.report.scope).toBe("thread");
  });
});
