import { ContextViewError, InMemoryContextStore } from "@contextview/core";
import { conversationKey, parseCompactionState, type CompactionState } from "@contextview/core/store";
import { withRequest } from "../evidence/fixtures.js";

const full: CompactionState = {
  version: 1,
  summary: { prefixN: 12, prefixHash: "abc123", text: "Earlier: the user chose Postgres. \ud83d lone", createdAt: 1_700_000_000_000 },
  turnSummary: { prefixN: 40, prefixHash: "def456", steps: 9, text: "- searched legs 0 to 8", createdAt: 1_700_000_030_000 },
  failures: 2,
  skipUntil: 1_700_000_060_000,
  calibration: { ratio: 1.17, samples: 9 },
};

describe("conversationKey", () => {
  it.each([
    ["", "c", "`userId` to be a non-empty string"],
    [42, "c", "`userId` to be a non-empty string, got 42"],
    ["u", undefined, "`conversationId` to be a non-empty string, got undefined"],
    ["u\udc00", "c", "`userId` to be well-formed text"],
  ])("rejects (%j, %j)", (userId, conversationId, message) => {
    expect(() => conversationKey(userId, conversationId)).toThrow(message);
  });

  it("is checked by every store method", async () => {
    const store = new InMemoryContextStore();
    await expect(store.update("", "c", [])).rejects.toThrow("`userId`");
    await expect(store.load("u", "")).rejects.toThrow("`conversationId`");
    await expect(store.getCompaction({ userId: "u", conversationId: "" })).rejects.toThrow("`conversationId`");
    await expect(store.deleteConversation("", "c")).rejects.toThrow("`userId`");
  });
});

describe("parseCompactionState", () => {
  it("round-trips every field through JSON and drops unknown ones", () => {
    expect(parseCompactionState(JSON.parse(JSON.stringify(full)))).toEqual(full);
    expect(parseCompactionState({ version: 1, summary: null, failures: 0, extra: true })).toEqual({ version: 1, summary: null, failures: 0 });
  });

  it.each([
    ["state.version", { ...full, version: 2 }],
    ["state.failures", { ...full, failures: -1 }],
    ["state.summary", { ...full, summary: undefined }],
    ["state.summary.text", { ...full, summary: { ...full.summary, text: 3 } }],
    ["state.calibration.ratio", { ...full, calibration: { ratio: 0, samples: 1 } }],
    ["state.skipUntil", { ...full, skipUntil: Infinity }],
    ["state.turnSummary.steps", { ...full, turnSummary: { ...full.turnSummary, steps: 0 } }],
    ["state.turnSummary.prefixHash", { ...full, turnSummary: { ...full.turnSummary, prefixHash: "" } }],
  ])("rejects a bad %s", (field, state) => {
    expect(() => parseCompactionState(state)).toThrow(`\`${field}\``);
  });
});

describe("InMemoryContextStore", () => {
  const key = { userId: "u", conversationId: "c" };

  it("round-trips compaction state without sharing objects", async () => {
    const store = new InMemoryContextStore();
    expect(await store.getCompaction(key)).toBeNull();
    const state = structuredClone(full);
    await store.putCompaction(key, state);
    state.failures = 99;
    const read = await store.getCompaction(key);
    expect(read).toEqual(full);
    (read as CompactionState).failures = 50;
    expect(await store.getCompaction(key)).toEqual(full);
  });

  it("refuses an invalid compaction state with INVALID_OPTION", async () => {
    const store = new InMemoryContextStore();
    const error = await store.putCompaction(key, { version: 1, summary: null, failures: 1.5 }).catch((err: unknown) => err);
    expect(ContextViewError.isInstance(error) && error.code).toBe("INVALID_OPTION");
  });

  it("keeps tenants apart", async () => {
    const store = new InMemoryContextStore();
    const a = await store.update("alice", "c", withRequest(3));
    expect((await store.load("bob", "c")).cursor).toBe(0);
    await store.update("bob", "c", withRequest(1, "b"));
    await store.putCompaction({ userId: "bob", conversationId: "c" }, full);
    await store.deleteConversation("bob", "c");
    expect((await store.load("alice", "c")).toJSON()).toEqual(a.toJSON());
    expect(await store.getCompaction({ userId: "alice", conversationId: "c" })).toBeNull();
  });

  it("deletes evidence and compaction state of a conversation", async () => {
    const store = new InMemoryContextStore();
    await store.update("u", "c", withRequest(2));
    await store.putCompaction(key, full);
    await store.deleteCompaction(key);
    expect((await store.load("u", "c")).cursor).toBeGreaterThan(0);
    await store.putCompaction(key, full);
    await store.deleteConversation("u", "c");
    expect((await store.load("u", "c")).cursor).toBe(0);
    expect(await store.getCompaction(key)).toBeNull();
    expect(store.size).toBe(0);
  });

  it("forgets the least recently used conversation beyond maxConversations", async () => {
    const store = new InMemoryContextStore({ maxConversations: 2 });
    await store.update("u", "one", withRequest(1));
    await store.putCompaction({ userId: "u", conversationId: "two" }, full);
    await store.load("u", "one");
    await store.update("u", "three", withRequest(1));
    expect(store.size).toBe(2);
    expect(await store.getCompaction({ userId: "u", conversationId: "two" })).toBeNull();
    expect((await store.load("u", "one")).cursor).toBeGreaterThan(0);
  });

  it("defaults to 1024 conversations and describes itself without state", async () => {
    const store = new InMemoryContextStore();
    await store.update("u", "c", withRequest(1));
    expect(store.toJSON()).toEqual({ store: "InMemoryContextStore", conversations: 1, maxConversations: 1024 });
  });

  it.each([
    [{ maxConversations: 0 }, "`maxConversations` to be a positive integer"],
    [{ maxMessageBytes: -5 }, "`maxMessageBytes` to be a positive integer"],
  ])("rejects options %j", (options, message) => {
    expect(() => new InMemoryContextStore(options)).toThrow(message);
  });
});
