// The history's room, as buildContext gives it out (issue 48: tests of the allocation's
// contract through buildContext, not of its stages). What the fixed part, the pinned
// block and the current turn leave is split claim by claim in order of value: the
// summary head, a recall reserve when older turns must go, excerpts of the turns left
// out, then the newest older turns in their best form that fits (see docs/concepts.md,
// "Sources, forms and the allocation").
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator, InMemoryContextStore, type BuildContextInput, type ContextView } from "@contextview/core";
import { recallReserve } from "../../src/view/allocate-history";

const estimator = createEstimator();

/** `n` chat turns of about `words` words each, then a current request. */
function chat(n: number, words = 40, tag = "x"): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(new HumanMessage({ id: `${tag}h${i}`, content: `Turn ${i}: ${"tell me about the garden ".repeat(Math.ceil(words / 5))}` }));
    out.push(new AIMessage({ id: `${tag}a${i}`, content: `Reply ${i}: ${"the roses bloom in June ".repeat(Math.ceil(words / 5))}` }));
  }
  out.push(new HumanMessage({ id: `${tag}current`, content: "What about the roses?" }));
  return out;
}

/** `n` turns that each state a budget and an order number (durable evidence), then a current request. */
function facts(n: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: I decided to budget ${100 + i} euros for the garden, order R-${1000 + i}. ${"tell me about the garden ".repeat(6)}` }));
    out.push(new AIMessage({ id: `a${i}`, content: `Reply ${i}: ${"the roses bloom in June ".repeat(8)}` }));
  }
  out.push(new HumanMessage({ id: "current", content: "What about the roses?" }));
  return out;
}

/** The history's room of a view: the limit less the fixed part, the pinned block and the current turn. */
function historyRoom(view: ContextView): number {
  const { tokens, limit } = view.report;
  return limit - tokens.system - tokens.memories - tokens.tools - tokens.pinned - tokens.current;
}

/** Recall and the opening request's pin off unless asked: the older turns' share alone. */
const base = (messages: BaseMessage[], over: Partial<BuildContextInput> = {}): BuildContextInput => ({
  messages,
  budget: { promptBudget: 4000, contextWindow: 32_768 },
  dropStep: 0,
  excerptBudget: 0,
  pinOpeningRequest: false,
  ...over,
});

/** A summary of about `words` words, as the application's history message. */
const summaryOf = (words: number) => new AIMessage({ id: "summary", content: `Summary of the earlier turns: ${"the user plans a rose garden ".repeat(Math.ceil(words / 6))}` });

describe("the history's room through buildContext", () => {
  it("shows every older turn, and recall nothing, when all of them fit", () => {
    const view = buildContext(base(chat(3), { budget: { promptBudget: 16_000, contextWindow: 32_768 } }));
    expect(view.report.turns).toMatchObject({ kept: 4, dropped: 0 });
    expect(view.report.recall.outcome).toBe("nothing-left-out");
    expect(view.report.tokens.recall).toBe(0);
  });

  it("leaves the recall reserve out of the older turns' room when some must go, and fills the rest (dropStep 0)", () => {
    const withRecall = buildContext(base(chat(60)));
    const room = historyRoom(withRecall);
    const reserve = recallReserve(room, 0, 4000);
    expect(reserve).toBe(Math.floor(room / 2));
    expect(withRecall.report.turns.dropped).toBeGreaterThan(0);
    expect(withRecall.report.tokens.history).toBeLessThanOrEqual(room - reserve);
    // No more than one turn's worth of that room stays empty: a turn is about 70 tokens.
    expect(withRecall.report.tokens.history).toBeGreaterThan(room - reserve - 100);
    // The first call of a turn gives recall what the turns leave.
    expect(withRecall.report.recall.outcome).toBe("recalled");
    expect(withRecall.report.tokens.history + withRecall.report.tokens.recall).toBeLessThanOrEqual(room);
    // Recall off: the older turns take the whole room.
    const without = buildContext(base(chat(60), { recallBudget: 0 }));
    expect(without.report.turns.kept).toBeGreaterThan(withRecall.report.turns.kept);
    expect(without.report.tokens.history).toBeGreaterThan(room - 100);
  });

  it("gives the summary its room first, and recall at most half of what it leaves", () => {
    const view = buildContext(base(chat(60), { historyMessage: summaryOf(300) }));
    const room = historyRoom(view);
    const summary = view.report.tokens.summary;
    expect(view.report.history.included).toBe(true);
    expect(summary).toBeGreaterThan(300);
    expect(view.report.tokens.history).toBeLessThanOrEqual(room - summary - recallReserve(room, summary, 4000));
    expect(view.report.tokens.history).toBeGreaterThan(room - summary - recallReserve(room, summary, 4000) - 100);
    // A summary larger than the room is left out, and the older turns get the room again.
    const tooLarge = buildContext(base(chat(60), { historyMessage: summaryOf(6000) }));
    expect(tooLarge.report.history.included).toBe(false);
    expect(tooLarge.report.tokens.history).toBeGreaterThan(view.report.tokens.history);
  });

  it("keeps room for excerpts of the turns left out when neither a summary nor a recall reserve is taken", () => {
    const excerpts = buildContext(base(chat(60), { excerptBudget: 300, recallBudget: 0 }));
    expect(excerpts.report.droppedTurnExcerpts).toBeGreaterThan(0);
    const none = buildContext(base(chat(60), { recallBudget: 0 }));
    // The excerpts' room comes out of the older turns'.
    expect(excerpts.report.turns.kept).toBeLessThan(none.report.turns.kept);
    // Beside a summary, none: it stands for the turns left out.
    const besideSummary = buildContext(base(chat(60), { excerptBudget: 300, recallBudget: 0, historyMessage: summaryOf(100) }));
    expect(besideSummary.report.history.included).toBe(true);
    expect(besideSummary.report.droppedTurnExcerpts).toBe(0);
  });

  it("gives the older turns what the excerpts leave of their room: a turn that fits whole there is not shown as its excerpt", () => {
    const messages = [
      new HumanMessage({ id: "h0", content: `Plan the garden: ${"tell me about the roses and the soil ".repeat(40)}` }),
      new AIMessage({ id: "a0", content: `Here is the plan: ${"the roses bloom in June beside the wall ".repeat(40)}` }),
      new HumanMessage({ id: "h1", content: "Thanks!" }),
      new AIMessage({ id: "a1", content: "You are welcome." }),
      new HumanMessage({ id: "current", content: "When do the roses bloom?" }),
    ];
    // The default excerpts' room (600 tokens) is more than the history's room at these limits.
    for (const promptBudget of [300, 450, 600]) {
      const view = buildContext(base(messages, { budget: { promptBudget, contextWindow: 32_768 }, excerptBudget: 600, recallBudget: 0 }));
      expect(historyRoom(view)).toBeLessThan(600);
      const ids = view.messages.map((m) => m.id);
      // The short turn whole; the long one left out, its excerpt lines in what the short turn leaves.
      expect(ids).toEqual(expect.arrayContaining(["h1", "a1", "current"]));
      expect(ids).not.toContain("h0");
      expect(view.report.turns).toMatchObject({ kept: 2, dropped: 1 });
      expect(view.report.droppedTurnExcerpts).toBe(2);
      const excerpts = view.messages.find((m) => typeof m.content === "string" && m.content.startsWith("Excerpts of earlier turns"));
      expect(excerpts?.content).toContain("Plan the garden");
      expect(excerpts?.content).not.toContain("Thanks!");
      expect(view.report.tokens.total).toBeLessThanOrEqual(promptBudget);
    }
  });

  it("gives the excerpts' room to recall when recall takes a reserve: the older turns keep what they kept beside the excerpts", () => {
    const excerpts = buildContext(base(chat(60), { excerptBudget: 300, recallBudget: 0 }));
    const recall = buildContext(base(chat(60), { excerptBudget: 300 }));
    expect(recall.report.droppedTurnExcerpts).toBe(0);
    expect(recall.report.recall.outcome).toBe("recalled");
    // Half the room and the excerpts' room go to recall: fewer turns than beside the excerpts alone.
    expect(recall.report.turns.kept).toBeLessThan(excerpts.report.turns.kept);
    const room = historyRoom(recall);
    expect(recall.report.tokens.history).toBeLessThanOrEqual(room - recallReserve(room, 0, 4000));
    // recallBudget bounds the reserve: a small one leaves the older turns more.
    const bounded = buildContext(base(chat(60), { excerptBudget: 300, recallBudget: 600 }));
    expect(bounded.report.turns.kept).toBeGreaterThan(recall.report.turns.kept);
    expect(bounded.report.tokens.history).toBeGreaterThan(room - 600 - 100);
  });

  it("keeps the excerpts' room in the recall reserve beside durable evidence alone, not beside a summary", async () => {
    const messages = facts(60);
    // Evidence of the first ten turns, which the view leaves out.
    const evidence = (await new InMemoryContextStore().update("u", "c", messages.slice(0, 20))).asMessage();
    const beside = buildContext(base(messages, { excerptBudget: 300, historyMessage: evidence, evidenceShare: 0.1 }));
    expect(beside.report.history).toMatchObject({ included: true });
    const summary = buildContext(base(messages, { excerptBudget: 300, historyMessage: summaryOf(60) }));
    expect(beside.report.history).toMatchObject({ evidence: true, summary: false });
    const evidenceRoom = historyRoom(beside) - beside.report.tokens.summary;
    const summaryRoom = historyRoom(summary) - summary.report.tokens.summary;
    // Evidence stands for no turn in particular: recall keeps the excerpts' room beside it, so the older turns get less of the room.
    expect(beside.report.tokens.history / evidenceRoom).toBeLessThan(summary.report.tokens.history / summaryRoom);
    expect(summary.report.tokens.history).toBeGreaterThan(summaryRoom - Math.floor(summaryRoom / 2) - 100);
  });

  it("sets the recall reserve by the room alone, never by what the turns hold", () => {
    // Small turns and large ones, the same room: the older turns fill the same share of it, less one turn.
    for (const promptBudget of [3000, 6000, 12_000]) {
      const small = buildContext(base(chat(400, 20, "a"), { budget: { promptBudget, contextWindow: 32_768 } }));
      const large = buildContext(base(chat(120, 90, "b"), { budget: { promptBudget, contextWindow: 32_768 } }));
      for (const view of [small, large]) {
        const room = historyRoom(view);
        expect(view.report.turns.dropped).toBeGreaterThan(0);
        expect(view.report.tokens.history).toBeLessThanOrEqual(room - recallReserve(room, 0, 4000));
        expect(view.report.tokens.history).toBeGreaterThan(room - recallReserve(room, 0, 4000) - 200);
      }
    }
  });

  it("keeps the next turn with its results cleared before it leaves it out, and counts it as kept (dropStep 0)", () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ id: "h0", content: "Find the invoices." }),
      new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "search", args: { q: "invoices" }, type: "tool_call" }] }),
      new ToolMessage({ id: "t0", tool_call_id: "c0", name: "search", content: "invoice row ".repeat(600) }),
      new AIMessage({ id: "f0", content: "Found 600 invoices." }),
      new HumanMessage({ id: "h1", content: "Thanks." }),
      new AIMessage({ id: "f1", content: "You are welcome." }),
      new HumanMessage({ id: "current", content: "And the total?" }),
    ];
    const view = buildContext(base(messages, { recallBudget: 0, budget: { promptBudget: 700, contextWindow: 32_768 } }));
    expect(view.report.toolResults.cleared).toBe(1);
    expect(view.report.turns).toMatchObject({ kept: 3, dropped: 0 });
    // The call keeps its arguments, and its result its id.
    expect((view.messages.find((m) => m.id === "a0") as AIMessage).tool_calls?.[0]).toMatchObject({ id: "c0", args: { q: "invoices" } });
    expect((view.messages.find((m) => m.id === "t0") as ToolMessage).tool_call_id).toBe("c0");
  });

  it("shows no summary when none is given, whatever the estimator says of no messages", () => {
    // A token counter that adds a request's priming tokens to every list, the empty one too.
    const priming = { ...estimator, estimateMessages: (list: readonly BaseMessage[]) => 3 + estimator.estimateMessages(list) };
    // Recall off: with a recall reserve, recall takes the excerpts' room.
    const input = { messages: chat(60), budget: { promptBudget: 4000, contextWindow: 32_768 }, excerptBudget: 300, recallBudget: 0 };
    const view = buildContext({ ...input, estimator: priming });
    // Without a summary, the turns left out get their excerpts, as with the plain estimator.
    expect(view.report.droppedTurnExcerpts).toBeGreaterThan(0);
    expect(view.report.droppedTurnExcerpts).toBe(buildContext(input).report.droppedTurnExcerpts);
  });

  it("places the allocation it weighed: the older turns shown leave the reserve to the recalled block", () => {
    const view = buildContext({ messages: chat(60), budget: { promptBudget: 4000, contextWindow: 32_768 }, dropStep: 0, excerptBudget: 0 });
    const { tokens } = view.report;
    const room = historyRoom(view);
    const reserve = recallReserve(room, 0, 4000);
    expect(view.report.recall.outcome).toBe("recalled");
    expect(reserve).toBeGreaterThan(0);
    expect(tokens.history).toBeLessThanOrEqual(room - reserve);
    // dropStep 0: the older turns fill what the reserve leaves but for less than one turn.
    expect(tokens.history).toBeGreaterThan(room - reserve - 250);
    expect(tokens.history + tokens.recall).toBeLessThanOrEqual(room);
  });

  it("sizes the recall reserve as documented: half the room beside the summary and the excerpts' room, within recallBudget and the room", () => {
    expect(recallReserve(6000, 0, 4000)).toBe(3000);
    expect(recallReserve(6000, 0, 4000, 628)).toBe(3628);
    expect(recallReserve(800, 0, 4000, 628)).toBe(800);
    expect(recallReserve(1200, 400, 1000)).toBe(400);
    expect(recallReserve(6000, 0, 1600, 628)).toBe(1600);
  });
});
