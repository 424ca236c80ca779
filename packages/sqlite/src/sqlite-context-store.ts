// size: one class implementing the whole store contract on SQLite; each method is short, the file is the contract
import type Database from "better-sqlite3";
import { ContextViewError, type ContextStore, type MessageInput } from "@contextview/core";
import {
  EvidenceState,
  checkConversationKey,
  checkListViewsOptions,
  compactionErrorReporter,
  parseViewRecordEntry,
  resolveMaxViewRecords,
  conversationKey,
  parseCompactionState,
  resolveMaxMessageBytes,
  updateEvidence,
  type CompactionState,
  type ConversationKey,
  type EvidenceCallOptions,
  type EvidenceRecord,
  type ListViewsOptions,
  type StoredView,
  type ViewRecord,
  type ViewRecordEntry,
} from "@contextview/core/store";
import { describeValue } from "@contextview/core/internal";
import { migrate } from "./migrations.js";
import { prepareViewRecords, type ViewRecordStatements } from "./view-records.js";
import { checkSameFile, isMemoryPath, openDatabase, openedFile, sidecarPath, storePathFromEnv, type OpenedFile } from "./sidecar.js";

/** Options of {@link SqliteContextStore}. */
export interface SqliteContextStoreOptions {
  /**
   * Milliseconds a write waits for another process's transaction before failing
   * with `STORE_ERROR` (SQLite `busy_timeout`).
   * @default 5000
   */
  busyTimeoutMs?: number;
  /**
   * UTF-8 bytes of the largest user or assistant message `update` reads into
   * evidence; a larger one is hashed but not excerpted, and counted in the
   * state's `unreadable` (see `EvidenceUpdateOptions.maxMessageBytes`).
   * @default 16777216 (16 MiB)
   */
  maxMessageBytes?: number;
  /**
   * Receives storage failures of `getCompaction` and `putCompaction`, which then
   * behave as "no cache" instead of failing the model call.
   * @default process.emitWarning
   */
  onCompactionError?: (error: ContextViewError) => void;
  /**
   * View records kept per conversation (`recordView`); the oldest is evicted first. `0` keeps none.
   * @default 200 (DEFAULT_MAX_VIEW_RECORDS)
   */
  maxViewRecords?: number;
}

/** A SqliteSaver from @langchain/langgraph-checkpoint-sqlite, or anything holding its better-sqlite3 handle. */
export interface CheckpointerWithDatabase {
  readonly db: Database.Database;
}

interface EvidenceRow {
  revision: number;
  state: string;
}

interface Statements {
  readEvidence: Database.Statement<[string, string], EvidenceRow>;
  deleteEvidence: Database.Statement<[string, string]>;
  readCompaction: Database.Statement<[string, string], { state: string }>;
  writeCompaction: Database.Statement<[string, string, string, number]>;
  deleteCompaction: Database.Statement<[string, string]>;
  views: ViewRecordStatements;
  /** Re-reads the revision and writes, in one `BEGIN IMMEDIATE` transaction. */
  commitEvidence: (key: Readonly<ConversationKey>, expected: number, next: EvidenceState) => boolean;
}

function checkBusyTimeout(value: number | undefined): number {
  if (value === undefined) return 5000;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ContextViewError("INVALID_OPTION", `Expected \`busyTimeoutMs\` to be a non-negative integer, got ${String(value)}`, { field: "busyTimeoutMs" });
  }
  return value;
}

/** A `STORE_ERROR` naming the operation; one that already is a store error passes through. */
function storeError(operation: string, cause: unknown): ContextViewError {
  if (ContextViewError.isInstance(cause) && cause.code === "STORE_ERROR") return cause as ContextViewError;
  const code = (cause as { code?: unknown })?.code;
  return new ContextViewError(
    "STORE_ERROR",
    `SQLite context store could not ${operation}: ${(cause as Error)?.message ?? String(cause)}`,
    { operation, ...(typeof code === "string" ? { sqliteCode: code } : {}) },
    { cause },
  );
}

/**
 * Evidence and compaction state on SQLite (better-sqlite3), in its own tables,
 * beside LangGraph's `SqliteSaver`. Every write is one short `BEGIN IMMEDIATE`
 * transaction, so several processes sharing the file are serialized; heavy work
 * (validating and hashing the checkpoint) runs before it, yielding to the event
 * loop. Schema set-up is lazy and idempotent; migrations are versioned by position.
 *
 * @example
 * ```ts
 * import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
 * const saver = SqliteSaver.fromConnString("/data/checkpoints.sqlite");
 * const store = SqliteContextStore.nextTo(saver); // /data/checkpoints.contextview.sqlite
 * const state = await store.update(userId, threadId, checkpointMessages);
 * const evidence = state.asMessage(); // AIMessage | null
 * ```
 */
export class SqliteContextStore implements ContextStore {
  // Private fields: the handle never shows up through enumeration, JSON or inspection.
  readonly #db: Database.Database;
  /** The file the handle was opened on, by identity; undefined in memory. */
  readonly #file: OpenedFile | undefined;
  #statements: Statements | undefined;
  private readonly busyTimeoutMs: number;
  private readonly maxMessageBytes: number;
  private readonly report: (error: ContextViewError) => void;
  private readonly maxViewRecords: number;
  private ownsDatabase = false;

  /**
   * A store on an open better-sqlite3 database. The handle stays the caller's:
   * `close()` does not close it.
   */
  constructor(db: Database.Database, options: SqliteContextStoreOptions = {}) {
    if (typeof db !== "object" || db === null || typeof (db as { prepare?: unknown }).prepare !== "function") {
      throw new ContextViewError("INVALID_OPTION", "Expected `db` to be a better-sqlite3 Database", { field: "db" });
    }
    this.busyTimeoutMs = checkBusyTimeout(options.busyTimeoutMs);
    this.maxMessageBytes = resolveMaxMessageBytes(options.maxMessageBytes);
    this.report = compactionErrorReporter(options.onCompactionError, (error) => process.emitWarning(error));
    this.maxViewRecords = resolveMaxViewRecords(options.maxViewRecords);
    this.#db = db;
    this.#file = db.memory || isMemoryPath(db.name) ? undefined : openedFile(db.name);
  }

  /**
   * A store on the SQLite file at `path` (or `:memory:`), opened and later closed
   * by the store. The parent directory must exist.
   *
   * @example
   * ```ts
   * const store = SqliteContextStore.fromConnString("/data/conversation-summaries.sqlite");
   * ```
   */
  static fromConnString(path: string, options: SqliteContextStoreOptions = {}): SqliteContextStore {
    const store = new SqliteContextStore(openDatabase(path, "path", checkBusyTimeout(options.busyTimeoutMs)), options);
    store.ownsDatabase = true;
    return store;
  }

  /**
   * A store in a sidecar file beside a `SqliteSaver`'s database:
   * `<dir>/<checkpoint name without extension>.contextview.sqlite`, or the path
   * in `CONTEXTVIEW_STORE_PATH` when set (its 0.x name `CONVERSATION_SUMMARY_DB_PATH`
   * alone is refused with `INVALID_OPTION`, saying to rename it). A saver on `:memory:` gets an
   * in-memory store. The checkpointer's tables are never touched. A checkpointer
   * without a SQLite database, such as `MemorySaver`, throws `ContextViewError`
   * `INVALID_OPTION` (field `saver`): use `new InMemoryContextStore()` beside it, or
   * {@link SqliteContextStore.fromConnString}.
   *
   * @example
   * ```ts
   * const saver = SqliteSaver.fromConnString("/data/checkpoints.sqlite");
   * const store = SqliteContextStore.nextTo(saver);
   * store.file; // "/data/checkpoints.contextview.sqlite"
   * ```
   */
  static nextTo(saver: CheckpointerWithDatabase, options: SqliteContextStoreOptions = {}): SqliteContextStore {
    const db = (saver as { db?: unknown } | null)?.db as Database.Database | undefined;
    if (typeof db?.name !== "string") {
      // A MemorySaver (or any checkpointer without a file) has nothing to sit beside.
      throw new ContextViewError(
        "INVALID_OPTION",
        `Expected \`saver\` to be a SqliteSaver (an object with a better-sqlite3 \`db\`), got ${describeValue(saver)}; ` +
          "beside a MemorySaver use `new InMemoryContextStore()` from @contextview/core, or `SqliteContextStore.fromConnString(path)` for a store on disk",
        { field: "saver" },
      );
    }
    const override = storePathFromEnv();
    const busyTimeoutMs = checkBusyTimeout(options.busyTimeoutMs);
    let opened: Database.Database;
    if (override !== undefined) opened = openDatabase(override.path, override.variable, busyTimeoutMs);
    else if (db.memory || isMemoryPath(db.name)) opened = openDatabase(":memory:", "saver.db", busyTimeoutMs);
    else opened = openDatabase(sidecarPath(db.name), "saver.db.name", busyTimeoutMs);
    const store = new SqliteContextStore(opened, options);
    store.ownsDatabase = true;
    return store;
  }

  /**
   * The database file (`:memory:` for an in-memory store). The store remembers which
   * file it opened (device and inode) and checks, with one `stat` before every call,
   * that the path still names it: a file deleted, moved or replaced under a running
   * store fails the call with `STORE_ERROR` (`details.reason` `"deleted"` or
   * `"replaced"`) instead of writing into a file no one will open again. Reopen the
   * store (restart the process) to start a new, empty file on purpose.
   */
  get file(): string {
    return this.#db.memory ? ":memory:" : this.#db.name;
  }

  async update(userId: string, conversationId: string, messages: readonly MessageInput[], options: EvidenceCallOptions = {}): Promise<EvidenceState> {
    const key = conversationKey(userId, conversationId);
    return updateEvidence(
      messages,
      {
        read: () => this.readEvidence(key),
        commit: (expected, next) => {
          try {
            return this.prepared("write evidence").commitEvidence(key, expected, next);
          } catch (cause) {
            throw storeError("write evidence", cause);
          }
        },
      },
      { ...options, maxMessageBytes: this.maxMessageBytes },
    );
  }

  async load(userId: string, conversationId: string): Promise<EvidenceState> {
    return this.readEvidence(conversationKey(userId, conversationId))?.state ?? EvidenceState.empty();
  }

  async getCompaction(key: ConversationKey): Promise<CompactionState | null> {
    const { userId, conversationId } = checkConversationKey(key);
    try {
      const row = this.prepared("read compaction state").readCompaction.get(userId, conversationId);
      return row === undefined ? null : parseCompactionState(JSON.parse(row.state));
    } catch (cause) {
      this.report(storeError("read compaction state", cause));
      return null;
    }
  }

  async putCompaction(key: ConversationKey, state: CompactionState): Promise<void> {
    const { userId, conversationId } = checkConversationKey(key);
    const json = JSON.stringify(parseCompactionState(state));
    try {
      this.prepared("write compaction state").writeCompaction.run(userId, conversationId, json, Date.now());
    } catch (cause) {
      this.report(storeError("write compaction state", cause));
    }
  }

  async deleteCompaction(key: ConversationKey): Promise<void> {
    const { userId, conversationId } = checkConversationKey(key);
    try {
      this.prepared("delete compaction state").deleteCompaction.run(userId, conversationId);
    } catch (cause) {
      throw storeError("delete compaction state", cause);
    }
  }

  async deleteConversation(userId: string, conversationId: string): Promise<void> {
    const key = conversationKey(userId, conversationId);
    try {
      const statements = this.prepared("delete the conversation");
      this.#db
        .transaction(() => {
          statements.deleteEvidence.run(key.userId, key.conversationId);
          statements.deleteCompaction.run(key.userId, key.conversationId);
          statements.views.remove(key);
        })
        .immediate();
    } catch (cause) {
      throw storeError("delete the conversation", cause);
    }
  }

  async recordView(key: ConversationKey, entry: ViewRecordEntry): Promise<ViewRecord> {
    const checked = checkConversationKey(key);
    const parsed = parseViewRecordEntry(entry);
    try {
      const sequence = this.prepared("record a view").views.record(checked, parsed);
      return { ...parsed.record, sequence };
    } catch (cause) {
      throw storeError("record a view", cause);
    }
  }

  async listViews(key: ConversationKey, options: ListViewsOptions = {}): Promise<StoredView[]> {
    const { userId, conversationId } = checkConversationKey(key);
    const limit = checkListViewsOptions(options);
    try {
      return this.prepared("list view records").views.list({ userId, conversationId }, limit);
    } catch (cause) {
      throw storeError("list view records", cause);
    }
  }

  /** Closes the database when the store opened it (`fromConnString`, `nextTo`); an injected handle stays open. */
  close(): void {
    if (this.ownsDatabase && this.#db.open) this.#db.close();
  }

  /** A description without the database handle, safe in traces and `config.configurable`. */
  toJSON(): { store: "SqliteContextStore"; file: string } {
    return { store: "SqliteContextStore", file: this.file };
  }


  private readEvidence(key: Readonly<ConversationKey>): EvidenceRecord | null {
    let row: EvidenceRow | undefined;
    try {
      row = this.prepared("read evidence").readEvidence.get(key.userId, key.conversationId);
    } catch (cause) {
      throw storeError("read evidence", cause);
    }
    if (row === undefined) return null;
    try {
      return { revision: row.revision, state: EvidenceState.fromJSON(JSON.parse(row.state)) };
    } catch (cause) {
      throw new ContextViewError("STORE_ERROR", `The stored evidence of this conversation is unreadable: ${(cause as Error).message}`, { operation: "read evidence" }, { cause });
    }
  }

  /**
   * Runs the migrations and prepares statements on first use; before every use, checks
   * that the file is still the one opened (see {@link SqliteContextStore.file}).
   */
  private prepared(operation: string): Statements {
    if (this.#file !== undefined) checkSameFile(this.#file, operation);
    if (this.#statements) return this.#statements;
    const db = this.#db;
    if (!db.memory) db.pragma("journal_mode = WAL");
    // A pragma takes no bound parameter; the value is an integer checked in the constructor.
    db.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    migrate(db);
    const where = "WHERE user_id = ? AND conversation_id = ?";
    const statements: Omit<Statements, "commitEvidence" | "views"> = {
      readEvidence: db.prepare(`SELECT revision, state FROM contextview_evidence ${where}`),
      deleteEvidence: db.prepare(`DELETE FROM contextview_evidence ${where}`),
      readCompaction: db.prepare(`SELECT state FROM contextview_compaction ${where}`),
      writeCompaction: db.prepare(
        `INSERT INTO contextview_compaction (user_id, conversation_id, state, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (user_id, conversation_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
      ),
      deleteCompaction: db.prepare(`DELETE FROM contextview_compaction ${where}`),
    };
    const readRevision = db.prepare<[string, string], { revision: number }>(`SELECT revision FROM contextview_evidence ${where}`);
    const writeEvidence = db.prepare<[string, string, number, number, string, string, number]>(
      `INSERT INTO contextview_evidence (user_id, conversation_id, revision, cursor, prefix_digest, state, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, conversation_id) DO UPDATE SET
         revision = excluded.revision, cursor = excluded.cursor, prefix_digest = excluded.prefix_digest,
         state = excluded.state, updated_at = excluded.updated_at`,
    );
    const commit = db.transaction((key: Readonly<ConversationKey>, expected: number, next: EvidenceState): boolean => {
      const current = readRevision.get(key.userId, key.conversationId)?.revision ?? 0;
      if (current !== expected) return false;
      writeEvidence.run(key.userId, key.conversationId, expected + 1, next.cursor, next.prefixDigest, JSON.stringify(next), Date.now());
      return true;
    });
    this.#statements = {
      ...statements,
      views: prepareViewRecords(db, this.maxViewRecords),
      commitEvidence: (key, expected, next) => commit.immediate(key, expected, next),
    };
    return this.#statements;
  }
}
