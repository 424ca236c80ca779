import { createEstimator } from "@contextview/core";
import { MEMORY_BLOCK_HEADER } from "@contextview/core/routing";
import { memoryLine } from "../../core/src/memories/index.js";
import { ContextIntegrationError, ContextViewAnnotation, createContextNode, type ContextLogRecord } from "@contextview/langgraph";
import { HumanMessage } from "@langchain/core/messages";
import { Annotation, InMemoryStore, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { OTHER_USER, RELEVANT, memoryLines, saveMemories, systemSeen, type Integration } from "./support/memories.js";

// Real servers and graphs on a shared, loaded machine: well above the usual second, never a timing assertion.

const integrations: Integration[] = ["node", "wrapper", "middleware"];

describe("memories from LangGraph's store (InMemoryStore)", () => {
  it.each(integrations)("%s: the relevant memory of this user first, within memoryBudget, never another user's", async (integration) => {
    const store = new InMemoryStore();
    await saveMemories(store);
    const budget = 120;
    const system = await systemSeen(integration, store, { memories: true, budget: { memoryBudget: budget }, systemPrompt: "You are careful." });
    expect(system.startsWith("You are careful.")).toBe(true);
    const lines = memoryLines(system);
    expect(lines[0]).toBe(memoryLine(RELEVANT));
    expect(system).not.toContain("SECRET-U2");
    const estimator = createEstimator();
    const tokens = estimator.estimateText(MEMORY_BLOCK_HEADER) + lines.reduce((sum, line) => sum + estimator.estimateText(`\n${line}`), 0);
    expect(tokens).toBeLessThanOrEqual(budget);
    // The budget, not the store, is what left the rest out: 22 memories are stored for u-1.
    expect(lines.length).toBeLessThan(22);
  });

  it.each(integrations)("%s: without `memories` nothing is read from the store", async (integration) => {
    const store = new InMemoryStore();
    await saveMemories(store);
    // The graph hands nodes a batching wrapper: every read reaches the store through `batch`.
    const batch = jest.spyOn(store, "batch");
    expect(memoryLines(await systemSeen(integration, store, {}))).toEqual([]);
    expect(batch).not.toHaveBeenCalled();
  });

  it("takes the request's memoryBudget over the factory's", async () => {
    const store = new InMemoryStore();
    await saveMemories(store);
    const node = createContextNode({ memories: true, budget: { memoryBudget: 1000 } });
    const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
      .addNode("context", node)
      .addEdge(START, "context")
      .compile({ checkpointer: new MemorySaver(), store });
    const systemOf = async (context: unknown, thread: string) => {
      const state = await graph.invoke({ messages: [new HumanMessage("How much on groceries?")] }, { configurable: { thread_id: thread, user_id: "u-1", context } });
      const first = state.llmInputMessages[0];
      return first?.type === "system" ? String(first.content) : "";
    };
    expect(memoryLines(await systemOf(undefined, "wide")).length).toBeGreaterThan(10);
    expect(memoryLines(await systemOf({ budget: { memoryBudget: 0 } }, "none"))).toEqual([]);
  });

  it("uses the namespace function, an explicit store and the text reader", async () => {
    const graphStore = new InMemoryStore();
    const own = new InMemoryStore();
    await saveMemories(own, (user) => ["tenant-a", user, "facts"]);
    await own.put(["tenant-a", "u-1", "facts"], "odd", { note: "Groceries are bought on Saturdays" });
    const text = (item: { value: Record<string, unknown> }) => (typeof item.value["note"] === "string" ? item.value["note"] : (item.value["text"] as string | undefined));
    const system = await systemSeen("node", graphStore, {
      memories: { store: own, namespace: ({ userId }) => ["tenant-a", userId, "facts"], text },
      budget: { memoryBudget: 1000 },
    });
    expect(memoryLines(system)).toEqual(expect.arrayContaining([memoryLine(RELEVANT), memoryLine("Groceries are bought on Saturdays")]));
    expect(system).not.toContain("metric"); // its value has `content` only, which this reader skips
    expect(system).not.toContain(OTHER_USER);
  });

  it("gives the request text to store.search in the user's namespace", async () => {
    const store = new InMemoryStore();
    await saveMemories(store);
    const batch = jest.spyOn(store, "batch");
    await systemSeen("node", store, { memories: { limit: 30 } }, "Groceries again?");
    const operations = batch.mock.calls.flatMap(([ops]) => ops);
    expect(operations[0]).toMatchObject({ namespacePrefix: ["memories", "u-1"], query: "Groceries again?", limit: 30 });
    // The query found fewer than `limit`: the newest items fill up, in a second search without a query.
    expect(operations).toHaveLength(2);
    expect(operations[1]).toMatchObject({ namespacePrefix: ["memories", "u-1"], query: undefined, limit: 30 });
  });

  it("fails clearly when there is no store, and rejects a bad option at the factory", async () => {
    const node = createContextNode({ memories: true });
    const error = await node.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "t", user_id: "u" } }).catch((e: unknown) => e);
    expect(ContextIntegrationError.isInstance(error) && [error.code, error.field]).toEqual(["INVALID_OPTION", "memories.store"]);
    expect(() => createContextNode({ memories: { limit: 0 } })).toThrow(/Expected `memories` to be true or an object/);
    expect(() => createContextNode({ memories: { namespace: ["memories"] } as never })).toThrow(ContextIntegrationError);
  });

  it("goes on without memories when the store fails, and logs it without content", async () => {
    const store = new InMemoryStore();
    await saveMemories(store);
    jest.spyOn(store, "batch").mockRejectedValue(Object.assign(new Error(`connection lost ${RELEVANT}`), { code: "ECONNRESET" }));
    const records: ContextLogRecord[] = [];
    const logger = { info: () => undefined, warn: (record: ContextLogRecord) => void records.push(record) };
    const system = await systemSeen("node", store, { memories: true, logger });
    expect(memoryLines(system)).toEqual([]);
    expect(records).toEqual([{ event: "context_memories_error", source: "node", conversationId: "t-node", error: "Error", code: "ECONNRESET" }]);
  });
});
