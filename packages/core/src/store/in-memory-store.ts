import { invalidOption } from "../errors.js";
import { EvidenceState } from "../evidence/state.js";
import { resolveMaxMessageBytes, updateEvidence, type EvidenceRecord } from "../evidence/update.js";
import type { MessageInput } from "../messages.js";
import { parseViewRecordEntry, resolveMaxViewRecords } from "../record/parse.js";
import type { ListViewsOptions, StoredView, ViewRecord, ViewRecordEntry } from "../record/types.js";
import { parseCompactionState } from "./compaction-state.js";
import type { CompactionState, ContextStore, ConversationKey, EvidenceCallOptions } from "./contracts.js";
import { checkListViewsOptions } from "./list-views-options.js";
import { checkConversationKey, conversationKey, conversationMapKey } from "./keys.js";

/** Options of {@link InMemoryContextStore}. */
export interface InMemoryContextStoreOptions {
  /**
   * Conversations kept; the least recently used one is forgotten first.
   * @default 1024
   */
  maxConversations?: number;
  /**
   * UTF-8 bytes of the largest user or assistant message `update` reads into
   * evidence; a larger one is hashed but not excerpted, and counted in the
   * state's `unreadable` (see `EvidenceUpdateOptions.maxMessageBytes`).
   * @default 16777216 (16 MiB)
   */
  maxMessageBytes?: number;
  /**
   * View records kept per conversation (`recordView`); the oldest is evicted first. `0` keeps none.
   * @default 200 (DEFAULT_MAX_VIEW_RECORDS)
   */
  maxViewRecords?: number;
}

interface Entry {
  evidence: EvidenceRecord | null;
  /** Kept as JSON text so callers never share a mutable object with the store. */
  compaction: string | null;
  /** View records as JSON text, oldest first, and their input texts by hash. */
  views: KeptViews | null;
}

interface KeptViews {
  records: { sequence: number; json: string; hashes: string[] }[];
  inputs: Map<string, string>;
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
  private readonly maxViewRecords: number;

  constructor(options: InMemoryContextStoreOptions = {}) {
    const max = options.maxConversations ?? 1024;
    if (!Number.isSafeInteger(max) || max <= 0) throw invalidOption("maxConversations", "a positive integer", max);
    this.maxConversations = max;
    this.maxMessageBytes = resolveMaxMessageBytes(options.maxMessageBytes);
    this.maxViewRecords = resolveMaxViewRecords(options.maxViewRecords);
  }

  /** Conversations currently held. */
  get size(): number {
    return this.entries.size;
  }

  async update(userId: string, conversationId: string, messages: readonly MessageInput[], options: EvidenceCallOptions = {}): Promise<EvidenceState> {
    const id = conversationMapKey(conversationKey(userId, conversationId));
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
    const id = conversationMapKey(conversationKey(userId, conversationId));
    const entry = this.entries.get(id);
    if (entry) this.touch(id);
    return entry?.evidence?.state ?? EvidenceState.empty();
  }

  async getCompaction(key: ConversationKey): Promise<CompactionState | null> {
    const id = conversationMapKey(checkConversationKey(key));
    const json = this.entries.get(id)?.compaction;
    if (json === undefined || json === null) return null;
    this.touch(id);
    return parseCompactionState(JSON.parse(json));
  }

  async putCompaction(key: ConversationKey, state: CompactionState): Promise<void> {
    const id = conversationMapKey(checkConversationKey(key));
    const json = JSON.stringify(parseCompactionState(state));
    this.touch(id).compaction = json;
  }

  async deleteCompaction(key: ConversationKey): Promise<void> {
    const id = conversationMapKey(checkConversationKey(key));
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.compaction = null;
    if (entry.evidence === null && entry.views === null) this.entries.delete(id);
  }

  async deleteConversation(userId: string, conversationId: string): Promise<void> {
    this.entries.delete(conversationMapKey(conversationKey(userId, conversationId)));
  }

  async recordView(key: ConversationKey, entry: ViewRecordEntry): Promise<ViewRecord> {
    const id = conversationMapKey(checkConversationKey(key));
    const { record: fields, inputs } = parseViewRecordEntry(entry);
    const views = this.entries.get(id)?.views;
    const record: ViewRecord = { ...fields, sequence: (views?.records.at(-1)?.sequence ?? 0) + 1 };
    if (this.maxViewRecords === 0) return record;
    const target = this.touch(id);
    const kept: KeptViews = (target.views ??= { records: [], inputs: new Map<string, string>() });
    const hashes = Object.values(record.inputs).filter((hash): hash is string => hash !== null);
    kept.records.push({ sequence: record.sequence, json: JSON.stringify(record), hashes });
    for (const [hash, text] of Object.entries(inputs)) if (!kept.inputs.has(hash)) kept.inputs.set(hash, text);
    if (kept.records.length > this.maxViewRecords) {
      kept.records.splice(0, kept.records.length - this.maxViewRecords);
      const named = new Set(kept.records.flatMap((r) => r.hashes));
      for (const hash of [...kept.inputs.keys()]) if (!named.has(hash)) kept.inputs.delete(hash);
    }
    return JSON.parse(JSON.stringify(record)) as ViewRecord;
  }

  async listViews(key: ConversationKey, options: ListViewsOptions = {}): Promise<StoredView[]> {
    const id = conversationMapKey(checkConversationKey(key));
    const limit = checkListViewsOptions(options);
    const views = this.entries.get(id)?.views;
    if (!views) return [];
    const records = limit === undefined ? views.records : views.records.slice(Math.max(0, views.records.length - limit));
    return records.map(({ json, hashes }) => {
      const inputs: Record<string, string> = {};
      for (const hash of hashes) {
        const text = views.inputs.get(hash);
        if (text !== undefined) inputs[hash] = text;
      }
      return { record: JSON.parse(json) as ViewRecord, inputs };
    });
  }

  /** A description without any state. */
  toJSON(): { store: "InMemoryContextStore"; conversations: number; maxConversations: number } {
    return { store: "InMemoryContextStore", conversations: this.entries.size, maxConversations: this.maxConversations };
  }

  /** The entry, created if needed, moved to most recently used; evicts beyond the limit. */
  private touch(id: string): Entry {
    const entry = this.entries.get(id) ?? { evidence: null, compaction: null, views: null };
    this.entries.delete(id);
    this.entries.set(id, entry);
    while (this.entries.size > this.maxConversations) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return entry;
  }
}
