import { InMemoryContextStore, type ManagedReport } from "@contextview/core";
import { contextConfigSchema, ContextIntegrationError, ContextViewAnnotation, createContextNode, withContext } from "@contextview/langgraph";
import type { ReportListener } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod";
import { RecordingChatModel, searchConversation } from "@contextview/test-support";

function reports() {
  const seen: ManagedReport[] = [];
  const onReport: ReportListener = (report) => void seen.push(report);
  return { seen, onReport };
}

// With a user id: the old code required one, so these tests fail there for the setting they are about.
const thread = (id: string) => ({ configurable: { thread_id: id, user_id: "u-1" } });

function contextGraph(options: Parameters<typeof createContextNode>[0]) {
  const model = new RecordingChatModel();
  return new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
    .addNode("context", createContextNode(options))
    .addNode("model", async (state) => ({ messages: [await model.invoke(state.llmInputMessages)] }))
    .addEdge(START, "context")
    .addEdge("context", "model")
    .addEdge("model", END)
    .compile();
}

describe("LangChain v1's runtime context carries per-request settings and the user", () => {
  it("createAgent: `context.budget` sets this request's limit", async () => {
    const { seen, onReport } = reports();
    const agent = createAgent({ model: new RecordingChatModel(), tools: [], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ onReport })] });
    await agent.invoke({ messages: searchConversation(20) }, { ...thread("t-1"), context: { budget: { promptBudget: 3000 } } });
    expect(seen[0]?.limit).toBeLessThanOrEqual(3000);
    expect(seen[0]?.budgetSources.promptBudget).toBe("request");
  });

  it("createAgent: `context.userId` is the user, and the application's own keys are left alone", async () => {
    const store = new InMemoryContextStore();
    const { seen, onReport } = reports();
    const middleware = [contextMiddleware({ store, onReport })];
    const agent = createAgent({ model: new RecordingChatModel(), tools: [], checkpointer: new MemorySaver(), middleware });
    const context = { userId: "u-ctx", locale: "fr", userName: "Ada" };
    await agent.invoke({ messages: searchConversation(3) }, { configurable: { thread_id: "t-2" }, context });
    expect(seen[0]?.scope).toBe("user");
    expect(await store.listViews({ userId: "u-ctx", conversationId: "t-2" })).toHaveLength(1);
  });

  it("createAgent with a contextSchema that declares contextview's keys", async () => {
    const { seen, onReport } = reports();
    const contextSchema = z.object({ userId: z.string(), ...contextConfigSchema.shape });
    const agent = createAgent({ model: new RecordingChatModel(), tools: [], contextSchema, middleware: [contextMiddleware({ onReport })] });
    const context = { userId: "u-1", budget: { promptBudget: 2500 }, summarize: false };
    await agent.invoke({ messages: searchConversation(20) }, { ...thread("t-schema"), context });
    expect(seen[0]?.limit).toBeLessThanOrEqual(2500);
  });

  it("a StateGraph node reads `config.context`", async () => {
    const { seen, onReport } = reports();
    const context = { budget: { promptBudget: 2000 }, user_id: "u-3" };
    await contextGraph({ onReport }).invoke({ messages: searchConversation(20) }, { configurable: { thread_id: "t-3" }, context });
    expect(seen[0]?.limit).toBeLessThanOrEqual(2000);
    expect(seen[0]?.scope).toBe("user");
  });

  it("the wrapper inside a node reads the node's runtime context", async () => {
    const { seen, onReport } = reports();
    const model = withContext(new RecordingChatModel(), { onReport });
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("model", async (state, config) => ({ messages: [await model.invoke(state.messages, config)] }))
      .addEdge(START, "model")
      .compile();
    await graph.invoke({ messages: searchConversation(20) }, { ...thread("t-4"), context: { budget: { promptBudget: 2200 } } });
    expect(seen[0]?.limit).toBeLessThanOrEqual(2200);
  });

  it("the same setting in both places is fine when they agree", async () => {
    const { seen, onReport } = reports();
    await withContext(new RecordingChatModel(), { onReport }).invoke(searchConversation(20), {
      configurable: { thread_id: "t-5", user_id: "u-1", context: { budget: { promptBudget: 2400 }, keepMinText: 2 } },
      context: { budget: { promptBudget: 2400, memoryBudget: 100 } },
    } as never);
    expect(seen[0]?.limit).toBeLessThanOrEqual(2400);
  });
});

describe("a setting or an id in the wrong place is refused with where it belongs", () => {
  const invoke = (config: object) => withContext(new RecordingChatModel()).invoke(searchConversation(2), config as never);

  it.each([
    [
      { configurable: { thread_id: "t", user_id: "u", budget: { promptBudget: 3000 } } },
      "configurable.budget",
      "is not read: put per-request settings in `context` (runtime: `invoke(input, { context: { budget } })`) or in `configurable.context`",
    ],
    [{ configurable: { thread_id: "t", user_id: "u", summarize: false } }, "configurable.summarize", "or in `configurable.context`"],
    [{ configurable: { thread_id: "t", user_id: "u", promptBudget: 3000 } }, "configurable.promptBudget", "`context: { budget: { promptBudget } }`"],
    [{ configurable: { thread_id: "t", user_id: "u" }, context: { promptBudget: 3000 } }, "context.promptBudget", "put it inside `budget`"],
    [{ configurable: { thread_id: "t", user_id: "u" }, context: { context: { summarize: false } } }, "context.context", "go at the top of the runtime context"],
    [{ configurable: { thread_id: "t", user_id: "u" }, context: { trustPinField: false } }, "context.trustPinField", "once, on the factory"],
    [{ configurable: { user_id: "u" }, context: { thread_id: "t" } }, "context.thread_id", "from `configurable` only"],
    [{ configurable: { thread_id: "t", userId: "u" } }, "config.configurable.userId", "`configurable.user_id` or the runtime `context.userId`"],
    [{ configurable: { thread_id: "t", user_id: "u-1" }, context: { userId: "u-2" } }, "context.userId", "two different users"],
    [
      { configurable: { thread_id: "t", user_id: "u", context: { budget: { promptBudget: 8000 } } }, context: { budget: { promptBudget: 3000 } } },
      "context.budget.promptBudget",
      "set both in the runtime `context` (3000) and in `configurable.context` (8000)",
    ],
  ])("%j names %s", async (config, field, message) => {
    const error = await invoke(config).catch((caught: unknown) => caught);
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field });
    expect((error as Error).message).toContain(message);
  });

  it("an invalid value in the runtime context names its field", async () => {
    const config = { configurable: { thread_id: "t", user_id: "u" }, context: { budget: { promptBudget: -1 } } };
    const error = await invoke(config).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: "context.budget.promptBudget" });
    expect((error as Error).message).toContain("Expected `context.budget.promptBudget` to be a positive integer, got -1");
  });

  it("through createAgent, the error is on the cause of langchain's MiddlewareError", async () => {
    const agent = createAgent({ model: new RecordingChatModel(), tools: [], middleware: [contextMiddleware()] });
    const config = { configurable: { thread_id: "t", user_id: "u", budget: { promptBudget: 3000 } } };
    const error = await agent.invoke({ messages: searchConversation(2) }, config).catch((caught: unknown) => caught);
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect((error as { cause?: unknown }).cause).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: "configurable.budget" });
  });
});
