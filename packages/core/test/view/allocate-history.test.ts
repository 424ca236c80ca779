import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { allocateHistory, recallReserve, type AllocateOptions } from "../../src/view/allocate-history";
import { findTurns } from "../../src/view/find-turns";
import { OlderTurns } from "../../src/view/older-turns";
import { emptyPrepareTally, minMessageTokens, prepareTurn } from "../../src/view/prepare-turn";

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

function olderOf(messages: BaseMessage[]): OlderTurns {
  const walk = findTurns(messages);
  const ctx = { walk, estimator, tally: emptyPrepareTally(), imageInputs: true, limits: { maxTextTokens: 2000, maxProseTokens: 500 } };
  return new OlderTurns(walk, (from, to) => prepareTurn(ctx, from, to, false), minMessageTokens(estimator));
}

const options = (over: Partial<AllocateOptions> = {}): AllocateOptions => ({ excerptBudget: 0, dropStep: 0, recallBudget: 4000, maxToolResultTokens: 400, ...over });

function keptTokens(older: OlderTurns, kept: number): number {
  let sum = 0;
  for (let j = 0; j < kept; j++) sum += older.prepared[j]!.tokens;
  return sum;
}

describe("allocateHistory: the history's room split between evidence, relevance, excerpts and recency", () => {
  it("keeps every older turn and takes nothing from them when all fit", () => {
    const older = olderOf(chat(3));
    const allocation = allocateHistory({ older, room: 20_000, summaryTokens: 0, options: options(), estimator });
    expect(allocation).toMatchObject({ all: true, kept: 3, dropped: false, reserve: 0 });
    // The claim is there (the block may use the room the turns leave), but no turn gave it up.
    expect(allocation.relevance).toBe(4000);
  });

  it("leaves the relevance reserve out of the older turns' room when some must go", () => {
    const older = olderOf(chat(60));
    const room = 3000;
    const allocation = allocateHistory({ older, room, summaryTokens: 0, options: options(), estimator });
    expect(allocation.dropped).toBe(true);
    expect(allocation.relevance).toBe(1500);
    expect(allocation.kept).toBeGreaterThan(0);
    // dropStep 0: the most whole turns that fit what relevance leaves, and not one more.
    expect(keptTokens(older, allocation.kept)).toBeLessThanOrEqual(room - 1500);
    expect(keptTokens(older, allocation.kept + 1)).toBeGreaterThan(room - 1500);
    const without = allocateHistory({ older: olderOf(chat(60)), room, summaryTokens: 0, options: options({ recallBudget: 0 }), estimator });
    expect(without.relevance).toBe(0);
    expect(without.kept).toBeGreaterThan(allocation.kept);
  });

  it("gives evidence its room first, and relevance at most half of what it leaves", () => {
    const older = olderOf(chat(60));
    const allocation = allocateHistory({ older, room: 3000, summaryTokens: 1000, options: options(), estimator });
    expect(allocation).toMatchObject({ summaryIncluded: true, headTokens: 1000, relevance: 1000 });
    expect(keptTokens(older, allocation.kept)).toBeLessThanOrEqual(3000 - 1000 - 1000);
    const tooLarge = allocateHistory({ older: olderOf(chat(60)), room: 3000, summaryTokens: 3001, options: options(), estimator });
    expect(tooLarge).toMatchObject({ summaryIncluded: false, headTokens: 0, relevance: 1500 });
  });

  it("keeps room for excerpts of dropped turns when neither a summary nor a relevance reserve is taken", () => {
    const older = olderOf(chat(60));
    const allocation = allocateHistory({ older, room: 3000, summaryTokens: 0, options: options({ excerptBudget: 300, recallBudget: 0 }), estimator });
    expect(allocation.reserve).toBeGreaterThan(300);
    expect(allocation.relevance).toBe(0);
    expect(keptTokens(older, allocation.kept)).toBeLessThanOrEqual(3000 - allocation.reserve);
    const withSummary = allocateHistory({ older: olderOf(chat(60)), room: 3000, summaryTokens: 500, options: options({ excerptBudget: 300, recallBudget: 0 }), estimator });
    expect(withSummary.reserve).toBe(0);
  });

  it("gives the excerpts' room to the relevance reserve when recall takes one, within recallBudget", () => {
    const excerpts = allocateHistory({ older: olderOf(chat(60)), room: 3000, summaryTokens: 0, options: options({ excerptBudget: 300, recallBudget: 0 }), estimator }).reserve;
    const older = olderOf(chat(60));
    const allocation = allocateHistory({ older, room: 3000, summaryTokens: 0, options: options({ excerptBudget: 300 }), estimator });
    expect(allocation.reserve).toBe(0);
    expect(allocation.relevance).toBe(1500 + excerpts);
    expect(keptTokens(older, allocation.kept)).toBeLessThanOrEqual(3000 - allocation.relevance);
    // The recency room is the same as beside the excerpts: only who fills the reserve changed.
    const beside = allocateHistory({ older: olderOf(chat(60)), room: 3000 - 1500, summaryTokens: 0, options: options({ excerptBudget: 300, recallBudget: 0 }), estimator });
    expect(allocation.kept).toBe(beside.kept);
    // recallBudget still bounds the reserve.
    const bounded = allocateHistory({ older: olderOf(chat(60)), room: 3000, summaryTokens: 0, options: options({ excerptBudget: 300, recallBudget: 1600 }), estimator });
    expect(bounded).toMatchObject({ relevance: 1600, reserve: 0 });
    // So does the room: when half of it and the excerpts' room are more than it holds, it is all the reserve.
    const small = allocateHistory({ older: olderOf(chat(60)), room: 500, summaryTokens: 0, options: options({ excerptBudget: 300 }), estimator });
    expect(small).toMatchObject({ relevance: 500, reserve: 0, kept: 0 });
  });

  it("keeps the excerpts' room in the relevance reserve beside durable evidence alone, not beside a summary", () => {
    const excerpts = allocateHistory({ older: olderOf(chat(60)), room: 3000, summaryTokens: 0, options: options({ excerptBudget: 300, recallBudget: 0 }), estimator }).reserve;
    const opts = options({ excerptBudget: 300 });
    const summary = allocateHistory({ older: olderOf(chat(60)), room: 3000, summaryTokens: 400, options: opts, estimator });
    const olderBeside = olderOf(chat(60));
    const evidence = allocateHistory({ older: olderBeside, room: 3000, summaryTokens: 400, evidenceOnly: true, options: opts, estimator });
    // A summary stands for the dropped turns: half of what it leaves. Evidence does not: the excerpts' room too.
    expect(summary.relevance).toBe(recallReserve(3000, 400, 4000));
    expect(evidence.relevance).toBe(recallReserve(3000, 400, 4000, excerpts));
    expect(evidence.relevance).toBeGreaterThan(summary.relevance);
    expect(evidence).toMatchObject({ summaryIncluded: true, headTokens: 400, reserve: 0 });
    expect(keptTokens(olderBeside, evidence.kept)).toBeLessThanOrEqual(3000 - 400 - evidence.relevance);
    // Without a relevance reserve (recall off, a brief) evidence alone changes nothing: no excerpts beside it.
    const off = allocateHistory({ older: olderOf(chat(60)), room: 3000, summaryTokens: 400, evidenceOnly: true, options: options({ excerptBudget: 300, recallBudget: 0 }), estimator });
    expect(off).toMatchObject({ relevance: 0, reserve: 0 });
  });

  it("sets the relevance reserve by the room alone, never by what the turns hold", () => {
    for (const room of [800, 3000, 6000, 12_000]) {
      const a = allocateHistory({ older: olderOf(chat(400, 20, "a")), room, summaryTokens: 0, options: options(), estimator });
      const b = allocateHistory({ older: olderOf(chat(120, 90, "b")), room, summaryTokens: 0, options: options(), estimator });
      expect(a.dropped && b.dropped).toBe(true);
      expect(a.relevance).toBe(recallReserve(room, 0, 4000));
      expect(b.relevance).toBe(a.relevance);
    }
  });

  it("keeps the next turn with its results cleared (dropStep 0) and counts it as kept, not dropped", () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ id: "h0", content: "Find the invoices." }),
      new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "search", args: { q: "invoices" }, type: "tool_call" }] }),
      new ToolMessage({ id: "t0", tool_call_id: "c0", name: "search", content: "invoice row ".repeat(600) }),
      new AIMessage({ id: "f0", content: "Found 600 invoices." }),
      new HumanMessage({ id: "h1", content: "Thanks." }),
      new AIMessage({ id: "f1", content: "You are welcome." }),
      new HumanMessage({ id: "current", content: "And the total?" }),
    ];
    const older = olderOf(messages);
    const allocation = allocateHistory({ older, room: 300, summaryTokens: 0, options: options({ recallBudget: 0 }), estimator });
    expect(allocation.kept).toBe(1);
    expect(allocation.cleared?.results).toBe(1);
    // Every older turn is in the view, one of them cleared: nothing was dropped.
    expect(allocation.dropped).toBe(false);
  });

  it("shows no summary when none is given, whatever the estimator says of no messages", () => {
    // A token counter that adds a request's priming tokens to every list, the empty one too.
    const priming = { ...estimator, estimateMessages: (list: readonly BaseMessage[]) => 3 + estimator.estimateMessages(list) };
    // Recall off: with a relevance reserve, recall takes the excerpts' room.
    const input = { messages: chat(60), budget: { promptBudget: 4000, contextWindow: 32_768 }, excerptBudget: 300, recallBudget: 0 };
    const view = buildContext({ ...input, estimator: priming });
    // Without a summary, the dropped turns get their excerpts, as with the plain estimator.
    expect(view.report.droppedTurnExcerpts).toBeGreaterThan(0);
    expect(view.report.droppedTurnExcerpts).toBe(buildContext(input).report.droppedTurnExcerpts);
  });

  it("is the allocation buildContext places: the older turns shown leave the reserve to the recalled block", () => {
    const view = buildContext({ messages: chat(60), budget: { promptBudget: 4000, contextWindow: 32_768 }, dropStep: 0, excerptBudget: 0 });
    const { tokens } = view.report;
    const historyRoom = view.report.limit - tokens.system - tokens.memories - tokens.tools - tokens.pinned - tokens.current;
    const reserve = recallReserve(historyRoom, 0, 4000);
    expect(view.report.recall.outcome).toBe("recalled");
    expect(reserve).toBeGreaterThan(0);
    expect(tokens.history).toBeLessThanOrEqual(historyRoom - reserve);
    // dropStep 0: the older turns fill what the reserve leaves but for less than one turn.
    expect(tokens.history).toBeGreaterThan(historyRoom - reserve - 250);
    expect(tokens.history + tokens.recall).toBeLessThanOrEqual(historyRoom);
  });
});
