// Odd but legal LangChain inputs are read; anything else is refused with a typed error
// naming the field. Never a TypeError from deep inside, never a silent NaN.
import { buildContext, ContextViewError, createContextManager, createEstimator, type MessageInput } from "@contextview/core";
import { AIMessage, ChatMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

function typedError(run: () => unknown): ContextViewError {
  try {
    run();
  } catch (error) {
    expect(ContextViewError.isInstance(error)).toBe(true);
    return error as ContextViewError;
  }
  throw new Error("expected a typed error");
}

describe("ChatMessage roles", () => {
  it.each([
    ["user", "human"],
    ["assistant", "ai"],
    ["human", "human"],
    ["ai", "ai"],
  ])("reads a ChatMessage of role %s as a %s message", (role, type) => {
    const view = buildContext({ messages: [new HumanMessage({ id: "h0", content: "start" }), new ChatMessage({ id: "c", role, content: "from a ChatMessage" }), new HumanMessage("now")] });
    const read = view.messages.find((m) => m.id === "c");
    expect(read?.type).toBe(type);
    expect(read?.content).toBe("from a ChatMessage");
  });

  it("reads a leading ChatMessage of role system as the system prompt", () => {
    const view = buildContext({ messages: [new ChatMessage({ role: "system", content: "Be brief." }), new HumanMessage("now")] });
    expect(view.messages[0]?.type).toBe("system");
    expect(view.messages[0]?.content).toContain("Be brief.");
  });

  it("refuses a ChatMessage of role tool without a tool_call_id, and an unknown role, naming the message", () => {
    expect(typedError(() => buildContext({ messages: [new ChatMessage({ role: "tool", content: "x" }), new HumanMessage("now")] })).message).toMatch(/messages\[0\]\.tool_call_id/);
    expect(typedError(() => buildContext({ messages: [new ChatMessage({ role: "narrator", content: "x" }), new HumanMessage("now")] })).code).toBe("INVALID_MESSAGES");
  });
});

describe("bad values get typed errors naming the field", () => {
  const now = () => new HumanMessage("now");
  it.each<[string, () => unknown, RegExp]>([
    ["content: 5 in a dict", () => buildContext({ messages: [{ type: "human", content: 5 }] }), /messages\[0\]\.content/],
    [
      "content: 5 on a message",
      () => {
        const m = new HumanMessage("x");
        (m as unknown as { content: unknown }).content = 5;
        return buildContext({ messages: [m] });
      },
      /messages\[0\]\.content/,
    ],
    ["tools: 5", () => buildContext({ messages: [now()], tools: 5 as never }), /`tools`/],
    ["memories: 5", () => buildContext({ messages: [now()], memories: 5 as never }), /`memories`/],
    ["estimator: {}", () => buildContext({ messages: [now()], estimator: {} as never }), /`estimator`/],
    ["estimator: {} in the manager", () => createContextManager({ estimator: {} as never }), /`estimator`/],
    ["summarizerTimeoutMs: 2^31", () => createContextManager({ summarizerTimeoutMs: 2 ** 31 }), /summarizerTimeoutMs.*2147483647/],
  ])("%s", (_, run, field) => {
    expect(typedError(run).message).toMatch(field);
  });

  it("accepts the longest timer Node honours", () => {
    expect(() => createContextManager({ summarizerTimeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });

  it("refuses tool-call arguments that cannot serialize (a BigInt in a null-prototype object)", () => {
    const args = Object.create(null) as Record<string, unknown>;
    args["n"] = 10n;
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "f", args }] });
    const error = typedError(() => buildContext({ messages: [new HumanMessage("q"), call, new ToolMessage({ tool_call_id: "c1", content: "r" }), new HumanMessage("now")] }));
    expect(error.code).toBe("INVALID_MESSAGES");
    expect(error.message).toMatch(/tool_calls\[0\]\.args.*BigInt/);
  });

  it("refuses them from the manager too, where the recall index reads the arguments first (fuzz seed 1206385453)", async () => {
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "f", args: { n: 10n } }] });
    // The view's walk stops long before the call (the budget is spent on the newer turns); the index reads every message.
    const later = Array.from({ length: 20 }, (_, i) => [new HumanMessage(`question ${i} ${"about budgets ".repeat(20)}`), new AIMessage(`answer ${i} ${"about budgets ".repeat(20)}`)]).flat();
    const messages = [new HumanMessage("q"), call, new ToolMessage({ tool_call_id: "c1", content: "r" }), ...later, new HumanMessage("what about budgets now")];
    const manager = createContextManager({ budget: { promptBudget: 1000 } });
    const error = await manager.build({ messages, key: { userId: "u", conversationId: "c" } }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ContextViewError);
    expect((error as ContextViewError).code).toBe("INVALID_MESSAGES");
    expect((error as ContextViewError).message).toMatch(/`messages\[1\]\.tool_calls\[0\]\.args`.*BigInt/);
  });

  it.each([
    ["a cycle", () => {
      const block: Record<string, unknown> = { type: "data" };
      block["self"] = block;
      return block;
    }],
    ["a BigInt", () => ({ type: "data", value: 10n })],
  ])("refuses a content block holding %s instead of estimating it at a marker's size", (_, block) => {
    const error = typedError(() => createEstimator().estimateMessage(new HumanMessage({ content: [block()] as never })));
    expect(error.code).toBe("INVALID_MESSAGES");
    expect(error.message).toMatch(/content\[0\]/);
  });
});

describe("estimator and tokenizer results are checked", () => {
  const big = () => [new HumanMessage("x".repeat(100_000))];
  it.each<[string, unknown]>([
    ["undefined", undefined],
    ["NaN", Number.NaN],
    ["an array", [1, 2]],
    ["-1", -1],
    ["1.5", 1.5],
    ["Infinity", Number.POSITIVE_INFINITY],
  ])("a tokenizer returning %s throws INVALID_OPTION naming `tokenizer`", (_, result) => {
    const estimator = createEstimator({ tokenizer: () => result as number });
    const error = typedError(() => buildContext({ messages: big(), budget: { promptBudget: 1000 }, estimator }));
    expect(error.code).toBe("INVALID_OPTION");
    expect(error.message).toMatch(/`tokenizer`/);
  });

  it("a custom estimator returning NaN throws INVALID_OPTION naming the method", () => {
    const estimator = { ...createEstimator(), estimateMessage: () => Number.NaN };
    expect(typedError(() => buildContext({ messages: big(), estimator })).message).toMatch(/`estimator\.estimateMessage`/);
  });
});

describe("bounding older messages", () => {
  it("never makes an older message larger than it was (2,000 one-token blocks)", () => {
    const estimator = createEstimator();
    for (const Kind of [HumanMessage, AIMessage]) {
      const old = new Kind({ id: "old", content: Array.from({ length: 2000 }, () => ({ type: "text", text: "a" })) as never });
      const view = buildContext({
        messages: [new HumanMessage("start"), old, new HumanMessage("then"), new AIMessage("ok"), new HumanMessage("now")],
        maxOlderMessageTokens: 100,
        budget: { contextWindow: 200_000, promptBudget: 100_000 },
      });
      const shown = view.messages.find((m) => m.id === "old") as BaseMessage;
      expect(estimator.estimateMessage(shown)).toBeLessThanOrEqual(estimator.estimateMessage(old));
      expect(estimator.estimateMessage(shown)).toBeLessThan(200);
    }
  });

  it("leaves a short older message as it is when its limit is 0 (a marker would be larger)", () => {
    const view = buildContext({ messages: [new HumanMessage({ id: "old", content: "hi" }), new AIMessage("ok"), new HumanMessage("now")], maxOlderMessageTokens: 0 });
    expect(view.messages.find((m) => m.id === "old")?.content).toBe("hi");
  });
});

describe("input dicts are never mutated", () => {
  it.each<[string, MessageInput]>([
    ["a LangChain serialized constructor dict", { lc: 1, type: "constructor", id: ["langchain_core", "messages", "HumanMessage"], kwargs: { content: "hello", id: "h1" } }],
    ["a serialized AI message with tool calls", { lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "", id: "a1", tool_calls: [{ id: "c1", name: "f", args: { q: 1 } }] } }],
    ["a stored message", { type: "human", data: { content: "hello", id: "h2" } }],
    ["a role dict", { role: "user", content: "hello" }],
  ])("%s", (_, dict) => {
    const before = JSON.stringify(dict);
    const tail: MessageInput[] = (dict as { kwargs?: { tool_calls?: unknown } }).kwargs?.tool_calls ? [new ToolMessage({ tool_call_id: "c1", content: "r" })] : [];
    buildContext({ messages: [new HumanMessage("start"), dict, ...tail, new HumanMessage("now")] });
    expect(JSON.stringify(dict)).toBe(before);
  });
});
