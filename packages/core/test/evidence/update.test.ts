import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { ContextViewError, InMemoryContextStore } from "@contextview/core";
import { utf8Length } from "../../src/text.js";
import { EMPTY_PREFIX_DIGEST, EVIDENCE_BUCKETS, EVIDENCE_LIMITS, type EvidenceEntry } from "../../src/evidence/index.js";
import { EvidenceState, updateEvidence, type EvidenceRecord } from "@contextview/core/store";
import { PREFIX_DIGEST_TAG, summaryPrefixHash } from "../../src/summarize/prefix-hash.js";
import { TOOL_ONLY, conversation, requestIndex, withRequest } from "./fixtures.js";

const entries = (state: EvidenceState): EvidenceEntry[] => EVIDENCE_BUCKETS.flatMap((bucket) => [...state.buckets[bucket]]);
const ids = (state: EvidenceState): string[] => entries(state).map((entry) => entry.messageId);

async function expectCode(promise: Promise<unknown>, code: string, message?: RegExp): Promise<ContextViewError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (err: unknown) => err,
  );
  expect(ContextViewError.isInstance(error)).toBe(true);
  expect((error as ContextViewError).code).toBe(code);
  if (message) expect((error as Error).message).toMatch(message);
  return error as ContextViewError;
}

/** The state one update of `messages` gives from scratch. */
async function fromScratch(messages: readonly BaseMessage[]): Promise<EvidenceState> {
  return new InMemoryContextStore().update("u", "c", messages);
}

describe("update", () => {
  it("summarizes only the messages before the newest user turn", async () => {
    const state = await fromScratch(withRequest(3));
    expect(state.cursor).toBe(requestIndex(3));
    expect(ids(state).sort()).toEqual(["m-a0", "m-a1", "m-a2", "m-h0", "m-h1", "m-h2"]);
  });

  it("lets the last completed turn in when the next request arrives", async () => {
    const store = new InMemoryContextStore();
    const before = await store.update("u", "c", conversation(3));
    expect(before.cursor).toBe(requestIndex(2));
    expect(ids(before)).not.toContain("m-a2");
    const after = await store.update("u", "c", withRequest(3));
    expect(ids(after)).toEqual(expect.arrayContaining(["m-h2", "m-a2"]));
    expect(ids(after)).not.toContain("m-h3");
  });

  it("keeps tool content, artifacts and tool-call prose out", async () => {
    const state = await fromScratch(withRequest(6));
    expect(JSON.stringify(state)).not.toContain(TOOL_ONLY);
    expect(state.asMessage()?.content).not.toContain(TOOL_ONLY);
    for (const id of ids(state)) expect(id).toMatch(/^m-[ha]\d+$/);
  });

  it("keeps role, message id, index and an excerpt marker on every entry", async () => {
    const messages = withRequest(2);
    const state = await fromScratch(messages);
    for (const entry of entries(state)) {
      const source = messages[entry.index] as BaseMessage;
      expect(source.id).toBe(entry.messageId);
      expect(entry.role).toBe(source.type === "human" ? "user" : "assistant");
      expect(entry.excerpt).toBe(source.content);
      expect(entry.truncated).toBe(false);
    }
  });

  it("changes nothing for a repeated snapshot", async () => {
    const store = new InMemoryContextStore();
    const first = await store.update("u", "c", withRequest(4));
    const again = await store.update("u", "c", withRequest(4));
    expect(again.toJSON()).toEqual(first.toJSON());
  });

  it("treats a snapshot shorter than the cursor as stale", async () => {
    const store = new InMemoryContextStore();
    const state = await store.update("u", "c", withRequest(4));
    const stale = await store.update("u", "c", withRequest(1));
    expect(stale.toJSON()).toEqual(state.toJSON());
    expect((await store.load("u", "c")).cursor).toBe(requestIndex(4));
  });

  it.each([
    ["content", (m: BaseMessage[]) => (m[1] = new HumanMessage({ id: "m-h0", content: "edited" }))],
    ["id", (m: BaseMessage[]) => (m[1] = new HumanMessage({ id: "other", content: (m[1] as BaseMessage).content }))],
    ["tool result", (m: BaseMessage[]) => (m[3] = new ToolMessage({ id: "m-t0", tool_call_id: "m-call0", content: "changed" }))],
    ["tool-call arguments", (m: BaseMessage[]) => (m[2] = new AIMessage({ id: "m-c0", content: "x", tool_calls: [{ id: "m-call0", name: "lookup", args: { turn: 9 } }] }))],
  ])("throws PREFIX_CHANGED when a summarized %s changes, and keeps the state", async (_, edit) => {
    const store = new InMemoryContextStore();
    const state = await store.update("u", "c", withRequest(3));
    const changed = withRequest(4);
    edit(changed);
    await expectCode(store.update("u", "c", changed), "PREFIX_CHANGED", /new conversation key/);
    expect((await store.load("u", "c")).toJSON()).toEqual(state.toJSON());
  });

  it.each([
    ["content", (m: BaseMessage[]) => (m[1] = new HumanMessage({ id: "m-h0", content: "We must keep the edited budget." }))],
    ["tool-call arguments", (m: BaseMessage[]) => (m[2] = new AIMessage({ id: "m-c0", content: "x", tool_calls: [{ id: "m-call0", name: "lookup", args: { turn: 9 } }] }))],
  ])("with onPrefixChange rebuild, a changed summarized %s rebuilds from the snapshot: the state a fresh update gives", async (_, edit) => {
    const store = new InMemoryContextStore();
    await store.update("u", "c", withRequest(3));
    const changed = withRequest(4);
    edit(changed);
    const rebuilds: unknown[] = [];
    const state = await store.update("u", "c", changed, { onPrefixChange: "rebuild", onRebuild: (r) => void rebuilds.push(r) });
    expect(state.toJSON()).toEqual((await fromScratch(changed)).toJSON());
    expect((await store.load("u", "c")).toJSON()).toEqual(state.toJSON());
    expect(rebuilds).toEqual([{ previousCursor: requestIndex(3), cursor: requestIndex(4), messagesRead: requestIndex(4) }]);
  });

  it("with onPrefixChange rebuild, an earlier checkpoint (time travel) moves the cursor back to it", async () => {
    const store = new InMemoryContextStore();
    await store.update("u", "c", withRequest(5));
    const fork = [...withRequest(2).slice(0, requestIndex(2)), new HumanMessage({ id: "fork", content: "A new branch" })];
    let rebuilt = 0;
    const state = await store.update("u", "c", fork, { onPrefixChange: "rebuild", onRebuild: () => void rebuilt++ });
    expect(state.cursor).toBe(requestIndex(2));
    expect(state.toJSON()).toEqual((await fromScratch(fork)).toJSON());
    expect(rebuilt).toBe(1);
    // Without rebuild, the same earlier snapshot is stale and changes nothing (the contract stores rely on).
    const other = new InMemoryContextStore();
    const kept = await other.update("u", "c", withRequest(5));
    expect((await other.update("u", "c", fork)).toJSON()).toEqual(kept.toJSON());
  });

  it("refuses an unknown onPrefixChange with a typed error", async () => {
    await expectCode(new InMemoryContextStore().update("u", "c", withRequest(1), { onPrefixChange: "merge" as never }), "INVALID_OPTION", /onPrefixChange/);
  });

  it("records the digest of the summarized prefix", async () => {
    expect(EvidenceState.empty().prefixDigest).toBe(EMPTY_PREFIX_DIGEST);
    const state = await fromScratch(withRequest(2));
    expect(state.prefixDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(state.prefixDigest).not.toBe(EMPTY_PREFIX_DIGEST);
    // The same prefix followed by anything else gives the same digest.
    const other = await fromScratch([...withRequest(2), new AIMessage({ id: "x", content: "later" })]);
    expect(other.prefixDigest).toBe(state.prefixDigest);
  });

  it("reads serialized messages exactly like BaseMessages", async () => {
    const messages = withRequest(5);
    const lc = JSON.parse(JSON.stringify(messages)) as Record<string, unknown>[];
    const plain = messages.map((m) => ({ type: m.type, id: m.id, content: m.content, tool_calls: (m as AIMessage).tool_calls, tool_call_id: (m as ToolMessage).tool_call_id }));
    const expected = (await fromScratch(messages)).toJSON();
    expect((await new InMemoryContextStore().update("u", "c", lc)).toJSON()).toEqual(expected);
    expect((await new InMemoryContextStore().update("u", "c", plain)).toJSON()).toEqual(expected);
  });

  it("bounds excerpts, buckets and the serialized state, counting what it evicts", async () => {
    const messages: BaseMessage[] = [];
    for (let i = 0; i < 40; i++) {
      messages.push(new HumanMessage({ id: `h${i}`, content: `We must keep ${"é".repeat(3000)} ${i}` }));
      messages.push(new AIMessage({ id: `a${i}`, content: `${"ok ".repeat(i % 5)}Noted ${i}` }));
    }
    messages.push(new HumanMessage({ id: "now", content: "current" }));
    const state = await fromScratch(messages);
    for (const bucket of EVIDENCE_BUCKETS) expect(state.buckets[bucket].length).toBeLessThanOrEqual(EVIDENCE_LIMITS.maxEntriesPerBucket);
    for (const entry of entries(state)) expect(utf8Length(entry.excerpt)).toBeLessThanOrEqual(EVIDENCE_LIMITS.maxExcerptBytes);
    expect(state.estimatedTokens).toBeLessThanOrEqual(EVIDENCE_LIMITS.maxStateTokens);
    expect(state.omitted + entries(state).length).toBe(80);
    expect(state.buckets.constraints.every((e) => e.truncated && e.excerpt.endsWith("[…]"))).toBe(true);
  });

  it("evicts the oldest entries of the largest bucket first", async () => {
    const messages: BaseMessage[] = [new HumanMessage({ id: "d0", content: "Let's go with A" }), new AIMessage({ id: "d1", content: "We decided on B" })];
    for (let i = 0; i < 8; i++) messages.push(new HumanMessage({ id: `c${i}`, content: `Never ${"x".repeat(880)} ${i}` }));
    messages.push(new HumanMessage({ id: "now", content: "current" }));
    const state = await fromScratch(messages);
    expect(state.buckets.decisions.map((e) => e.messageId)).toEqual(["d0", "d1"]);
    const kept = state.buckets.constraints.map((e) => e.messageId);
    expect(kept.length).toBeLessThan(6);
    expect(kept[kept.length - 1]).toBe("c7");
    expect(kept).toEqual([...kept].sort());
    expect(state.omitted).toBe(8 - kept.length);
  });

  it("ends in the same state whether a history arrives at once or turn by turn", async () => {
    const turn = fc.record({
      user: fc.oneof(fc.constantFrom("We must hurry", "Let's go with it", "TODO later", "hi"), fc.string({ unit: "grapheme", maxLength: 1500 })),
      calls: fc.boolean(),
      answer: fc.oneof(fc.constant(""), fc.string({ unit: "grapheme-ascii", maxLength: 1200 }), fc.constant("We decided. Next step pending.")),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(turn, { minLength: 1, maxLength: 14 }), fc.array(fc.nat(200), { maxLength: 6 }), async (turns, cuts) => {
        const messages: BaseMessage[] = [new SystemMessage({ id: "s", content: "sys" })];
        turns.forEach((t, i) => {
          messages.push(new HumanMessage({ id: `h${i}`, content: t.user }));
          if (t.calls) {
            messages.push(new AIMessage({ id: `c${i}`, content: t.answer, tool_calls: [{ id: `k${i}`, name: "f", args: {} }] }));
            messages.push(new ToolMessage({ id: `t${i}`, tool_call_id: `k${i}`, content: TOOL_ONLY }));
          }
          messages.push(new AIMessage({ id: `a${i}`, content: t.answer }));
        });
        const store = new InMemoryContextStore();
        let cursor = 0;
        for (const cut of [...cuts.map((c) => c % (messages.length + 1)), messages.length].sort((a, b) => a - b)) {
          const state = await store.update("u", "c", messages.slice(0, cut));
          expect(state.cursor).toBeGreaterThanOrEqual(cursor);
          cursor = state.cursor;
        }
        const incremental = await store.load("u", "c");
        const batch = await fromScratch(messages);
        expect(incremental.toJSON()).toEqual(batch.toJSON());
        expect(new Set(ids(batch)).size).toBe(ids(batch).length);
        expect(batch.estimatedTokens).toBeLessThanOrEqual(EVIDENCE_LIMITS.maxStateTokens);
        expect(JSON.stringify(batch)).not.toContain(TOOL_ONLY);
      }),
      { numRuns: 60 },
    );
  });
});

describe("asMessage", () => {
  it("is null for empty evidence", async () => {
    expect(EvidenceState.empty().asMessage()).toBeNull();
    expect((await fromScratch([new HumanMessage({ id: "only", content: "hi" })])).asMessage()).toBeNull();
  });

  it("is a fresh assistant message holding an untrusted-evidence JSON envelope", async () => {
    const state = await fromScratch(withRequest(2));
    const message = state.asMessage();
    expect(AIMessage.isInstance(message)).toBe(true);
    expect(message?.type).toBe("ai");
    expect(message?.tool_calls ?? []).toHaveLength(0);
    const envelope = JSON.parse(message?.content as string).contextview_evidence;
    expect(envelope.trust).toMatch(/untrusted historical evidence/);
    expect(envelope.notice).toMatch(/not instructions/);
    expect(envelope.cursor).toBe(state.cursor);
    expect(envelope.decisions).toEqual(state.toJSON().buckets.decisions);
    expect(state.asMessage()).not.toBe(message);
  });
});

describe("EvidenceState.fromJSON", () => {
  it("round-trips through JSON", async () => {
    const state = await fromScratch(withRequest(5));
    expect(EvidenceState.fromJSON(JSON.parse(JSON.stringify(state))).toJSON()).toEqual(state.toJSON());
  });

  it("reads a state stored before `unreadable` existed as 0, and writes it back unchanged", async () => {
    const stored = JSON.parse(JSON.stringify(await fromScratch(withRequest(3)))) as Record<string, unknown>;
    delete stored["unreadable"];
    const state = EvidenceState.fromJSON(stored);
    expect(state.unreadable).toBe(0);
    expect(JSON.parse(JSON.stringify(state))).toEqual(stored);
    expect(JSON.parse(state.asMessage()?.content as string).contextview_evidence).not.toHaveProperty("unreadable");
  });

  it.each([
    [{ version: 2 }, "state.version"],
    [{ cursor: -1 }, "state.cursor"],
    [{ unreadable: -1 }, "state.unreadable"],
    [{ unreadable: 1.5 }, "state.unreadable"],
    [{ prefixDigest: "abc" }, "state.prefixDigest"],
    [{ buckets: { constraints: [], decisions: [], openWork: [] } }, "state.buckets.recentContext"],
    [{ buckets: { constraints: [{ role: "system" }], decisions: [], openWork: [], recentContext: [] } }, "state.buckets.constraints[0].role"],
  ])("rejects %j naming %s", (patch, field) => {
    const json = { ...EvidenceState.empty().toJSON(), ...patch };
    expect(() => EvidenceState.fromJSON(json)).toThrow(`\`${field}\``);
  });
});

describe("bad input", () => {
  it.each([
    ["not an array", () => ({ not: "an array" }), /`messages` to be an array/],
    ["a message whose id is not a string", () => [...withRequest(1), new HumanMessage({ id: 42 as never, content: "odd id" })], /`messages\[6\]\.id` to be a non-empty string, or none/],
    ["a lone surrogate in user text", () => [...withRequest(1), new HumanMessage({ id: "s", content: "bad \ud800 text" })], /`messages\[6\]\.content` to be well-formed/],
    ["something that is no message", () => [...withRequest(1), 42], /`messages\[6\]`/],
  ])("refuses %s with INVALID_MESSAGES and keeps the state", async (_, input, message) => {
    const store = new InMemoryContextStore({ maxMessageBytes: 1024 });
    const state = await store.update("u", "c", withRequest(1));
    await expectCode(store.update("u", "c", input() as never), "INVALID_MESSAGES", message);
    expect((await store.load("u", "c")).toJSON()).toEqual(state.toJSON());
  });

  it("accepts a lone surrogate in tool content, which never enters evidence", async () => {
    const messages = withRequest(2);
    messages[3] = new ToolMessage({ id: "m-t0", tool_call_id: "m-call0", content: "cut \ud83d" });
    await expect(fromScratch(messages)).resolves.toBeInstanceOf(EvidenceState);
  });
});

describe("messages over maxMessageBytes", () => {
  const LIMIT = 1024;
  const big = (fill: string) => `${fill.repeat(LIMIT)} the end`;
  /** `withRequest(turns)` whose first tool result (index 3) is over `LIMIT`. */
  const withBigResult = (turns: number, fill = "x"): BaseMessage[] => {
    const messages = withRequest(turns);
    messages[3] = new ToolMessage({ id: "m-t0", tool_call_id: "m-call0", content: `${TOOL_ONLY} ${big(fill)}` });
    return messages;
  };

  it("keeps summarizing past a tool result over it, which evidence never reads: the cursor moves on, nothing is counted", async () => {
    const store = new InMemoryContextStore({ maxMessageBytes: LIMIT });
    await store.update("u", "c", withRequest(0));
    const first = await store.update("u", "c", withBigResult(1));
    expect(first.cursor).toBe(requestIndex(1));
    const later = await store.update("u", "c", withBigResult(3));
    expect(later.cursor).toBe(requestIndex(3));
    expect(ids(later)).toEqual(expect.arrayContaining(["m-h0", "m-a0", "m-h1", "m-a1", "m-h2", "m-a2"]));
    expect(later.unreadable).toBe(0);
    expect(later.toJSON()).not.toHaveProperty("unreadable");
    // The limit changes nothing for a message evidence never reads.
    expect(later.toJSON()).toEqual((await fromScratch(withBigResult(3))).toJSON());
  });

  it.each([
    ["user", (fill: string) => new HumanMessage({ id: "m-h1", content: big(fill) })],
    ["assistant", (fill: string) => new AIMessage({ id: "m-a1", content: big(fill) })],
  ])("counts %s text over it as unreadable, leaves it out and reads the turns after it", async (role, make) => {
    const messages = withRequest(3);
    const index = role === "user" ? 5 : 8;
    messages[index] = make("é");
    const store = new InMemoryContextStore({ maxMessageBytes: LIMIT });
    await store.update("u", "c", messages.slice(0, requestIndex(1) + 1));
    const state = await store.update("u", "c", messages);
    expect(state.cursor).toBe(requestIndex(3));
    expect(state.unreadable).toBe(1);
    expect(ids(state)).not.toContain(messages[index]?.id);
    expect(ids(state)).toEqual(expect.arrayContaining(["m-h2", "m-a2"]));
    expect(state.toJSON().unreadable).toBe(1);
    expect(EvidenceState.fromJSON(JSON.parse(JSON.stringify(state))).toJSON()).toEqual(state.toJSON());
    const envelope = JSON.parse(state.asMessage()?.content as string).contextview_evidence;
    expect(envelope.unreadable).toBe(1);
    expect(envelope.notice).toMatch(/`unreadable` counts/);
    // Counted once, however the history arrives, and the same in a rebuild.
    expect((await store.update("u", "c", messages)).unreadable).toBe(1);
    const rebuilt = await new InMemoryContextStore({ maxMessageBytes: LIMIT }).update("u", "c", messages);
    expect(rebuilt.toJSON()).toEqual(state.toJSON());
    // Under a larger limit the same text is read.
    expect((await fromScratch(messages)).unreadable).toBe(0);
  });

  it("hashes a large message whole: an edit inside it is a changed prefix", async () => {
    const store = new InMemoryContextStore({ maxMessageBytes: LIMIT });
    const state = await store.update("u", "c", withBigResult(2));
    const edited = withBigResult(3);
    const content = edited[3]?.content as string;
    const middle = Math.floor(content.length / 2);
    edited[3] = new ToolMessage({ id: "m-t0", tool_call_id: "m-call0", content: `${content.slice(0, middle)}y${content.slice(middle + 1)}` });
    await expectCode(store.update("u", "c", edited), "PREFIX_CHANGED");
    expect((await store.load("u", "c")).toJSON()).toEqual(state.toJSON());
    const rebuilt = await store.update("u", "c", edited, { onPrefixChange: "rebuild" });
    expect(rebuilt.toJSON()).toEqual((await fromScratch(edited)).toJSON());
  });

  it("gives the prefix digest the summary cache computes for the same messages, resumed or not", async () => {
    const messages = withBigResult(4);
    messages[9] = new HumanMessage({ id: "m-h2", content: big("x") });
    const state = await new InMemoryContextStore({ maxMessageBytes: LIMIT }).update("u", "c", messages);
    expect(state.unreadable).toBe(1);
    const expected = `${PREFIX_DIGEST_TAG}${state.prefixDigest}`;
    expect(await summaryPrefixHash(messages, state.cursor)).toBe(expected);
    expect(await summaryPrefixHash([...messages], state.cursor)).toBe(expected);
  });
});

describe("concurrency and cancellation", () => {
  it("never duplicates evidence when updates of one conversation overlap", async () => {
    const store = new InMemoryContextStore();
    const snapshots = [3, 7, 5, 9, 9, 2, 8].map((turns) => withRequest(turns));
    await Promise.all(snapshots.map((messages) => store.update("u", "c", messages)));
    expect((await store.load("u", "c")).toJSON()).toEqual((await fromScratch(withRequest(9))).toJSON());
  });

  it("writes nothing when cancelled", async () => {
    const store = new InMemoryContextStore();
    const state = await store.update("u", "c", withRequest(2));
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(store.update("u", "c", withRequest(6), { signal: controller.signal })).rejects.toThrow("stop");
    const big = withRequest(6);
    big.splice(1, 0, ...Array.from({ length: 4000 }, (_, i) => new SystemMessage({ id: `pad${i}`, content: "p".repeat(5000) })));
    const late = new AbortController();
    const pending = store.update("u", "other", big, { signal: late.signal });
    setImmediate(() => late.abort(new Error("late stop")));
    await expect(pending).rejects.toThrow("late stop");
    expect((await store.load("u", "c")).toJSON()).toEqual(state.toJSON());
    expect((await store.load("u", "other")).cursor).toBe(0);
  });

  it("does not bring back a conversation deleted while an update ran", async () => {
    const rows = new Map<string, EvidenceRecord>([["k", { state: await fromScratch(withRequest(1)), revision: 1 }]]);
    const result = await updateEvidence(withRequest(3), {
      read: () => rows.get("k") ?? null,
      commit: (expected, next) => {
        rows.delete("k"); // another process deletes the conversation just before this commit
        if ((rows.get("k")?.revision ?? 0) !== expected) return false;
        rows.set("k", { state: next, revision: expected + 1 });
        return true;
      },
    });
    expect(result.cursor).toBe(0);
    expect(rows.has("k")).toBe(false);
  });
});

describe("messages without ids (a wrapper's or middleware's caller builds them by hand)", () => {
  const idless = () => [
    new HumanMessage("We must stay under 500 dollars a month."),
    new AIMessage("Noted: the budget is 500 dollars a month."),
    new HumanMessage("We decided to cut dining out."),
    new AIMessage("Agreed, dining out is cut."),
    new HumanMessage("What next?"),
  ];

  it("enter evidence under a key of their position and content, the same on every call", async () => {
    const store = new InMemoryContextStore();
    const first = await store.update("u", "idless", idless());
    expect(first.cursor).toBe(4);
    const text = JSON.stringify(first.toJSON());
    expect(text).toContain("500 dollars");
    expect(text).toMatch(/"messageId":"contextview:position:0:[0-9a-f]{8}"/);
    // The same messages built anew (new objects, still no ids), one turn longer: the same lineage.
    const again = await store.update("u", "idless", [...idless(), new AIMessage("Check subscriptions."), new HumanMessage("And then?")]);
    expect(again.cursor).toBe(6);
    expect(again.toJSON().buckets).toMatchObject({ constraints: first.toJSON().buckets.constraints });
  });

  it("an edited message without an id is a changed prefix, as with ids", async () => {
    const store = new InMemoryContextStore();
    await store.update("u", "idless-edit", idless());
    const edited = idless();
    edited[0] = new HumanMessage("We must stay under 900 dollars a month.");
    await expectCode(store.update("u", "idless-edit", edited), "PREFIX_CHANGED");
  });
});
