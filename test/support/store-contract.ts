// The ContextStore contract, as one suite every store runs: the in-memory store,
// SQLite and PostgreSQL must turn the same snapshots into the same states.
import fc from "fast-check";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ContextViewError, InMemoryContextStore, type ContextStore } from "@contextview/core";
import type { CompactionState } from "@contextview/core/store";
import { cursorOf, storeHistory, viewRecordEntry } from "@contextview/test-support";

/** A store under test and how to let it go. */
export interface StoreUnderTest {
  store: ContextStore;
  /** A second handle on the same storage (another replica or process would hold one), if the store has one. */
  reopen?: () => ContextStore;
  close: () => Promise<void>;
}

const compaction = (failures: number): CompactionState => ({
  version: 1,
  summary: { prefixN: 4, prefixHash: `h${failures}`, text: "The user chose Postgres. \ud83d", createdAt: 1_700_000_000_000 },
  failures,
  calibration: { ratio: 0.9, samples: 2 },
});

/** Options the contract passes to `open`. */
export interface StoreContractOptions {
  maxViewRecords?: number;
}

/** A real record of a one-message view of `u`/`c`. */
const viewEntry = (n: number) => viewRecordEntry(n, { userId: "u", conversationId: "c" }, `system ${n}`, "contract");

/** A snapshot of `turns` finished turns whose first message `variant` rewrites (a fork). */
function variantSnapshot(turns: number, variant: number): BaseMessage[] {
  const messages = storeHistory(turns);
  if (variant > 0) messages[0] = new HumanMessage({ id: "h0", content: `Forked history ${variant}` });
  return messages;
}

type Step =
  | { kind: "update"; user: number; conv: number; turns: number; variant: number }
  | { kind: "load"; user: number; conv: number }
  | { kind: "put"; user: number; conv: number; failures: number }
  | { kind: "get"; user: number; conv: number }
  | { kind: "deleteCompaction"; user: number; conv: number }
  | { kind: "deleteConversation"; user: number; conv: number };

const who = { user: fc.integer({ min: 0, max: 1 }), conv: fc.integer({ min: 0, max: 1 }) };
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("update" as const), ...who, turns: fc.integer({ min: 0, max: 7 }), variant: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("load" as const), ...who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("put" as const), ...who, failures: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("get" as const), ...who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deleteCompaction" as const), ...who }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("deleteConversation" as const), ...who }) },
);

/** What one step returned: a state, a compaction state, nothing, or an error code. */
async function apply(store: ContextStore, s: Step): Promise<unknown> {
  const userId = `user-${s.user}`;
  const conversationId = `conv-${s.conv}`;
  try {
    switch (s.kind) {
      case "update":
        return (await store.update(userId, conversationId, variantSnapshot(s.turns, s.variant))).toJSON();
      case "load":
        return (await store.load(userId, conversationId)).toJSON();
      case "put":
        return await store.putCompaction({ userId, conversationId }, compaction(s.failures));
      case "get":
        return await store.getCompaction({ userId, conversationId });
      case "deleteCompaction":
        return await store.deleteCompaction({ userId, conversationId });
      case "deleteConversation":
        return await store.deleteConversation(userId, conversationId);
    }
  } catch (error) {
    if (ContextViewError.isInstance(error)) return { error: error.code };
    throw error;
  }
}

/**
 * The contract suite. `open` gives a fresh, empty store for each test (its own
 * file or schema); `close` releases it.
 */
export function describeStoreContract(name: string, open: (options?: StoreContractOptions) => Promise<StoreUnderTest>, describeFn: jest.Describe = describe): void {
  describeFn(`ContextStore contract: ${name}`, () => {
    let current: StoreUnderTest | undefined;
    const fresh = async (options?: StoreContractOptions): Promise<StoreUnderTest> => {
      if (current) await current.close();
      current = await open(options);
      return current;
    };
    afterEach(async () => {
      if (current) await current.close();
      current = undefined;
    });

    it("turns the same snapshots into the same states as the reference store (random operation sequences)", async () => {
      const seed = Number(process.env["STORE_CONTRACT_SEED"] ?? Date.now() % 2 ** 31);
      // Printed so a failure can be replayed: STORE_CONTRACT_SEED=<seed>.
      process.stdout.write(`store contract (${name}): seed ${seed}\n`);
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
          const { store } = await fresh();
          const reference = new InMemoryContextStore();
          for (const s of steps) expect(await apply(store, s)).toEqual(await apply(reference, s));
          for (const user of [0, 1]) {
            for (const conv of [0, 1]) {
              expect(await apply(store, { kind: "load", user, conv })).toEqual(await apply(reference, { kind: "load", user, conv }));
              expect(await apply(store, { kind: "get", user, conv })).toEqual(await apply(reference, { kind: "get", user, conv }));
            }
          }
        }),
        { seed, numRuns: 12, endOnFailure: true, plugins: [fc.interruptAfterTimeLimit(60_000, { failOnInterrupt: true })] },
      );
    }, 120_000);

    it("ends concurrent updates of one conversation in the single-writer state: nothing duplicated, the cursor never back", async () => {
      const { store, reopen } = await fresh();
      const other = reopen?.() ?? store;
      const expected = (await new InMemoryContextStore().update("u", "c", storeHistory(12))).toJSON();
      const sizes = [3, 12, 5, 9, 12, 1, 7, 11];
      const results = await Promise.all(sizes.map((turns, i) => (i % 2 === 0 ? store : other).update("u", "c", storeHistory(turns))));
      for (const [i, result] of results.entries()) expect(result.cursor).toBeGreaterThanOrEqual(cursorOf(sizes[i] as number));
      expect((await store.load("u", "c")).toJSON()).toEqual(expected);
      expect((await other.load("u", "c")).toJSON()).toEqual(expected);
    });

    it("keeps tenants apart: another user never sees or changes a state", async () => {
      const { store } = await fresh();
      const alice = await store.update("alice", "shared-id", storeHistory(4));
      await store.putCompaction({ userId: "alice", conversationId: "shared-id" }, compaction(1));
      expect((await store.load("bob", "shared-id")).cursor).toBe(0);
      expect(await store.getCompaction({ userId: "bob", conversationId: "shared-id" })).toBeNull();
      await store.update("bob", "shared-id", variantSnapshot(6, 1));
      await store.putCompaction({ userId: "bob", conversationId: "shared-id" }, compaction(2));
      await store.deleteConversation("bob", "shared-id");
      expect((await store.load("alice", "shared-id")).toJSON()).toEqual(alice.toJSON());
      expect(await store.getCompaction({ userId: "alice", conversationId: "shared-id" })).toEqual(compaction(1));
      // Keys are a pair, not a joined string: these two must not meet.
      await store.update("a:b", "c", storeHistory(2));
      expect((await store.load("a", "b:c")).cursor).toBe(0);
    });

    it("deleteConversation removes evidence and compaction state, and a later update starts afresh", async () => {
      const { store, reopen } = await fresh();
      await store.update("u", "c", storeHistory(5));
      await store.putCompaction({ userId: "u", conversationId: "c" }, compaction(0));
      await store.deleteConversation("u", "c");
      const after = reopen?.() ?? store;
      expect((await after.load("u", "c")).cursor).toBe(0);
      expect(await after.getCompaction({ userId: "u", conversationId: "c" })).toBeNull();
      // The history may now be another lineage: no PREFIX_CHANGED once the old state is gone.
      expect((await after.update("u", "c", variantSnapshot(3, 1))).toJSON()).toEqual((await new InMemoryContextStore().update("u", "c", variantSnapshot(3, 1))).toJSON());
    });

    it("with onPrefixChange rebuild, another lineage (a fork) is rebuilt from its snapshot: the state a fresh store gives", async () => {
      const { store } = await fresh();
      await store.update("u", "c", storeHistory(6));
      const fork = variantSnapshot(8, 1);
      await expect(store.update("u", "c", fork)).rejects.toMatchObject({ code: "PREFIX_CHANGED" });
      const rebuilds: unknown[] = [];
      const state = await store.update("u", "c", fork, { onPrefixChange: "rebuild", onRebuild: (r) => void rebuilds.push(r) });
      expect(state.toJSON()).toEqual((await new InMemoryContextStore().update("u", "c", fork)).toJSON());
      expect((await store.load("u", "c")).toJSON()).toEqual(state.toJSON());
      expect(rebuilds).toHaveLength(1);
    });

    it("recordView/listViews, when a store has them, keep the newest maxViewRecords and deleteConversation removes them", async () => {
      const { store, reopen } = await fresh({ maxViewRecords: 2 });
      if (!store.recordView || !store.listViews) return;
      const key = { userId: "u", conversationId: "c" };
      for (let n = 1; n <= 4; n++) expect((await store.recordView(key, await viewEntry(n))).sequence).toBe(n);
      await store.recordView({ userId: "u", conversationId: "other" }, await viewEntry(9));
      const other = reopen?.() ?? store;
      const views = (await other.listViews?.(key)) ?? [];
      expect(views.map((v) => [v.record.sequence, v.record.recordedAt])).toEqual([
        [3, 1_700_000_000_003],
        [4, 1_700_000_000_004],
      ]);
      expect(Object.values(views[0]?.inputs ?? {}).sort()).toEqual(["system 3", '{"content":"earlier: rent 900","id":"ev"}']);
      expect((await store.listViews(key, { limit: 1 })).map((v) => v.record.sequence)).toEqual([4]);
      await store.deleteConversation("u", "c");
      expect(await store.listViews(key)).toEqual([]);
      expect(await store.listViews({ userId: "u", conversationId: "other" })).toHaveLength(1);
      expect((await store.recordView(key, await viewEntry(5))).sequence).toBe(1);
    });

    it.each([
      ["an empty user id", (s: ContextStore) => s.update("", "c", storeHistory(1)), "userId"],
      ["a conversation id that is not a string", (s: ContextStore) => s.load("u", 7 as never), "conversationId"],
      ["a key that is not an object", (s: ContextStore) => s.getCompaction(null as never), "key"],
      ["an invalid compaction state", (s: ContextStore) => s.putCompaction({ userId: "u", conversationId: "c" }, { version: 2 } as never), "state.version"],
    ])("refuses %s with INVALID_OPTION naming the field", async (_, call, field) => {
      const { store } = await fresh();
      const error = await call(store).then(
        () => null,
        (err: unknown) => err,
      );
      expect(ContextViewError.isInstance(error) && [error.code, error.details["field"]]).toEqual(["INVALID_OPTION", field]);
    });
  });
}
