import { InMemoryContextStore } from "@contextview/core";
import { contextMiddleware } from "@contextview/langgraph";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, AIMessageChunk, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import { MemorySaver } from "@langchain/langgraph";
import { anthropicPromptCachingMiddleware, createAgent } from "langchain";
import { searchConversation } from "@contextview/test-support";

/**
 * A fake that langchain's prompt-caching middleware takes for an Anthropic model (it
 * checks the name): records the messages and the `cache_control` call option of
 * every call, and answers with text.
 */
class RecordingAnthropicModel extends BaseChatModel {
  readonly calls: { messages: BaseMessage[]; cacheControl: unknown }[] = [];
  static override lc_name(): string {
    return "ChatAnthropic";
  }
  _llmType(): string {
    return "anthropic-recording";
  }
  override bindTools(tools: unknown[], kwargs?: Record<string, unknown>): Runnable<BaseMessage[], AIMessageChunk> {
    return this.withConfig({ tools, ...kwargs } as never) as unknown as Runnable<BaseMessage[], AIMessageChunk>;
  }
  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.calls.push({ messages, cacheControl: (options as { cache_control?: unknown }).cache_control });
    const reply = new AIMessage(`Answer ${this.calls.length}.`);
    return { generations: [{ message: reply, text: String(reply.content) }] };
  }
}

const marked = (m: BaseMessage) => (Array.isArray(m.content) ? m.content.filter((b) => typeof b === "object" && b !== null && "cache_control" in b).length : 0);

describe("cacheBreakpoints with langchain's anthropicPromptCachingMiddleware", () => {
  it.each([
    ["contextview outside", (cv: unknown, cache: unknown) => [cv, cache]],
    ["contextview inside", (cv: unknown, cache: unknown) => [cache, cv]],
  ])("every call gets the request-level breakpoint and at most 3 block breakpoints on stable messages (%s)", async (_, order) => {
    const model = new RecordingAnthropicModel({});
    const agent = createAgent({
      model,
      systemPrompt: "You are a careful finance assistant.",
      checkpointer: new MemorySaver(),
      // langchain's middleware option types do not compile under exactOptionalPropertyTypes; the values are right.
      middleware: order(contextMiddleware({ store: new InMemoryContextStore(), budget: { promptBudget: 3000 }, cacheBreakpoints: true, evidence: "off" }), anthropicPromptCachingMiddleware({ ttl: "5m", unsupportedModelBehavior: "raise" } as never)) as never,
    });
    const config = { configurable: { thread_id: "t-cache", user_id: "u-1" } };
    await agent.invoke({ messages: searchConversation(12, 20) } as never, config as never);
    for (let i = 0; i < 4; i++) await agent.invoke({ messages: [new HumanMessage({ id: `more-${i}`, content: `And turn ${i}?` })] } as never, config as never);

    expect(model.calls).toHaveLength(5);
    for (const call of model.calls) {
      expect(call.cacheControl).toEqual({ type: "ephemeral", ttl: "5m" });
      const blockMarks = call.messages.reduce((n, m) => n + marked(m), 0);
      expect(blockMarks).toBeGreaterThanOrEqual(1);
      // Anthropic allows 4: the request-level one and these.
      expect(blockMarks + 1).toBeLessThanOrEqual(4);
      // The current request is never marked: it changes on every call.
      expect(marked(call.messages.at(-1) as BaseMessage)).toBe(0);
    }
    // Once older turns are dropped, the end of the older turns carries a mark too.
    const last = model.calls.at(-1)?.messages ?? [];
    expect(marked(last.at(-2) as BaseMessage)).toBe(1);
    expect(last[0]?.type).toBe("system");
  });

  it("puts the head breakpoint on the agent's own system message when the view has no summary or excerpts", async () => {
    const model = new RecordingAnthropicModel({});
    const agent = createAgent({
      model,
      systemPrompt: "You are a careful finance assistant.",
      checkpointer: new MemorySaver(),
      middleware: [contextMiddleware({ store: new InMemoryContextStore(), cacheBreakpoints: true, evidence: "off" }), anthropicPromptCachingMiddleware()] as never,
    });
    const config = { configurable: { thread_id: "t-system", user_id: "u-1" } };
    await agent.invoke({ messages: [new HumanMessage({ id: "h0", content: "Hello." })] } as never, config as never);
    await agent.invoke({ messages: [new HumanMessage({ id: "h1", content: "And now?" })] } as never, config as never);
    const [system, ...rest] = model.calls.at(-1)?.messages ?? [];
    expect(system?.content).toEqual([{ type: "text", text: "You are a careful finance assistant.", cache_control: { type: "ephemeral" } }]);
    // The older turn (h0 and its answer) ends with a mark; the current request has none.
    expect(rest.map(marked)).toEqual([0, 1, 0]);
  });
});
