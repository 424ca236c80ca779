import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextViewError } from "@contextview/core";
import { countCacheBreakpoints, markCacheBreakpoints } from "@contextview/core/internal";
import { OPENING_REQUEST_LABEL } from "../../src/view/pinned.js";
import { keptInTurn } from "../../src/view/clear-step";
import { chooseKept } from "../../src/view/select";
import { heldEvidence } from "../../src/evidence/held-evidence";
import { deepFreeze, snapshot } from "@contextview/test-support";

/** `n` agent turns with one search each (results of ~`resultChars` characters), then a current request. */
function agentTurns(n: number, resultChars = 1800): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: what did I spend on groceries in week ${i}?` }));
    out.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `call-${i}`, name: "search", args: { week: i }, type: "tool_call" }] }));
    out.push(new ToolMessage({ id: `t${i}`, tool_call_id: `call-${i}`, name: "search", content: `week ${i}: ${"groceries 12.50; ".repeat(Math.ceil(resultChars / 17))}`.slice(0, resultChars) }));
    out.push(new AIMessage({ id: `f${i}`, content: `You spent ${i * 3}.50 in week ${i}.` }));
  }
  out.push(new HumanMessage({ id: "current", content: "And in total?" }));
  return out;
}

const results = (ids: string[]) => ids.map((id) => new ToolMessage({ tool_call_id: id, content: "x" }));
/** Ids of the results `keptInTurn` would clear, for results given oldest first. */
function clearedIds(ids: string[], keepRecent: number, clearStep: number): string[] {
  const kept = keptInTurn(results(ids), { seen: 0, clearing: false }, keepRecent, clearStep);
  return ids.slice(0, ids.length - kept);
}

describe("clearing tool results in steps (keptInTurn)", () => {
  it.each([
    [1, 3],
    [4, 3],
    [8, 2],
  ])("clearStep %i keeps between keepRecent and keepRecent + 4 × (clearStep − 1) results whole (keepRecent %i)", (clearStep, keepRecent) => {
    for (let n = 0; n < 60; n++) {
      const ids = Array.from({ length: n }, (_, i) => `call-${i}`);
      const kept = n - clearedIds(ids, keepRecent, clearStep).length;
      expect(kept).toBeGreaterThanOrEqual(Math.min(n, keepRecent));
      expect(kept).toBeLessThanOrEqual(keepRecent + 4 * (clearStep - 1));
      if (clearStep === 1) expect(kept).toBe(Math.min(n, keepRecent));
    }
  });

  it("changes the cleared set only in steps as results arrive, and only by clearing more", () => {
    const changes = (clearStep: number) => {
      let previous: string[] = [];
      let changed = 0;
      for (let n = 1; n <= 200; n++) {
        const cleared = clearedIds(Array.from({ length: n }, (_, i) => `call-${i}`), 3, clearStep);
        expect(cleared.slice(0, previous.length)).toEqual(previous);
        if (cleared.length !== previous.length) changed++;
        previous = cleared;
      }
      return changed;
    };
    expect(changes(1)).toBe(197);
    expect(changes(4)).toBeLessThan(197 / 2);
  });

  it("walks across turns: the state carries the count and the boundary", () => {
    const state = { seen: 0, clearing: false };
    const ids = Array.from({ length: 12 }, (_, i) => `call-${i}`);
    const newer = keptInTurn(results(ids.slice(6)), state, 3, 1);
    const older = keptInTurn(results(ids.slice(0, 6)), state, 3, 1);
    expect([newer, older, state.seen, state.clearing]).toEqual([3, 0, 12, true]);
  });
});

describe("chooseKept: the oldest kept turn is the strongest anchor in range", () => {
  const turns = Array.from({ length: 40 }, (_, i) => ({ tokens: 100, key: `turn-${i}` }));

  it("keeps exactly what fits when dropStep is 0, and never more than fits", () => {
    expect(chooseKept(turns, 17, 1700, 0)).toBe(17);
    for (let fit = 1; fit < 40; fit++) {
      const kept = chooseKept(turns, fit, fit * 100, 0.25);
      expect(kept).toBeGreaterThanOrEqual(1);
      expect(kept).toBeLessThanOrEqual(fit);
      expect(kept * 100).toBeGreaterThanOrEqual(Math.min(fit * 100 * 0.25, 100));
    }
  });

  it("holds the same oldest kept turn while the room moves a little", () => {
    // Turns newest first; the room grows by one turn at a time as a conversation would add them.
    const oldest = (room: number) => {
      const fit = Math.min(turns.length, Math.floor(room / 100));
      return turns[chooseKept(turns, fit, room, 0.25) - 1]?.key;
    };
    let moves = 0;
    for (let room = 1000; room < 3000; room += 100) if (oldest(room) !== oldest(room + 100)) moves++;
    expect(moves).toBeLessThan(20 / 2);
  });
});

describe("buildContext: a head that moves in steps", () => {
  /**
   * Calls on which the view's prefix before the current turn changed, over a growing
   * conversation, and the characters of it sent again after the first change (what a
   * provider's prefix cache could not serve).
   */
  function prefixChanges(options: { clearStep: number; dropStep: number }): { changes: number; calls: number; resent: number } {
    const all = agentTurns(60);
    let previous: string | undefined;
    let changes = 0;
    let calls = 0;
    let resent = 0;
    for (let n = 8; n <= 60; n++) {
      const messages = [...all.slice(0, n * 4), new HumanMessage({ id: `q${n}`, content: "Next?" })];
      const view = buildContext({ messages, budget: { promptBudget: 6000 }, excerptBudget: 0, ...options });
      const older = view.messages.slice(0, view.messages.length - 1);
      const text = JSON.stringify(older.map((m) => [m.type, m.content]));
      // The previous call's older part is a prefix of this one's when nothing before it changed.
      if (previous !== undefined && !text.startsWith(previous.slice(0, -1))) {
        changes++;
        let same = 0;
        while (same < previous.length - 1 && previous[same] === text[same]) same++;
        resent += previous.length - 1 - same;
      }
      previous = text;
      calls++;
    }
    return { changes, calls, resent };
  }

  it("rewrites the older part of the view on fewer calls, and sends less of it again, than clearing and dropping exactly what is needed", () => {
    const exact = prefixChanges({ clearStep: 1, dropStep: 0 });
    const stepped = prefixChanges({ clearStep: 4, dropStep: 0.25 });
    expect(exact.changes).toBeGreaterThan(exact.calls / 2);
    expect(stepped.changes).toBeLessThan(exact.changes * 0.6);
    // Measured: stepped 249,936 characters re-sent against 338,563 exact (508,600 exact while the
    // band of cleared turns took at most BAND_SHARE of the room without steps too; it takes all of it now).
    expect(stepped.resent).toBeLessThan(exact.resent * 0.8);
  });

  it("rejects a clearStep below 1 and a cacheBreakpoints that is not a boolean", () => {
    expect(() => buildContext({ messages: [], clearStep: 0 })).toThrow("Expected `clearStep` to be a positive integer, got 0");
    expect(() => buildContext({ messages: [], cacheBreakpoints: "yes" as never })).toThrow(ContextViewError);
  });
});

describe("Anthropic cache breakpoints", () => {
  const marks = (messages: readonly BaseMessage[]) => messages.flatMap((m, i) => (Array.isArray(m.content) && m.content.some((b) => typeof b === "object" && b !== null && "cache_control" in b) ? [i] : []));

  it("buildContext marks the end of the head and of the older turns, with the same estimate and text", () => {
    const messages = deepFreeze(agentTurns(30));
    const before = snapshot(messages);
    const historyMessage = new AIMessage("Summary: the user tracks groceries by week.");
    const plain = buildContext({ messages, systemPrompt: "You are careful.", historyMessage, budget: { promptBudget: 6000 } });
    const marked = buildContext({ messages, systemPrompt: "You are careful.", historyMessage, budget: { promptBudget: 6000 }, cacheBreakpoints: true });
    expect(snapshot(messages)).toBe(before);
    expect(marked.report.tokens.total).toBe(plain.report.tokens.total);
    // system, the pinned block (label, opening request), label, summary, older turns…, current request:
    // the head is everything before the older turns, the pinned block included.
    expect(plain.messages.slice(1, 3).map((m) => m.content)).toEqual([OPENING_REQUEST_LABEL, messages[0]?.content]);
    const headEnd = 4;
    const olderEnd = marked.messages.length - 2;
    expect(plain.messages[headEnd]?.type).toBe("ai");
    // The last older message is the answer of the newest older turn.
    expect(marks(marked.messages)).toEqual([headEnd, olderEnd]);
    expect(marked.messages[headEnd]?.content).toEqual([{ type: "text", text: plain.messages[headEnd]?.content, cache_control: { type: "ephemeral" } }]);
    expect(marked.messages.map((m) => m.text)).toEqual(plain.messages.map((m) => m.text));
  });

  it("marks the system prompt when there is no head, and passes a mark on a tool-call message without text to the message before", () => {
    const messages = [
      new HumanMessage({ id: "h0", content: "Find it." }),
      new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "search", args: {}, type: "tool_call" }] }),
      new ToolMessage({ id: "t0", tool_call_id: "c0", content: "found" }),
      new AIMessage({ id: "f0", content: "" }),
      new HumanMessage({ id: "h1", content: "Thanks." }),
    ];
    const view = buildContext({ messages, systemPrompt: "Be brief.", cacheBreakpoints: true });
    // f0 has no text: the older turn's mark goes on the tool result before it.
    expect(marks(view.messages)).toEqual([0, 3]);
  });

  it("never sets more than 3 block breakpoints, counting the caller's, and keeps the caller's", () => {
    const callerMarked = (text: string) => new HumanMessage({ content: [{ type: "text", text, cache_control: { type: "ephemeral" } }] });
    const base = [new SystemMessage("s"), new HumanMessage("a"), new AIMessage("b"), new HumanMessage("c"), new AIMessage("d"), new HumanMessage("e")];
    expect(countCacheBreakpoints(markCacheBreakpoints(base, [0, 2, 4]))).toBe(3);
    const withOne = [base[0] as BaseMessage, callerMarked("a"), ...base.slice(2)];
    const out = markCacheBreakpoints(withOne, [0, 2, 4]);
    expect(marks(out)).toEqual([0, 1, 2]);
    const withThree = [callerMarked("s"), callerMarked("a"), callerMarked("b"), ...base.slice(3)];
    expect(markCacheBreakpoints(withThree, [4])).toEqual(withThree);
    // An end that already carries a mark is left as it is.
    expect(marks(markCacheBreakpoints(withOne, [1]))).toEqual([1]);
  });
});

describe("heldEvidence", () => {
  const envelope = (cursor: number, entries: { index: number; messageId: string }[]) =>
    new AIMessage({
      content: JSON.stringify({ contextview_evidence: { cursor, constraints: entries.map((e) => ({ role: "user", excerpt: "keep rent under 900", truncated: false, ...e })), decisions: [], openWork: [], recentContext: [] } }),
    });
  const messages = agentTurns(5);

  it("holds while every excerpt quotes the same message id at the same position", () => {
    expect(heldEvidence(envelope(8, [{ index: 4, messageId: "h1" }]), messages)).toEqual({ cursor: 8 });
  });

  it.each([
    ["another id at the position (a fork or an edit)", envelope(8, [{ index: 4, messageId: "h2" }])],
    ["an entry at or past the cursor", envelope(4, [{ index: 4, messageId: "h1" }])],
    ["a cursor past the conversation", envelope(99, [])],
    ["a message that is not an evidence envelope", new AIMessage("Summary: nothing to see.")],
  ])("does not hold for %s", (_, message) => {
    expect(heldEvidence(message, messages)).toBeNull();
  });
});
