import { InMemoryContextStore } from "@contextview/core";
import { rebuildView } from "@contextview/core/internal";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { createContextNode, withContext, type ContextLogRecord } from "@contextview/langgraph";
import { HumanMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { RecordingChatModel, searchTool, toolsMarker } from "@contextview/test-support";
import { searchConversation } from "@contextview/test-support";

const key = { userId: "u-1", conversationId: "t-1" };
const config = { configurable: { thread_id: "t-1", user_id: "u-1" } };

describe("view records from the integrations", () => {
  it("the node records each call; the record rebuilds to the same report and holds no message content", async () => {
    const store = new InMemoryContextStore();
    const node = createContextNode({ store, budget: { promptBudget: 3000 }, systemPrompt: "Be exact." });
    const first = searchConversation(10);
    const second = searchConversation(20);
    await node.invoke({ messages: first }, config);
    await node.invoke({ messages: second }, config);
    const views = await store.listViews(key);
    expect(views.map((v) => [v.record.sequence, v.record.source, v.record.messages.count])).toEqual([
      [1, "node", first.length],
      [2, "node", second.length],
    ]);
    expect(JSON.stringify(views.map((v) => v.record))).not.toContain("SECRET-TEXT");
    expect(rebuildView(views[1]!, second)).toMatchObject({ status: "match", problems: [] });
  });

  it("withContext records each call, the overflow retry marked as such", async () => {
    const store = new InMemoryContextStore();
    const model = withContext(new FakeListChatModel({ responses: ["ok"] }), { store, budget: { promptBudget: 3000 } });
    await model.invoke(searchConversation(5), config);
    const overflowing = withContext(new RecordingChatModel({ overflowAboveBytes: 6000 }), { store, budget: { promptBudget: 3000 } });
    await overflowing.invoke(searchConversation(30), config);
    const views = await store.listViews(key);
    expect(views.map((v) => [v.record.sequence, v.record.source, v.record.overflowRecovery])).toEqual([
      [1, "wrapper", false],
      [2, "wrapper", false],
      [3, "wrapper", true],
    ]);
    expect(views[2]!.record.report.tokens.total).toBeLessThan(views[1]!.record.report.tokens.total);
  });

  it("the middleware records the agent's calls with its system prompt and tools", async () => {
    const store = new InMemoryContextStore();
    const agent = createAgent({
      model: new RecordingChatModel(),
      tools: [searchTool()],
      systemPrompt: "You are careful.",
      checkpointer: new MemorySaver(),
      middleware: [contextMiddleware({ store, budget: { promptBudget: 3000 } })],
    });
    await agent.invoke({ messages: [new HumanMessage(`Current ${toolsMarker(2)}`)] }, config);
    const views = await store.listViews(key);
    expect(views.length).toBe(2);
    expect(views.every((v) => v.record.source === "middleware" && v.record.inputs.systemPrompt !== null && v.record.inputs.tools !== null)).toBe(true);
    expect(Object.values(views[0]!.inputs)).toContain("You are careful.");
  });

  it("a store that fails to record never fails the call: the failure is logged, content-free", async () => {
    const store = new InMemoryContextStore();
    store.recordView = async () => {
      throw Object.assign(new Error("disk full"), { code: "STORE_ERROR" });
    };
    const records: ContextLogRecord[] = [];
    const node = createContextNode({ store, logger: { info: () => undefined, warn: (r) => void records.push(r) } });
    const update = await node.invoke({ messages: searchConversation(3) }, config);
    expect(update.llmInputMessages.length).toBeGreaterThan(0);
    expect(records).toEqual([{ event: "context_view_record_error", source: "node", conversationId: "t-1", error: "Error", code: "STORE_ERROR" }]);
  });

  it("records nothing with recordViews: false, and rejects a non-boolean", async () => {
    const store = new InMemoryContextStore();
    await createContextNode({ store, advanced: { recordViews: false } }).invoke({ messages: searchConversation(3) }, config);
    expect(await store.listViews(key)).toEqual([]);
    expect(() => createContextNode({ advanced: { recordViews: "yes" as never } })).toThrow("Expected `advanced.recordViews` to be a boolean");
  });
});
