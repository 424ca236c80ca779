import { invalidOption } from "../errors.js";
import { EvidenceState } from "../evidence/state.js";
import { resolveMaxMessageBytes, updateEvidence, type EvidenceRecord } from "../evidence/update.js";
import type { MessageInput } from "../messages.js";
import { parseCompactionState } from "./compaction-state.js";
import type { CompactionState, ContextStore, ConversationKey, EvidenceCallOptions } from "./contracts.js";
import { checkConversationKey, conversationKey } from "./keys.js";

/** Options of {@link InMemoryContextStore}. */
export interface InMemoryContextStoreOptions {
  /**
   * Conversations kept; the least recently used one is forgotten first.
   * @default 1024
   */
  maxConversations?: number;
  /**
   * UTF-8 bytes a single checkpoint message may carry before `update` refuses it.
   * @default 16777216 (16 MiB)
   */
  maxMessageBytes?: number;
}

interface Entry {
  evidence: EvidenceRecord | null;
  /** Kept as JSON text so callers never share a mutable object with the store. */
  compaction: string | null;
}

/**
 * A {@link ContextStore} in process memory, for tests and single-process use:
 * states are lost when the process stops, and at most `maxConversations`
 * conversations are kept (least recently used first out).
 *
 * @example
 * ```ts
 * const store = new InMemoryContextStore({ maxConversations: 100 });
 * const state = await store.update("user-1", "thread-1", messages);
 * state.asMessage();
 * ```
 */
export class InMemoryContextStore implements ContextStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxConversations: number;
  private readonly maxMessageBytes: number;

  constructor(options: InMemoryContextStoreOptions = {}) {
    const max = options.maxConversations ?? 1024;
    if (!Number.isSafeInteger(max) || max <= 0) throw invalidOption("maxConversations", "a positive integer", max);
    this.maxConversations = max;
    this.maxMessageBytes = resolveMaxMessageBytes(options.maxMessageBytes);
  }

  /** Conversations currently held. */
  get size(): number {
    return this.entries.size;
  }

  async update(userId: string, conversationId: string, messages: readonly MessageInput[], options: EvidenceCallOptions = {}): Promise<EvidenceState> {
    const id = idOf(conversationKey(userId, conversationId));
    return updateEvidence(
      messages,
      {
        read: () => this.entries.get(id)?.evidence ?? null,
        commit: (expected, next) => {
          if ((this.entries.get(id)?.evidence?.revision ?? 0) !== expected) return false;
          this.touch(id).evidence = { state: next, revision: expected + 1 };
          return true;
        },
      },
      { ...options, maxMessageBytes: this.maxMessageBytes },
    );
  }

  async load(userId: string, conversationId: string): Promise<EvidenceState> {
    const id = idOf(conversationKey(userId, conversationId));
    const entry = this.entries.get(id);
    if (entry) this.touch(id);
    return entry?.evidence?.state ?? EvidenceState.empty();
  }

  async getCompaction(key: ConversationKey): Promise<CompactionState | null> {
    const id = idOf(checkConversationKey(key));
    const json = this.entries.get(id)?.compaction;
    if (json === undefined || json === null) return null;
    this.touch(id);
    return parseCompactionState(JSON.parse(json));
  }

  async putCompaction(key: ConversationKey, state: CompactionState): Promise<void> {
    const id = idOf(checkConversationKey(key));
    const json = JSON.stringify(parseCompactionState(state));
    this.touch(id).compaction = json;
  }

  async deleteCompaction(key: ConversationKey): Promise<void> {
    const id = idOf(checkConversationKey(key));
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.compaction = null;
    if (entry.evidence === null) this.entries.delete(id);
  }

  async deleteConversation(userId: string, conversationId: string): Promise<void> {
    this.entries.delete(idOf(conversationKey(userId, conversationId)));
  }

  /** A description without any state. */
  toJSON(): { store: "InMemoryContextStore"; conversations: number; maxConversations: number } {
    return { store: "InMemoryContextStore", conversations: this.entries.size, maxConversations: this.maxConversations };
  }

  /** The entry, created if needed, moved to most recently used; evicts beyond the limit. */
  private touch(id: string): Entry {
    const entry = this.entries.get(id) ?? { evidence: null, compaction: null };
    this.entries.delete(id);
    this.entries.set(id, entry);
    while (this.entries.size > this.maxConversations) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return entry;
  }
}

/** JSON of the pair: no separator a user id could contain can make two keys collide. */
function idOf(key: Readonly<ConversationKey>): string {
  return JSON.stringify([key.userId, key.conversationId]);
}
