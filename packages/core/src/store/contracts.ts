import type { EvidenceState } from "../evidence/state.js";
import type { EvidenceRebuild } from "../evidence/update.js";
import type { MessageInput } from "../messages.js";
import type { ListViewsOptions, StoredView, ViewRecord, ViewRecordEntry } from "../record/types.js";

export type { CompactionState, CompactionStore, ConversationKey } from "./compaction-contract.js";
import type { CompactionStore, ConversationKey } from "./compaction-contract.js";

/** Per-call options of {@link EvidenceStore.update}. */
export interface EvidenceCallOptions {
  /**
   * Cancels the update; it then rejects with the signal's reason and writes nothing.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * `rebuild`: a changed summarized prefix (fork, edit, concurrent branch) rebuilds
   * the evidence from this snapshot instead of throwing `PREFIX_CHANGED`. Stores
   * pass it (and `onRebuild`) on to `updateEvidence` unchanged.
   * @default "throw"
   */
  onPrefixChange?: "throw" | "rebuild";
  /**
   * Called once per rebuild with its cost.
   * @default undefined
   */
  onRebuild?: (rebuild: EvidenceRebuild) => void;
}

/**
 * Persistent extractive evidence (quoted excerpts of older turns, never model-written), keyed by user and conversation.
 *
 * @example
 * ```ts
 * const state = await store.update(userId, threadId, checkpointMessages);
 * const message = state.asMessage(); // AIMessage | null
 * const later = await store.load(userId, threadId); // no update, one request of lag
 * ```
 */
export interface EvidenceStore {
  /**
   * Summarize a full, stable, append-only snapshot that includes the new current
   * HumanMessage; returns the state after the update (or the unchanged state for
   * a repeated or stale snapshot). Throws `PREFIX_CHANGED` when the summarized
   * prefix differs (unless `options.onPrefixChange` is `rebuild`), `INVALID_MESSAGES` for bad input, `STORE_ERROR` when storage
   * fails; the stored state is then unchanged.
   */
  update(userId: string, conversationId: string, messages: readonly MessageInput[], options?: EvidenceCallOptions): Promise<EvidenceState>;
  /** The stored state, or the empty state when none is stored. */
  load(userId: string, conversationId: string): Promise<EvidenceState>;
}


/**
 * Evidence and compaction state of every conversation, in one store.
 *
 * @example
 * ```ts
 * const store: ContextStore = new InMemoryContextStore();
 * await store.deleteConversation(userId, threadId); // evidence and compaction state
 * ```
 */
export interface ContextStore extends EvidenceStore, CompactionStore {
  /** Remove everything stored for the conversation (authorized deletion), view records included. */
  deleteConversation(userId: string, conversationId: string): Promise<void>;
  /**
   * Keep the record of one model call's view (optional: callers check it exists).
   * Validates the entry (`parseViewRecordEntry`; `INVALID_OPTION` naming the field),
   * gives it the next `sequence` of the conversation (1 for the first, one more
   * than the newest kept record), stores each input text once per conversation
   * and hash, then evicts the oldest records beyond the store's `maxViewRecords`
   * and the input texts no kept record names. Atomic per call; `STORE_ERROR`
   * when storage fails (nothing is then written). Returns the stored record.
   */
  recordView?(key: ConversationKey, entry: ViewRecordEntry): Promise<ViewRecord>;
  /**
   * The kept view records of a conversation, oldest first (the newest `limit`
   * when given), each with the stored input texts its hashes name. Empty when
   * none. `STORE_ERROR` when storage fails.
   */
  listViews?(key: ConversationKey, options?: ListViewsOptions): Promise<StoredView[]>;
}
