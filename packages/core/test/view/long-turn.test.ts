import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextBudgetError, createEstimator } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { deepFreeze, providerOrderProblems, snapshot, thrownBy, viewProblems } from "@contextview/test-support";

const estimator = createEstimator();
const noEnv = { contextWindow: 32768, responseReserve: 4096 };

/** One user request answered with `n` tool exchanges; exchange i returns `rows` rows and reuses an id found in exchange i - 1. */
function longTurn(n: number, rows = 12, parallel = 1): BaseMessage[] {
  const messages: BaseMessage[] = [
    new SystemMessage("You are a booking agent."),
    new HumanMessage({ id: "h0", content: "Book me the cheapest flight to Lisbon." }),
    new AIMessage({ id: "a0", content: "Sure." }),
    new HumanMessage({ id: "req", content: "Find and book three options, then pay with my saved card." }),
  ];
  for (let i = 0; i < n; i++) {
    const calls = Array.from({ length: parallel }, (_, p) => ({ id: `call-${i}-${p}`, name: i % 3 === 0 ? "search_flights" : "get_reservation", args: { query: `leg ${i}`, reservation_id: `RES-${i - 1}`, note: "x".repeat(i % 5 === 0 ? 600 : 20) } }));
    messages.push(new AIMessage({ id: `ai-${i}`, content: i % 4 === 0 ? `Step ${i}: checking.` : "", tool_calls: calls }));
    for (const call of calls) {
      const data = { reservation_id: `RES-${i}`, count: rows, rows: Array.from({ length: rows }, (_, r) => ({ id: `F${i}-${r}`, price: 100 + r, text: "seat ".repeat(20) })) };
      messages.push(new ToolMessage({ id: `tool-${call.id}`, tool_call_id: call.id, name: call.name, content: JSON.stringify(data) }));
    }
  }
  return messages;
}

describe("a long current turn", () => {
  it.each([
    [30, 3000],
    [150, 8000],
    [300, 5000],
    [12, 3000],
  ])("of %i tool exchanges at a %i-token budget fits, keeps the newest exchange whole and counts every exchange", (n, promptBudget) => {
    const messages = deepFreeze(longTurn(n));
    const before = snapshot(messages);
    const input = { messages, budget: { ...noEnv, promptBudget } };
    const view = buildContext(input);
    expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => buildContext(input).messages }, view)).toEqual([]);
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    // The newest exchange: the call with intact arguments and its result.
    const last = messages.at(-2) as AIMessage;
    const shownCall = view.messages.find((m) => m.type === "ai" && (m as AIMessage).tool_calls?.[0]?.id === last.tool_calls?.[0]?.id) as AIMessage | undefined;
    expect(shownCall?.tool_calls?.[0]?.args).toEqual(last.tool_calls?.[0]?.args);
    expect(view.messages.at(-1)?.type).toBe("tool");
    const { currentTurn } = view.report;
    expect(currentTurn.exchanges).toBe(n);
    expect(currentTurn.kept + currentTurn.compacted + currentTurn.cleared + currentTurn.excerpted).toBe(n);
    expect(currentTurn.kept).toBeGreaterThanOrEqual(1);
    // The request is the first message of the current turn.
    expect(view.messages.some((m) => m.id === "req" && m.content === (messages[3] as HumanMessage).content)).toBe(true);
  });

  it("degrades older exchanges newest first: never a fuller form than a newer one, the oldest as excerpt lines with their arguments", () => {
    const messages = deepFreeze(longTurn(60));
    const view = buildContext({ messages, budget: { ...noEnv, promptBudget: 6000 } });
    const { currentTurn } = view.report;
    expect(currentTurn.excerpted).toBeGreaterThan(0);
    expect(currentTurn.kept + currentTurn.compacted + currentTurn.cleared).toBeGreaterThan(2);
    const excerpt = view.messages.find((m) => m.type === "ai" && String(m.content).startsWith("Earlier steps of this turn"));
    expect(excerpt).toBeDefined();
    // An excerpted call still shows its arguments' values (the ids the agent found).
    expect(String(excerpt?.content)).toMatch(/reservation_id":"RES-\d+"/);
    expect(String(excerpt?.content)).toContain("untrusted".replace("u", "U"));
    // Shown older exchanges come in conversation order, after the excerpt, before the newest.
    const shownIds = view.messages.filter((m) => m.type === "ai" && m.id?.startsWith("ai-")).map((m) => Number(m.id?.slice(3)));
    expect(shownIds).toEqual([...shownIds].sort((a, b) => a - b));
    expect(shownIds.at(-1)).toBe(59);
    expect(shownIds[0]).toBe(currentTurn.excerpted);
    expect(view.report.toolResults.cleared).toBeGreaterThanOrEqual(0);
  });

  it("compacts or clears older results before it excerpts their exchanges, keeping each result's tool_call_id", () => {
    const messages = deepFreeze(longTurn(80, 40));
    const view = buildContext({ messages, budget: { ...noEnv, promptBudget: 4000 } });
    const tools = view.messages.filter((m): m is ToolMessage => m.type === "tool");
    for (const tool of tools) {
      const call = view.messages.find((m) => (m as AIMessage).tool_calls?.some((c) => c.id === tool.tool_call_id));
      expect(call).toBeDefined();
    }
    expect(view.report.currentTurn.cleared + view.report.currentTurn.compacted).toBeGreaterThan(0);
  });

  it("with parallel calls, never splits a call from its results", () => {
    const messages = deepFreeze(longTurn(40, 10, 3));
    const before = snapshot(messages);
    const view = buildContext({ messages, budget: { ...noEnv, promptBudget: 4000 } });
    expect(viewProblems({ conversation: messages, messages, before, estimator }, view)).toEqual([]);
  });

  it("puts a user-role label between the excerpt of its oldest steps and an answer right after it (Gemini refuses two model turns in a row)", () => {
    // Each older call's arguments are too long to show in any form: all of them go to the excerpt.
    const messages: BaseMessage[] = [new HumanMessage({ id: "req", content: "Write the five files, then tell me." })];
    for (let i = 0; i < 5; i++) {
      messages.push(new AIMessage({ id: `ai-${i}`, content: "", tool_calls: [{ id: `call-${i}`, name: "write_file", args: { path: `f${i}.ts`, text: "y".repeat(3000) } }] }));
      messages.push(new ToolMessage({ id: `tool-${i}`, tool_call_id: `call-${i}`, content: "ok" }));
    }
    messages.push(new AIMessage({ id: "answer", content: "All five files are written." }));
    expect(providerOrderProblems(messages)).toEqual([]);
    const view = buildContext({ messages: deepFreeze(messages), budget: { ...noEnv, promptBudget: 800 } });
    expect(view.report.currentTurn).toMatchObject({ kept: 1, excerpted: 5 });
    expect(providerOrderProblems(view.messages)).toEqual([]);
  });

  it("with the cache steps, sends the excerpt and the exchanges from the anchor on again while the loop goes on", () => {
    const excerptOf = (view: { messages: BaseMessage[] }) => view.messages.find((m) => m.type === "ai" && String(m.content).startsWith("Earlier steps of this turn"));
    const run = (dropStep: number) => {
      const calls: { first: string | undefined; excerpt: string }[] = [];
      for (let n = 40; n <= 100; n++) {
        const view = buildContext({ messages: deepFreeze(longTurn(n)), budget: { ...noEnv, promptBudget: 6000 }, dropStep });
        expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
        const first = view.messages.find((m) => m.type === "ai" && m.id?.startsWith("ai-"))?.id;
        calls.push({ first, excerpt: String(excerptOf(view)?.content ?? "") });
      }
      let held = 0;
      let excerpts = 1;
      calls.slice(1).forEach((call, k) => {
        const before = calls[k]!;
        if (call.excerpt !== before.excerpt) excerpts++;
        // The excerpt changes only when the anchor moves.
        if (dropStep > 0 && call.excerpt !== before.excerpt) expect(call.first).not.toBe(before.first);
        // Calls that keep the anchor and the excerpt: their prompt starts as the previous one's.
        if (call.first === before.first && call.excerpt === before.excerpt) held++;
      });
      return { held, excerpts, calls: calls.length, lines: (calls.at(-1)!.excerpt.match(/^- /gm) ?? []).length };
    };
    const stepped = run(0.25);
    const exact = run(0);
    // Exact fitting makes the excerpt again on most calls; the steps hold it between anchors.
    expect(exact.excerpts).toBeGreaterThan(exact.calls / 2);
    expect(stepped.excerpts).toBeLessThan(exact.excerpts / 2);
    expect(stepped.held).toBeGreaterThan((2 * stepped.calls) / 3);
    // The held excerpt may take more room than excerptBudget: it lists more of the calls before the anchor.
    expect(stepped.lines).toBeGreaterThan(exact.lines);
  });

  it("reads the text of the results it can show, not of every exchange (a 300-exchange turn at 5,000 tokens)", () => {
    const messages = longTurn(300);
    const results = new Set(messages.flatMap((m) => (m.type === "tool" ? [m.content as string] : [])));
    const read = new Set<string>();
    const base = createEstimator();
    const noting = (text: unknown) => {
      if (typeof text === "string" && results.has(text)) read.add(text);
    };
    const counting = {
      estimateText: (text: string) => (noting(text), base.estimateText(text)),
      estimateMessage: (message: BaseMessage) => (noting(message.content), base.estimateMessage(message)),
      estimateMessages: (list: BaseMessage[]) => (list.forEach((m) => noting(m.content)), base.estimateMessages(list)),
      estimateTools: (tools: unknown[]) => base.estimateTools(tools),
    };
    const view = buildContext({ messages, budget: { ...noEnv, promptBudget: 5000 }, estimator: counting });
    const turn = view.report.currentTurn;
    expect(turn.form).toBe("long");
    expect(turn.excerpted).toBeGreaterThan(250);
    // The exchanges shown, and those the fitting tried and gave up, are read; the excerpted ones only by their first characters.
    expect(read.size).toBeGreaterThanOrEqual(turn.kept);
    expect(read.size).toBeLessThan(results.size / 5);
  });

  it("raises only when the request and the newest exchange do not fit, naming both", () => {
    const messages = [...longTurn(10)];
    messages.push(new AIMessage({ id: "big", content: "", tool_calls: [{ id: "big-call", name: "write_file", args: { text: "y".repeat(30_000) } }] }));
    messages.push(new ToolMessage({ tool_call_id: "big-call", content: "ok" }));
    const error = thrownBy<ContextBudgetError>(() => buildContext({ messages, budget: { ...noEnv, promptBudget: 3000 } }), ContextBudgetError.isBudgetError);
    expect(error.parts["newestExchange"]).toBeGreaterThan(9000);
    expect(error.parts["request"]).toBeGreaterThan(0);
    expect(error.message).toMatch(/newestExchange \d+/);
  });
});

describe("a long current turn's report (dropStep 0)", () => {
  /** Only the current turn: a request and `n` exchanges of one call each, every result `rows` rows of ~25 tokens. */
  function currentOnly(n: number, rows: number): BaseMessage[] {
    const messages: BaseMessage[] = [new HumanMessage({ id: "req", content: "Check every leg of the trip, then book it." })];
    for (let i = 0; i < n; i++) {
      messages.push(new AIMessage({ id: `ai-${i}`, content: "", tool_calls: [{ id: `call-${i}`, name: "get_leg", args: { leg: i }, type: "tool_call" }] }));
      const data = { leg: i, count: rows, rows: Array.from({ length: rows }, (_, r) => ({ id: `L${i}-${r}`, price: 100 + r, text: "seat ".repeat(20) })) };
      messages.push(new ToolMessage({ id: `tool-${i}`, tool_call_id: `call-${i}`, name: "get_leg", content: JSON.stringify(data) }));
    }
    return messages;
  }

  it.each([
    [8, 40, 2500],
    [16, 40, 2500],
    [16, 40, 4000],
    [16, 10, 2500],
    [30, 20, 3000],
  ])("of %i exchanges of %i rows at %i tokens counts each exchange once, in the form its results are shown", (n, rows, promptBudget) => {
    const messages = deepFreeze(currentOnly(n, rows));
    const view = buildContext({ messages, budget: { ...noEnv, promptBudget }, dropStep: 0 });
    expect(viewProblems({ conversation: messages }, view)).toEqual([]);
    const { currentTurn, toolResults } = view.report;
    expect(currentTurn.exchanges).toBe(n);
    expect(currentTurn.kept + currentTurn.compacted + currentTurn.cleared + currentTurn.excerpted).toBe(n);
    // Each shown older exchange (one call, one result) as the model sees it: the result cleared, compacted or whole.
    const results = view.messages.filter((m): m is ToolMessage => m.type === "tool");
    const newest = `call-${n - 1}`;
    const older = results.filter((m) => m.tool_call_id !== newest);
    const formOf = (m: ToolMessage) => compactionMarkerOf(m)?.form;
    const shown = { cleared: older.filter((m) => formOf(m) === "cleared").length, compacted: older.filter((m) => formOf(m) === "json" || formOf(m) === "text").length };
    expect({ cleared: currentTurn.cleared, compacted: currentTurn.compacted }).toEqual(shown);
    // The same results in the counters: a result counted as cleared is not an exchange counted as compacted.
    expect(toolResults.cleared).toBe(results.filter((m) => formOf(m) === "cleared").length);
    expect(currentTurn.compacted + toolResults.cleared).toBeLessThanOrEqual(n - currentTurn.excerpted);
  });

  it.each([
    [4, 10, 1500],
    [4, 40, 1500],
    [8, 40, 2500],
    [16, 40, 2500],
    [16, 10, 4000],
  ])("after two older turns, of %i exchanges of %i rows at %i tokens counts each shown result once in toolResults, and no result of a turn that went", (n, rows, promptBudget) => {
    const older: BaseMessage[] = [0, 1].flatMap((t) => [
      new HumanMessage({ id: `h${t}`, content: `Earlier request ${t}` }),
      new AIMessage({ id: `oa${t}`, content: "", tool_calls: [{ id: `old-${t}`, name: "search", args: { t }, type: "tool_call" }] }),
      new ToolMessage({ id: `ot${t}`, tool_call_id: `old-${t}`, name: "search", content: JSON.stringify({ count: rows, rows: Array.from({ length: rows }, (_, r) => ({ id: `O${t}-${r}`, price: r, text: "seat ".repeat(20) })) }) }),
      new AIMessage({ id: `or${t}`, content: `Answer ${t}` }),
    ]);
    const messages = deepFreeze([...older, ...currentOnly(n, rows)]);
    const view = buildContext({ messages, budget: { ...noEnv, promptBudget }, dropStep: 0 });
    expect(viewProblems({ conversation: messages }, view)).toEqual([]);
    // No result came in compacted: every marker in the view is this view's, one per result shown.
    const forms = view.messages.filter((m): m is ToolMessage => m.type === "tool").map((m) => compactionMarkerOf(m)?.form);
    const shown = { cleared: forms.filter((f) => f === "cleared").length, compacted: forms.filter((f) => f === "json" || f === "text").length, narrowed: forms.filter((f) => f === "narrowed").length };
    expect(view.report.toolResults).toEqual(shown);
  });
});
