import type { CompactionState, CompactionStore, ConversationKey } from "../store/contracts.js";

/** The state of a conversation never summarized. */
export const emptyCompactionState = (): CompactionState => ({ version: 1, summary: null, failures: 0 });

/** Reads and writes of the compaction state that never fail a model call. */
export interface GuardedCompactionStore {
  /** The stored state, or an empty one (`failed: true`) when the store fails. */
  get(key: ConversationKey): Promise<{ state: CompactionState; failed: boolean }>;
  /** False when the store failed; the request goes on without cache. */
  put(key: ConversationKey, state: CompactionState): Promise<boolean>;
}

/**
 * Wrap a store so that its failures are reported through `onStoreError` and the
 * request goes on: a store outage costs the summary cache, never the model call.
 *
 * @example
 * ```ts
 * const compaction = guardedCompactionStore(store, (error, operation) => log.warn({ error, operation }));
 * const { state } = await compaction.get(key);
 * ```
 */
export function guardedCompactionStore(
  store: CompactionStore,
  onStoreError: ((error: unknown, operation: "get" | "put") => void) | undefined,
): GuardedCompactionStore {
  return {
    async get(key) {
      try {
        return { state: (await store.getCompaction(key)) ?? emptyCompactionState(), failed: false };
      } catch (error) {
        onStoreError?.(error, "get");
        return { state: emptyCompactionState(), failed: true };
      }
    },
    async put(key, state) {
      try {
        await store.putCompaction(key, state);
        return true;
      } catch (error) {
        onStoreError?.(error, "put");
        return false;
      }
    },
  };
}
