// The conversation key and the compaction store's contract, on their own: the manager's
// types need them, and the full store contract (contracts.ts) needs the manager's report.

/**
 * Scopes every stored state: the authenticated user and the conversation
 * (LangGraph's `thread_id`). Both are non-empty strings.
 */
export interface ConversationKey {
  userId: string;
  conversationId: string;
}

/**
 * The persistent part of one conversation's compaction state: the
 * summary cache, consecutive summarizer failures, back-off and token calibration.
 * Plain data that round-trips through JSON.
 */
export interface CompactionState {
  version: 1;
  /** The cached summary of messages `[0, prefixN)`, valid while their hash is `prefixHash`. */
  summary: { prefixN: number; prefixHash: string; text: string; createdAt: number } | null;
  /**
   * The cached summary of the first `steps` exchanges of a long current turn,
   * messages `[request + 1, prefixN)`, valid while messages `[0, prefixN)` hash to
   * `prefixHash` and the turn goes on.
   */
  turnSummary?: { prefixN: number; prefixHash: string; steps: number; text: string; createdAt: number };
  /** Consecutive summarizer failures. */
  failures: number;
  /** Epoch milliseconds before which summarizing is not retried. */
  skipUntil?: number;
  /** Estimator calibration against reported usage. */
  calibration?: { ratio: number; samples: number };
}

/**
 * Where compaction state lives. Calls sit on the request path: implementations
 * are fast, and a failure is treated by callers as "no cache".
 *
 * @example
 * ```ts
 * const key = { userId, conversationId: threadId };
 * const cached = await store.getCompaction(key);
 * await store.putCompaction(key, { version: 1, summary: null, failures: 1 });
 * ```
 */
export interface CompactionStore {
  /** The stored state, or null. */
  getCompaction(key: ConversationKey): Promise<CompactionState | null>;
  /** Replace the stored state as a whole. */
  putCompaction(key: ConversationKey, state: CompactionState): Promise<void>;
  /** Remove the stored state (a no-op when there is none). */
  deleteCompaction(key: ConversationKey): Promise<void>;
}
