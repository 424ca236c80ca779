import { InMemoryContextStore } from "@contextview/core";
import { RECALL_LABEL } from "../../core/src/view/recall.js";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { anthropicPromptCachingMiddleware, createAgent } from "langchain";
import { RecordingChatModel, searchConversation } from "@contextview/test-support";

/**
 * The recording fake, named so that langchain's prompt-caching middleware takes it
 * for an Anthropic model (it checks the name); answers with text.
 */
class RecordingAnthropicModel extends RecordingChatModel {
  static override lc_name(): string {
    return "ChatAnthropic";
  }
  constructor() {
    super({ reportsUsage: false, answer: (_messages, { index }) => `Answer ${index + 1}.` });
  }
}

const marked = (m: BaseMessage) => (Array.isArray(m.content) ? m.content.filter((b) => typeof b === "object" && b !== null && "cache_control" in b).length : 0);

describe("cacheBreakpoints with langchain's anthropicPromptCachingMiddleware", () => {
  it.each([
    ["contextview outside", (cv: unknown, cache: unknown) => [cv, cache]],
    ["contextview inside", (cv: unknown, cache: unknown) => [cache, cv]],
  ])("every call gets the request-level breakpoint and at most 3 block breakpoints on stable messages (%s)", async (_, order) => {
    const model = new RecordingAnthropicModel();
    const agent = createAgent({
      model,
      systemPrompt: "You are a careful finance assistant.",
      checkpointer: new MemorySaver(),
      // langchain's middleware option types do not compile under exactOptionalPropertyTypes; the values are right.
      middleware: order(contextMiddleware({ store: new InMemoryContextStore(), budget: { promptBudget: 3000 }, view: { cacheBreakpoints: true }, evidence: "off" }), anthropicPromptCachingMiddleware({ ttl: "5m", unsupportedModelBehavior: "raise" } as never)) as never,
    });
    const config = { configurable: { thread_id: "t-cache", user_id: "u-1" } };
    await agent.invoke({ messages: searchConversation(12, 20) } as never, config as never);
    for (let i = 0; i < 4; i++) await agent.invoke({ messages: [new HumanMessage({ id: `more-${i}`, content: `And turn ${i}?` })] } as never, config as never);

    expect(model.calls).toHaveLength(5);
    for (const [i, messages] of model.calls.entries()) {
      expect(model.received[i]?.options["cache_control"]).toEqual({ type: "ephemeral", ttl: "5m" });
      const blockMarks = messages.reduce((n, m) => n + marked(m), 0);
      expect(blockMarks).toBeGreaterThanOrEqual(1);
      // Anthropic allows 4: the request-level one and these.
      expect(blockMarks + 1).toBeLessThanOrEqual(4);
      // The current request is never marked: it changes on every call.
      expect(marked(messages.at(-1) as BaseMessage)).toBe(0);
    }
    // Once older turns are dropped, the end of the older turns carries a mark too (before the recalled block, if any).
    const last = model.calls.at(-1) ?? [];
    const recallAt = last.findIndex((m) => m.content === RECALL_LABEL);
    expect(marked((recallAt >= 0 ? last[recallAt - 1] : last.at(-2)) as BaseMessage)).toBe(1);
    expect(last[0]?.type).toBe("system");
  });

  it("puts the head breakpoint on the agent's own system message when the view has no summary or excerpts", async () => {
    const model = new RecordingAnthropicModel();
    const agent = createAgent({
      model,
      systemPrompt: "You are a careful finance assistant.",
      checkpointer: new MemorySaver(),
      middleware: [contextMiddleware({ store: new InMemoryContextStore(), view: { cacheBreakpoints: true }, evidence: "off" }), anthropicPromptCachingMiddleware()] as never,
    });
    const config = { configurable: { thread_id: "t-system", user_id: "u-1" } };
    await agent.invoke({ messages: [new HumanMessage({ id: "h0", content: "Hello." })] } as never, config as never);
    await agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "And now?" })] } as never, config as never);
    const [system, ...rest] = model.calls.at(-1) ?? [];
    expect(system?.content).toEqual([{ type: "text", text: "You are a careful finance assistant.", cache_control: { type: "ephemeral" } }]);
    // The older turn (h0 and its answer) ends with a mark; the current request has none.
    expect(rest.map(marked)).toEqual([0, 1, 0]);
  });
});
