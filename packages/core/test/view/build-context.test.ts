import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ContextOverflowError } from "@langchain/core/errors";
import { buildContext, ContextBudgetError, ContextViewError, createEstimator } from "@contextview/core";
import { HISTORY_LABEL, IMAGE_PLACEHOLDER } from "@contextview/core/internal";
import { OPENING_REQUEST_LABEL } from "../../src/view/pinned.js";
import { conversation, deepFreeze, snapshot, turnMessages, thrownBy } from "@contextview/test-support";

const estimator = createEstimator();
const noEnv = { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096 };

const errorOf = (run: () => unknown) => thrownBy<unknown>(run);

describe("buildContext: a conversation that fits", () => {
  const messages = deepFreeze(
    conversation(
      [
        { text: "What did I spend on groceries?", calls: [{ parallel: 2, resultSize: 200 }], answer: "You spent 120 on groceries." },
        { text: "And on rent?", answer: "Rent was 900." },
      ],
      "You are a finance assistant.",
    ),
  );

  it("keeps every message, as copies, and never mutates the frozen input", () => {
    const before = snapshot(messages);
    const { messages: view, report } = buildContext({ messages, budget: noEnv });
    expect(snapshot(messages)).toBe(before);
    expect(view).toHaveLength(messages.length);
    view.forEach((message, i) => {
      expect(message).not.toBe(messages[i]);
      expect(message.type).toBe(messages[i]?.type);
      expect(message.content).toEqual(messages[i]?.content);
    });
    expect(report.messages).toEqual({ inCheckpoint: messages.length, summarized: 0, providerCompacted: 0, read: messages.length, unread: 0, kept: messages.length, dropped: 0 });
    expect(report.allHistoryRead).toBe(true);
    expect(report.turns).toEqual({ read: 2, kept: 2, dropped: 0 });
    expect(report.tokens.total).toBe(estimator.estimateMessages(view));
    expect(report.tokens.total).toBeLessThanOrEqual(report.limit);
  });

  it("is deterministic", () => {
    const a = buildContext({ messages, budget: noEnv });
    const b = buildContext({ messages, budget: noEnv });
    expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages));
    expect({ ...a.report, elapsedMs: 0 }).toEqual({ ...b.report, elapsedMs: 0 });
  });

  it("uses systemPrompt instead of leading system messages, and appends memories within their budget", () => {
    const { messages: view, report } = buildContext({
      messages,
      systemPrompt: "Be brief.",
      memories: ["Prefers euros", "x".repeat(30000), "Lives in Lyon"],
      budget: noEnv,
    });
    expect(view[0]).toBeInstanceOf(SystemMessage);
    expect(view[0]?.content).toContain("Be brief.");
    expect(view[0]?.content).toContain("Prefers euros");
    expect(view[0]?.content).not.toContain("Lives in Lyon"); // kept in order; the oversized one stops the block
    expect(view.filter((m) => m.type === "system")).toHaveLength(1);
    expect(report.memories).toEqual({ in: 3, kept: 1 });
    expect(report.tokens.memories).toBeGreaterThan(0);
    expect(report.tokens.memories).toBeLessThanOrEqual(1000);
  });

  it("accepts LangChain's serialized dicts and OpenAI-style dicts", () => {
    const dicts = JSON.parse(JSON.stringify(messages)) as Record<string, unknown>[];
    const { messages: view } = buildContext({ messages: [...dicts, { role: "user", content: "one more" }], budget: noEnv });
    expect(view.map((m) => m.type)).toEqual([...messages.map((m) => m.type), "human"]);
    expect(view.at(-1)?.content).toBe("one more");
  });
});

describe("buildContext: exchanges", () => {
  it("drops orphan results and unfinished calls, counting them", () => {
    const messages = deepFreeze([
      new HumanMessage({ id: "h1", content: "first" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: {} }, { id: "c2", name: "search", args: {} }] }),
      new ToolMessage({ id: "t1", tool_call_id: "c1", content: "only one result: the run was cancelled" }),
      new ToolMessage({ id: "t0", tool_call_id: "nobody", content: "orphan" }),
      new HumanMessage({ id: "h2", content: "second" }),
      new ToolMessage({ id: "t2", tool_call_id: "c9", content: "orphan after a user message" }),
      new AIMessage({ id: "a2", content: "", tool_calls: [{ id: "c3", name: "search", args: { q: 1 } }] }),
      new ToolMessage({ id: "t3", tool_call_id: "c3", content: "done" }),
    ]);
    const { messages: view, report } = buildContext({ messages, budget: noEnv });
    expect(view.map((m) => m.id)).toEqual(["h1", "h2", "a2", "t3"]);
    expect(report.orphanResults).toBe(2 + 0); // "nobody" follows c1's partial run; c9 follows a user message
    expect(report.unfinishedCalls).toBe(1);
    expect(report.messages.dropped).toBe(4);
  });

  it("keeps parallel results together whatever their order", () => {
    const messages = conversation([{ text: "q", calls: [{ parallel: 4, resultSize: 100, reverse: true }], answer: "a" }]);
    const { messages: view } = buildContext({ messages, budget: noEnv });
    const call = view.find((m) => m instanceof AIMessage && (m.tool_calls?.length ?? 0) > 0) as AIMessage;
    const at = view.indexOf(call);
    const results = view.slice(at + 1, at + 5) as ToolMessage[];
    expect(new Set(results.map((r) => r.tool_call_id))).toEqual(new Set(call.tool_calls?.map((c) => c.id)));
  });

  it("leaves out system messages after the start and labels a conversation that opens with the assistant", () => {
    const messages = [new AIMessage({ id: "a0", content: "Hello! How can I help?" }), new SystemMessage({ id: "s1", content: "late instruction" }), new HumanMessage({ id: "h1", content: "hi" })];
    const { messages: view, report } = buildContext({ messages, budget: noEnv });
    expect(view[0]?.type).toBe("human");
    expect(view.some((m) => m.type === "system")).toBe(false);
    expect(report.misplacedSystemMessages).toBe(1);
    expect(report.labelsInserted).toBe(1);
  });
});

describe("buildContext: over budget", () => {
  const longHistory = () =>
    conversation(
      Array.from({ length: 60 }, (_, i) => ({ text: `question ${i} ${"about my budget ".repeat(40)}`, calls: i % 3 === 0 ? [{ parallel: 2, resultSize: 3000 }] : [], answer: `answer ${i} ${"details ".repeat(60)}` })),
      "You are a finance assistant.",
    );

  // Turns without tool results: nothing to clear, so the turns that do not fit go, as excerpts.
  const longChat = () =>
    conversation(
      Array.from({ length: 60 }, (_, i) => ({ text: `question ${i} ${"about my budget ".repeat(40)}`, calls: [], answer: `answer ${i} ${"details ".repeat(60)}` })),
      "You are a finance assistant.",
    );

  it("fits the limit, keeps the current turn whole, and excerpts dropped turns in the assistant role", () => {
    const messages = deepFreeze(longChat());
    // Recall off: after turns that call no tool, the recalled block would take the excerpts' room.
    const { messages: view, report } = buildContext({ messages, budget: { ...noEnv, promptBudget: 4000 }, recallBudget: 0 });
    expect(estimator.estimateMessages(view)).toBeLessThanOrEqual(4000);
    expect(report.tokens.total).toBe(estimator.estimateMessages(view));
    const lastHuman = [...messages].reverse().find((m) => m.type === "human") as BaseMessage;
    const tail = messages.slice(messages.indexOf(lastHuman));
    expect(view.slice(-tail.length).map((m) => m.content)).toEqual(tail.map((m) => m.content));
    expect(report.turns.dropped).toBeGreaterThan(0);
    // The opening request is pinned right after the system message, then the excerpts of dropped turns.
    expect(view[1]?.content).toBe(OPENING_REQUEST_LABEL);
    expect(view[2]?.content).toBe(messages[1]?.content);
    expect(report.pinned.openingRequest).toMatchObject({ id: messages[1]?.id, placement: "pinned", excerpted: false });
    expect(view[3]?.content).toBe(HISTORY_LABEL);
    expect(view[4]?.type).toBe("ai");
    expect(String(view[4]?.content)).toMatch(/\nuser: question \d+/);
    expect(String(view[4]?.content)).toMatch(/\nassistant: answer \d+/);
    expect(report.droppedTurnExcerpts).toBeGreaterThan(0);
    // Every message is read or unread; those read and not shown are dropped, the opening request is kept from the unread part.
    expect(report.messages.read + report.messages.unread).toBe(messages.length);
    expect(report.messages.kept + report.messages.dropped + report.messages.unread - 1).toBe(messages.length);
  });

  it("includes a summary message before history, and leaves it out when it would stop the request fitting", () => {
    const messages = longHistory();
    const historyMessage = new AIMessage({ content: "Evidence: the user budgets monthly." });
    const withSummary = buildContext({ messages, historyMessage, budget: { ...noEnv, promptBudget: 4000 } });
    expect(withSummary.messages[4]?.content).toBe("Evidence: the user budgets monthly.");
    expect(withSummary.messages[4]?.type).toBe("ai");
    expect(withSummary.report.history).toMatchObject({ given: true, included: true });
    expect(withSummary.report.droppedTurnExcerpts).toBe(0);

    const huge = new AIMessage({ content: "evidence ".repeat(5000) });
    const without = buildContext({ messages, historyMessage: huge, budget: { ...noEnv, promptBudget: 4000 } });
    expect(without.report.history).toMatchObject({ given: true, included: false, reason: "does-not-fit" });
    expect(without.messages.some((m) => m.content === huge.content)).toBe(false);
  });

  it("throws a ContextBudgetError that LangChain recognises when the current request alone does not fit", () => {
    const messages = [new HumanMessage("x".repeat(30000))];
    const error = errorOf(() => buildContext({ messages, budget: { ...noEnv, promptBudget: 2000 } }));
    expect(ContextBudgetError.isBudgetError(error)).toBe(true);
    expect(ContextOverflowError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(ContextOverflowError);
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect((error as ContextBudgetError).limit).toBe(2000);
    expect((error as ContextBudgetError).required).toBeGreaterThan(10000);
    expect((error as Error).message).toMatch(/current \d+/);
  });

  it("bounds older long text, shortens tool-call prose, replaces older images, and leaves the current turn alone", () => {
    const messages = [
      ...turnMessages({ text: "see this", image: true, answer: "y".repeat(20000) }),
      new HumanMessage({ id: "hx", content: "now" }),
      new AIMessage({ id: "ax", content: "p".repeat(3000), tool_calls: [{ id: "cx", name: "search", args: { q: "z" } }] }),
      new ToolMessage({ id: "tx", tool_call_id: "cx", content: "r" }),
      ...turnMessages({ text: "current with image", image: true }),
    ];
    const { messages: view, report } = buildContext({ messages, budget: noEnv });
    expect(report.imagesReplaced).toBe(1);
    expect(JSON.stringify(view[0]?.content)).toContain(IMAGE_PLACEHOLDER);
    expect(String(view[1]?.content)).toMatch(/\[… excerpt: \d+ of 20000 characters omitted\]/);
    expect(String(view[3]?.content).length).toBeLessThan(1000);
    expect((view[3] as AIMessage).tool_calls?.[0]?.args).toEqual({ q: "z" });
    expect(report.excerpted).toBe(2);
    expect(JSON.stringify(view.at(-1)?.content)).toContain("image_url");
  });

  it("compacts the current turn's large result into the room it has instead of clearing it", () => {
    const rows = Array.from({ length: 480 }, (_, i) => ({ id: `tx-${String(i).padStart(4, "0")}`, date: `2026-0${1 + (i % 6)}-1${i % 10}`, payee: "Fresh Market", amount: i + 0.5 }));
    const payload = { query: "groceries", count: 480, total: 123456.78, transactions: rows };
    const messages = [
      ...conversation(Array.from({ length: 10 }, (_, i) => ({ text: `old ${i} ${"x".repeat(2000)}`, answer: "ok" }))),
      new HumanMessage({ id: "now", content: "Show every grocery transaction" }),
      new AIMessage({ id: "call", content: "", tool_calls: [{ id: "c-all", name: "search_transactions", args: { category: "groceries" } }] }),
      new ToolMessage({ id: "res", tool_call_id: "c-all", name: "search_transactions", content: JSON.stringify(payload) }),
    ];
    const { messages: view, report } = buildContext({ messages, budget: { ...noEnv, promptBudget: 8000 } });
    const result = view.find((m) => m.id === "res") as ToolMessage;
    const text = String(result.content);
    expect(text).toContain("123456.78");
    for (const row of rows) expect(text).toContain(row.id);
    expect(report.toolResults.compacted).toBe(1);
    expect(report.tokens.total).toBeLessThanOrEqual(8000);
  });

  it("moves the head of the view in steps, so prompt caches keep hitting", () => {
    const all = longHistory();
    const heads = (dropStep: number) => {
      let changes = 0;
      let drops = 0;
      let previous = -1;
      for (let end = 20; end <= all.length; end++) {
        if (all[end - 1]?.type !== "human") continue;
        const { report } = buildContext({ messages: all.slice(0, end), budget: { ...noEnv, promptBudget: 6000 }, dropStep });
        if (report.turns.dropped > 0) drops++;
        if (previous !== -1 && report.cut !== previous) changes++;
        previous = report.cut;
      }
      return { changes, drops };
    };
    const exact = heads(0);
    const stepped = heads(0.5);
    expect(exact.drops).toBeGreaterThan(10);
    expect(stepped.changes).toBeLessThan(exact.changes / 2);
  });
});

describe("buildContext: bad input", () => {
  it.each([
    [{ messages: "hello" }, "INVALID_MESSAGES", /`messages` to be an array/],
    [{ messages: [new HumanMessage("a"), 42] }, "INVALID_MESSAGES", /`messages\[1\]`/],
    [{ messages: [{ foo: "bar" }] }, "INVALID_MESSAGES", /`messages\[0\]`/],
    [{ messages: [{ role: "tool", content: "x" }] }, "INVALID_MESSAGES", /`messages\[0\]\.tool_call_id`/],
    [{ messages: [], budget: { promptBudget: -1 } }, "INVALID_OPTION", /`promptBudget`/],
    [{ messages: [], dropStep: 2 }, "INVALID_OPTION", /`dropStep`/],
    [{ messages: [], memories: [1] }, "INVALID_OPTION", /`memories\[0\]`/],
    [{ messages: [], historyMessage: "text" }, "INVALID_OPTION", /`historyMessage`/],
    [{ messages: [], summaryMessage: new AIMessage("s") }, "INVALID_OPTION", /`summaryMessage` was renamed `historyMessage` in 1\.0/],
  ])("%#: rejects with a typed error naming the field", (input, code, message) => {
    const error = errorOf(() => buildContext(input as never));
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect((error as ContextViewError).code).toBe(code);
    expect((error as Error).message).toMatch(message);
  });

  it("rejects a ToolMessage without tool_call_id", () => {
    const bad = new ToolMessage({ content: "x", tool_call_id: "c" });
    (bad as { tool_call_id: string }).tool_call_id = "";
    expect(() => buildContext({ messages: [new HumanMessage("a"), bad] })).toThrow(/`messages\[1\]\.tool_call_id`/);
  });
});
