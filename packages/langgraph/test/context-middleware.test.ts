import { InMemoryContextStore } from "@contextview/core";
import { CONTEXT_MIDDLEWARE_NAME, contextMiddleware } from "@contextview/langgraph/middleware";
import type { ContextLogRecord } from "@contextview/langgraph";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { RecordingChatModel, searchTool, toolsMarker } from "@contextview/test-support";
import { searchConversation } from "@contextview/test-support";

const config = { configurable: { thread_id: "t-1", user_id: "u-1" } };

describe("contextMiddleware", () => {
  it("is a createAgent middleware with wrapModelCall", () => {
    const middleware = contextMiddleware();
    expect(middleware.name).toBe(CONTEXT_MIDDLEWARE_NAME);
    expect(typeof middleware.wrapModelCall).toBe("function");
    expect(typeof middleware.drain).toBe("function");
  });

  it("calls the model with a view and leaves request.messages and the state untouched", async () => {
    const seen: { before: string; after: string; length: number }[] = [];
    // An outer middleware watches what the inner (ours) does to the request it is given.
    const watcher = createMiddleware({
      name: "Watcher",
      wrapModelCall: async (request, handler) => {
        const before = JSON.stringify(request.messages);
        const response = await handler(request);
        seen.push({ before, after: JSON.stringify(request.messages), length: request.messages.length });
        return response;
      },
    });
    const records: ContextLogRecord[] = [];
    const model = new RecordingChatModel();
    const agent = createAgent({
      model,
      tools: [searchTool()],
      systemPrompt: "You are careful.",
      checkpointer: new MemorySaver(),
      middleware: [watcher, contextMiddleware({ store: new InMemoryContextStore(), budget: { promptBudget: 3000 }, logger: { info: (r) => void records.push(r), warn: () => undefined } })],
    });
    const history = searchConversation(30);
    const result = await agent.invoke({ messages: [...history.slice(0, -1), new HumanMessage(`Current ${toolsMarker(2)}`)] }, config);
    expect(seen.every((s) => s.before === s.after)).toBe(true);
    expect(model.calls[0]?.[0]?.type).toBe("system");
    expect(model.calls[0]?.filter((m: BaseMessage) => m.type === "system")).toHaveLength(1);
    expect(model.calls[0]?.length).toBeLessThan(history.length);
    // The state keeps every message: the history, the request, the call, 2 results and the answer.
    expect(result.messages).toHaveLength(history.length + 4);
    expect(records.filter((r) => r.event === "prompt_budget").every((r) => (r as { systemTokens: number; toolTokens: number }).systemTokens > 0 && (r as { toolTokens: number }).toolTokens > 0)).toBe(true);
  });
});
