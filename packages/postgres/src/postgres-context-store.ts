// size: one class implementing the whole store contract on PostgreSQL; each method is short, the file is the contract
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { Pool, PoolClient, QueryResult, QueryResultRow } from "pg";
import { ContextViewError, type ContextStore, type MessageInput } from "@contextview/core";
import {
  EvidenceState,
  checkConversationKey,
  checkListViewsOptions,
  compactionErrorReporter,
  conversationKey,
  parseViewRecordEntry,
  resolveMaxViewRecords,
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
import { migrate } from "./migrations.js";
import { DEFAULT_SCHEMA, quoteSchema } from "./schema-name.js";

/** Options of {@link PostgresContextStore}. */
export interface PostgresContextStoreOptions {
  /**
   * The schema holding the store's tables (`contextview_*`), created by `setup()`
   * when missing. Letters, digits and `_` only; anything else is refused.
   * `nextTo(saver)` uses the saver's schema unless this is given.
   * @default "public"
   */
  schema?: string;
  /**
   * Milliseconds after which the server cancels one of the store's statements
   * (`SET LOCAL statement_timeout`, in a short transaction per statement); the
   * call then fails with `STORE_ERROR`, or behaves as "no cache" on the compaction
   * path. Without it, the server's own setting applies.
   * @default undefined
   */
  statementTimeoutMs?: number;
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
   * @example
   * ```ts
   * PostgresContextStore.fromConnString(url, { maxViewRecords: 50 }); // the newest 50 views of each conversation
   * ```
   */
  maxViewRecords?: number;
}

/** What {@link PostgresContextStore.nextTo} reads of a `PostgresSaver` (private in its typings, public at run time). */
interface SaverInternals {
  readonly pool?: unknown;
  readonly options?: { schema?: unknown };
}

interface EvidenceRow {
  revision: number;
  state: string;
}

function checkTimeout(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new ContextViewError("INVALID_OPTION", `Expected \`statementTimeoutMs\` to be a positive integer, got ${String(value)}`, { field: "statementTimeoutMs" });
  }
  return value;
}

/**
 * The 'error' listener of a pool the store made (`fromConnString`) or shares with
 * a saver that gave it none (`nextTo`). The pool emits an error of an idle
 * connection, such as one the server ended, after discarding it; nothing is left
 * to do, as the next call opens a new connection, but without a listener the
 * event would end the process.
 */
const ignoreIdleError = (): void => undefined;

function isPool(value: unknown): value is Pool {
  return typeof value === "object" && value !== null && typeof (value as Pool).query === "function" && typeof (value as Pool).connect === "function";
}

/** A `STORE_ERROR` naming the operation; one that already is a store error passes through. */
function storeError(operation: string, cause: unknown, more: Record<string, unknown> = {}): ContextViewError {
  if (ContextViewError.isInstance(cause) && cause.code === "STORE_ERROR") return cause as ContextViewError;
  const code = (cause as { code?: unknown })?.code;
  return new ContextViewError(
    "STORE_ERROR",
    `PostgreSQL context store could not ${operation}: ${(cause as Error)?.message ?? String(cause)}`,
    { operation, ...(typeof code === "string" ? { pgCode: code } : {}), ...more },
    { cause },
  );
}

/**
 * What a call on a connection that was lost reports: the failed statement's own
 * error when the server gave it a code (`57P01` for a terminated backend), else
 * the connection's (a statement sent after the loss only says the client is not
 * queryable).
 */
function causeOf(error: unknown, lost: Error | undefined): unknown {
  return lost === undefined || typeof (error as { code?: unknown } | null)?.code === "string" ? error : lost;
}

/**
 * Attempts of one `recordView` when the connection is lost under it, and the pause
 * before the second (doubled before each next one: 50, 100, 200, 400 ms).
 */
const RECORD_ATTEMPTS = 5;
const FIRST_RETRY_MS = 50;

/** Errors thrown by a transaction whose connection the server ended (see `PostgresContextStore.transaction`). */
const lostConnections = new WeakSet<object>();

/**
 * Whether a failed transaction may succeed when sent again on another connection: the
 * connection was lost (SQLSTATE class 08, a server shutting down or starting `57P01`–`57P03`,
 * a socket error, or an 'error' event on the client), or the server chose this
 * transaction to give way (`40001` serialization failure, `40P01` deadlock). A
 * statement timeout (`57014`) or a missing table is not retried.
 */
function isTransient(error: unknown): boolean {
  if (typeof error === "object" && error !== null && lostConnections.has(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return /^(08...|57P0[123]|40001|40P01)$/.test(code) || ["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT"].includes(code);
}

/** PostgreSQL text holds no NUL character: such a key is refused before it reaches the server. */
function pgKey(key: Readonly<ConversationKey>): Readonly<ConversationKey> {
  for (const field of ["userId", "conversationId"] as const) {
    if (key[field].includes("\u0000")) {
      throw new ContextViewError("INVALID_OPTION", `Expected \`${field}\` to contain no NUL character (PostgreSQL text cannot hold one)`, { field });
    }
  }
  return key;
}

/**
 * Evidence and compaction state on PostgreSQL (node-postgres), in tables of its
 * own beside LangGraph's `PostgresSaver`, for several replicas that share no disk.
 * The database serializes writers, never process memory: an evidence write is one
 * compare-and-set statement on the conversation's revision, so concurrent updates
 * of one conversation from any number of processes neither duplicate nor lose
 * work, and updates of different conversations never wait on each other. Heavy
 * work (validating and hashing the checkpoint) runs before it. Schema set-up is
 * lazy and idempotent; migrations are versioned by position.
 *
 * @example
 * ```ts
 * import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
 * const saver = PostgresSaver.fromConnString(process.env.POSTGRES_URL!);
 * await saver.setup();
 * const store = PostgresContextStore.nextTo(saver); // same pool, same schema
 * const state = await store.update(userId, threadId, checkpointMessages);
 * const evidence = state.asMessage(); // AIMessage | null
 * ```
 */
export class PostgresContextStore implements ContextStore {
  // Private fields: the pool never shows up through enumeration, JSON or inspection.
  readonly #pool: Pool;
  #ready: Promise<void> | undefined;
  #ended = false;
  /** The schema name, as given. */
  readonly schema: string;
  private readonly quoted: string;
  private readonly statementTimeoutMs: number | undefined;
  private readonly maxMessageBytes: number;
  private readonly report: (error: ContextViewError) => void;
  private readonly maxViewRecords: number;
  private ownsPool = false;

  /**
   * A store on a node-postgres `Pool`. The pool stays the caller's: `end()` does
   * not end it, and its 'error' listener is the caller's to give (`pool.on("error", …)`):
   * node-postgres emits there the error of an idle connection the server ended, and
   * without a listener the process exits. Connections the store has checked out
   * carry a listener of the store's; such a failure is the call's `STORE_ERROR`.
   *
   * @example
   * ```ts
   * import pg from "pg";
   * const store = new PostgresContextStore(new pg.Pool({ connectionString: url }), { schema: "agents" });
   * ```
   */
  constructor(pool: Pool, options: PostgresContextStoreOptions = {}) {
    if (!isPool(pool)) throw new ContextViewError("INVALID_OPTION", "Expected `pool` to be a node-postgres Pool", { field: "pool" });
    this.schema = options.schema ?? DEFAULT_SCHEMA;
    this.quoted = quoteSchema(this.schema);
    this.statementTimeoutMs = checkTimeout(options.statementTimeoutMs);
    this.maxMessageBytes = resolveMaxMessageBytes(options.maxMessageBytes);
    this.report = compactionErrorReporter(options.onCompactionError, (error) => process.emitWarning(error));
    this.maxViewRecords = resolveMaxViewRecords(options.maxViewRecords);
    this.#pool = pool;
  }

  /**
   * A store on its own pool to the database at `connString`, ended by `end()`.
   * A connection the server ends (a restart, a failover, `pg_terminate_backend`,
   * an idle timeout) is discarded, never an unhandled 'error' event: idle, it goes
   * unnoticed; in use, the call fails with `STORE_ERROR`. The next call reconnects.
   *
   * @example
   * ```ts
   * const store = PostgresContextStore.fromConnString("postgresql://app@db:5432/agents", { schema: "contextview" });
   * await store.setup(); // optional: the first call sets up the schema too
   * ```
   */
  static fromConnString(connString: string, options: PostgresContextStoreOptions = {}): PostgresContextStore {
    if (typeof connString !== "string" || connString === "") {
      throw new ContextViewError("INVALID_OPTION", "Expected `connString` to be a PostgreSQL connection string", { field: "connString" });
    }
    // Checked before a pool exists, so a refused option leaves no pool behind.
    quoteSchema(options.schema ?? DEFAULT_SCHEMA);
    checkTimeout(options.statementTimeoutMs);
    resolveMaxMessageBytes(options.maxMessageBytes);
    resolveMaxViewRecords(options.maxViewRecords);
    const pool = new pg.Pool({ connectionString: connString });
    pool.on("error", ignoreIdleError);
    const store = new PostgresContextStore(pool, options);
    store.ownsPool = true;
    return store;
  }

  /**
   * A store beside a `PostgresSaver` (typed `object`: the saver keeps its pool
   * private in its typings): the saver's pool and schema (or
   * `options.schema`), in tables of its own; the checkpointer's tables are never
   * touched. The pool stays the saver's: end it with `saver.end()`.
   *
   * `PostgresSaver.fromConnString` gives its pool no 'error' listener, so an idle
   * connection the server ends (a restart, a failover, `pg_terminate_backend`)
   * would end the process. When the pool has no 'error' listener, this adds one
   * that ignores such errors (the pool has discarded the connection already; the
   * next call, the saver's too, opens a new one). A listener of your own, added
   * before `nextTo`, is left alone and stays the only one.
   *
   * @example
   * ```ts
   * const saver = PostgresSaver.fromConnString(url, { schema: "graph" });
   * const store = PostgresContextStore.nextTo(saver);
   * store.schema; // "graph"
   * ```
   */
  static nextTo(saver: object, options: PostgresContextStoreOptions = {}): PostgresContextStore {
    const pool = (saver as SaverInternals | null)?.pool;
    if (!isPool(pool)) {
      throw new ContextViewError("INVALID_OPTION", "Expected `saver` to be a PostgresSaver (an object with a node-postgres `pool`)", { field: "saver" });
    }
    if (pool.listenerCount("error") === 0) pool.on("error", ignoreIdleError);
    const saverSchema = (saver as SaverInternals).options?.schema;
    const schema = options.schema ?? (typeof saverSchema === "string" ? saverSchema : DEFAULT_SCHEMA);
    return new PostgresContextStore(pool, { ...options, schema });
  }

  /**
   * Creates the schema and tables, or brings them up to date. Idempotent, safe
   * from several processes at once, and run by the first call when not called
   * first. A failure (`STORE_ERROR`) is not remembered: the next call tries again.
   *
   * @example
   * ```ts
   * await store.setup();
   * ```
   */
  setup(): Promise<void> {
    this.#ready ??= this.migrateOnce().catch((cause: unknown) => {
      this.#ready = undefined;
      throw storeError("set up its schema", cause);
    });
    return this.#ready;
  }

  /**
   * Ends the pool when the store created it (`fromConnString`); an injected or
   * a saver's pool stays open. Later calls fail with `STORE_ERROR`.
   */
  async end(): Promise<void> {
    if (this.ownsPool && !this.#ended) {
      this.#ended = true;
      await this.#pool.end();
    }
  }

  async update(userId: string, conversationId: string, messages: readonly MessageInput[], options: EvidenceCallOptions = {}): Promise<EvidenceState> {
    const key = pgKey(conversationKey(userId, conversationId));
    return updateEvidence(
      messages,
      {
        read: () => this.readEvidence(key),
        commit: async (expected, next) => {
          try {
            return await this.commitEvidence(key, expected, next);
          } catch (cause) {
            throw storeError("write evidence", cause);
          }
        },
      },
      { ...options, maxMessageBytes: this.maxMessageBytes },
    );
  }

  async load(userId: string, conversationId: string): Promise<EvidenceState> {
    return (await this.readEvidence(pgKey(conversationKey(userId, conversationId))))?.state ?? EvidenceState.empty();
  }

  async getCompaction(key: ConversationKey): Promise<CompactionState | null> {
    const { userId, conversationId } = pgKey(checkConversationKey(key));
    try {
      const { rows } = await this.query<{ state: string }>(`SELECT state FROM ${this.quoted}.contextview_compaction WHERE user_id = $1 AND conversation_id = $2`, [
        userId,
        conversationId,
      ]);
      return rows[0] === undefined ? null : parseCompactionState(JSON.parse(rows[0].state));
    } catch (cause) {
      this.report(storeError("read compaction state", cause));
      return null;
    }
  }

  async putCompaction(key: ConversationKey, state: CompactionState): Promise<void> {
    const { userId, conversationId } = pgKey(checkConversationKey(key));
    const json = JSON.stringify(parseCompactionState(state));
    try {
      await this.query(
        `INSERT INTO ${this.quoted}.contextview_compaction (user_id, conversation_id, state, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (user_id, conversation_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
        [userId, conversationId, json],
      );
    } catch (cause) {
      this.report(storeError("write compaction state", cause));
    }
  }

  async deleteCompaction(key: ConversationKey): Promise<void> {
    const { userId, conversationId } = pgKey(checkConversationKey(key));
    try {
      await this.query(`DELETE FROM ${this.quoted}.contextview_compaction WHERE user_id = $1 AND conversation_id = $2`, [userId, conversationId]);
    } catch (cause) {
      throw storeError("delete compaction state", cause);
    }
  }

  async deleteConversation(userId: string, conversationId: string): Promise<void> {
    const key = pgKey(conversationKey(userId, conversationId));
    try {
      // One statement, so every row goes or none does.
      await this.query(
        `WITH evidence AS (DELETE FROM ${this.quoted}.contextview_evidence WHERE user_id = $1 AND conversation_id = $2),
           views AS (DELETE FROM ${this.quoted}.contextview_views WHERE user_id = $1 AND conversation_id = $2),
           inputs AS (DELETE FROM ${this.quoted}.contextview_view_inputs WHERE user_id = $1 AND conversation_id = $2)
         DELETE FROM ${this.quoted}.contextview_compaction WHERE user_id = $1 AND conversation_id = $2`,
        [key.userId, key.conversationId],
      );
    } catch (cause) {
      throw storeError("delete the conversation", cause);
    }
  }

  /**
   * Numbers, writes and evicts in one transaction holding an advisory lock on the
   * conversation, so concurrent recorders of one conversation (from any process)
   * take consecutive sequences; other conversations never wait. A transaction that
   * loses its connection (or is chosen to give way) is tried again, up to 5 times in
   * about a second; every attempt carries the call's own key (`record_key`), so an
   * attempt whose COMMIT went through but whose reply was lost is found, not written
   * twice. `STORE_ERROR` (with `details.attempts`) when every attempt failed or the
   * failure is not one a new connection can fix.
   */
  async recordView(key: ConversationKey, entry: ViewRecordEntry): Promise<ViewRecord> {
    const checked = pgKey(checkConversationKey(key));
    const parsed = parseViewRecordEntry(entry);
    const recordKey = randomUUID();
    for (let attempts = 1; ; attempts++) {
      try {
        const sequence = await this.transaction((client) => this.writeView(client, checked, parsed, recordKey, attempts > 1));
        return { ...parsed.record, sequence };
      } catch (cause) {
        if (attempts >= RECORD_ATTEMPTS || !isTransient(cause)) throw storeError("record a view", cause, { attempts });
      }
      await new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_MS * 2 ** (attempts - 1)));
    }
  }

  /** The newest `limit` records (all by default), oldest first, each with the stored texts of its input hashes. */
  async listViews(key: ConversationKey, options: ListViewsOptions = {}): Promise<StoredView[]> {
    const { userId, conversationId } = pgKey(checkConversationKey(key));
    const limit = checkListViewsOptions(options);
    try {
      // One statement: the records and their texts come from one snapshot.
      const { rows } = await this.query<{ record: string; inputs: Record<string, string> | null }>(
        `SELECT v.record,
           (SELECT json_object_agg(i.hash, i.text) FROM ${this.quoted}.contextview_view_inputs AS i
             WHERE i.user_id = v.user_id AND i.conversation_id = v.conversation_id AND i.hash = ANY (v.input_hashes)) AS inputs
         FROM (SELECT * FROM ${this.quoted}.contextview_views WHERE user_id = $1 AND conversation_id = $2 ORDER BY sequence DESC LIMIT $3) AS v
         ORDER BY v.sequence`,
        [userId, conversationId, limit ?? null],
      );
      return rows.map((row) => {
        const inputs: Record<string, string> = {};
        for (const [hash, text] of Object.entries(row.inputs ?? {})) inputs[hash] = text;
        return { record: JSON.parse(row.record) as ViewRecord, inputs };
      });
    } catch (cause) {
      throw storeError("list view records", cause);
    }
  }

  /** A description without the pool, safe in traces and `config.configurable`. */
  toJSON(): { store: "PostgresContextStore"; schema: string } {
    return { store: "PostgresContextStore", schema: this.schema };
  }


  /**
   * One attempt of `recordView`, inside its transaction; returns the sequence given.
   * A retry first looks for the record an earlier attempt of the same call committed.
   */
  private async writeView(client: PoolClient, key: Readonly<ConversationKey>, parsed: ViewRecordEntry, recordKey: string, retry: boolean): Promise<number> {
    const { userId, conversationId } = key;
    const max = this.maxViewRecords;
    const t = this.quoted;
    const lock = [`contextview_views:${this.schema}`, JSON.stringify([userId, conversationId])];
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))", lock);
    if (retry && max > 0) {
      const earlier = await client.query<{ sequence: number }>(
        `SELECT sequence FROM ${t}.contextview_views WHERE user_id = $1 AND conversation_id = $2 AND record_key = $3`,
        [userId, conversationId, recordKey],
      );
      if (earlier.rows[0] !== undefined) return earlier.rows[0].sequence;
    }
    const { rows } = await client.query<{ sequence: number | null }>(
      `SELECT MAX(sequence) AS sequence FROM ${t}.contextview_views WHERE user_id = $1 AND conversation_id = $2`,
      [userId, conversationId],
    );
    const next = (rows[0]?.sequence ?? 0) + 1;
    if (max === 0) return next;
    const hashes = Object.values(parsed.record.inputs).filter((hash): hash is string => hash !== null);
    await client.query(
      `INSERT INTO ${t}.contextview_views (user_id, conversation_id, sequence, record, input_hashes, recorded_at, record_key)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [userId, conversationId, next, JSON.stringify({ ...parsed.record, sequence: next }), hashes, parsed.record.recordedAt, recordKey],
    );
    const inputs = Object.entries(parsed.inputs);
    if (inputs.length > 0) {
      await client.query(
        `INSERT INTO ${t}.contextview_view_inputs (user_id, conversation_id, hash, text)
         SELECT $1, $2, hash, text FROM unnest($3::text[], $4::text[]) AS i (hash, text)
         ON CONFLICT (user_id, conversation_id, hash) DO NOTHING`,
        [userId, conversationId, inputs.map(([hash]) => hash), inputs.map(([, text]) => text)],
      );
    }
    const evicted = await client.query(`DELETE FROM ${t}.contextview_views WHERE user_id = $1 AND conversation_id = $2 AND sequence <= $3`, [
      userId,
      conversationId,
      next - max,
    ]);
    if ((evicted.rowCount ?? 0) > 0) {
      await client.query(
        `DELETE FROM ${t}.contextview_view_inputs AS i WHERE i.user_id = $1 AND i.conversation_id = $2
         AND NOT EXISTS (SELECT 1 FROM ${t}.contextview_views AS v
           WHERE v.user_id = i.user_id AND v.conversation_id = i.conversation_id AND i.hash = ANY (v.input_hashes))`,
        [userId, conversationId],
      );
    }
    return next;
  }

  private async readEvidence(key: Readonly<ConversationKey>): Promise<EvidenceRecord | null> {
    let row: EvidenceRow | undefined;
    try {
      const result = await this.query<EvidenceRow>(`SELECT revision, state FROM ${this.quoted}.contextview_evidence WHERE user_id = $1 AND conversation_id = $2`, [
        key.userId,
        key.conversationId,
      ]);
      row = result.rows[0];
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
   * Compare-and-set in one statement: the row is inserted only if absent
   * (expected 0), or updated only while its revision is still `expected`. A
   * concurrent writer of the same row waits for the row lock, then finds the
   * revision moved and changes nothing.
   */
  private async commitEvidence(key: Readonly<ConversationKey>, expected: number, next: EvidenceState): Promise<boolean> {
    const values = [key.userId, key.conversationId, expected + 1, next.cursor, next.prefixDigest, JSON.stringify(next)];
    const result =
      expected === 0
        ? await this.query(
            `INSERT INTO ${this.quoted}.contextview_evidence (user_id, conversation_id, revision, cursor, prefix_digest, state, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, now()) ON CONFLICT (user_id, conversation_id) DO NOTHING`,
            values,
          )
        : await this.query(
            `UPDATE ${this.quoted}.contextview_evidence
             SET revision = $3, cursor = $4, prefix_digest = $5, state = $6, updated_at = now()
             WHERE user_id = $1 AND conversation_id = $2 AND revision = $3 - 1`,
            values,
          );
    return result.rowCount === 1;
  }

  /** One statement, after set-up; under `statementTimeoutMs` when set. */
  private async query<R extends QueryResultRow = QueryResultRow>(sql: string, values: unknown[]): Promise<QueryResult<R>> {
    await this.setup();
    if (this.statementTimeoutMs === undefined) return this.#pool.query<R>(sql, values);
    // SET LOCAL holds only inside a transaction.
    return this.transaction((client) => client.query<R>(sql, values));
  }

  /** `fn` in one transaction on one connection, after set-up; under `statementTimeoutMs` when set. */
  private async transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    await this.setup();
    const { client, lost, release } = await this.checkOut();
    let broken: Error | undefined;
    try {
      // The timeout is an integer checked in the constructor; SET takes no bound parameter.
      await client.query(this.statementTimeoutMs === undefined ? "BEGIN" : `BEGIN; SET LOCAL statement_timeout = ${this.statementTimeoutMs}`);
      const result = await fn(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      // On a lost connection the server has rolled back already, and a ROLLBACK would only fail.
      if (lost() === undefined) {
        await client.query("ROLLBACK").catch((rollbackError: Error) => {
          broken = rollbackError;
        });
      }
      const cause = causeOf(error, lost());
      if (lost() !== undefined && typeof cause === "object" && cause !== null) lostConnections.add(cause);
      throw cause;
    } finally {
      // A connection whose rollback failed is in an unknown state: the pool discards it.
      release(broken);
    }
  }

  private async migrateOnce(): Promise<void> {
    if (this.#ended) throw new Error("the store was ended");
    const { client, lost, release } = await this.checkOut();
    let broken: Error | undefined;
    try {
      await migrate(client, this.schema);
    } catch (error) {
      broken = lost() ?? (error instanceof Error ? error : new Error(String(error)));
      throw causeOf(error, lost());
    } finally {
      release(broken);
    }
  }

  /**
   * A client of the pool, with an 'error' listener for as long as it is checked
   * out. The pool listens only to its idle clients: when the server ends the
   * connection of a checked-out one (`pg_terminate_backend`, a failover, an idle
   * timeout), node-postgres emits 'error' on the client, often after the failed
   * statement has already rejected, and an 'error' event nobody listens to ends
   * the process. The listener keeps the first such error (`lost()`, see
   * {@link causeOf}); `release` hands the client back with it, so the pool
   * discards the connection and the next call opens a new one, and removes the
   * listener only after the pool has put its own back on the client.
   *
   * The callback form of `connect`: the pool calls it synchronously as it hands
   * the client over, so the listener is on before another message of the
   * connection is read. With `await pool.connect()` the client would have none
   * until the awaiting code resumes, and a server's FATAL message parsed from the
   * same network read as the previous reply lands in that gap (seen under
   * repeated `pg_terminate_backend`).
   */
  private checkOut(): Promise<{ client: PoolClient; lost: () => Error | undefined; release: (broken?: Error) => void }> {
    return new Promise((resolve, reject) => {
      this.#pool.connect((error, client) => {
        if (error || !client) {
          reject(error ?? new Error("the pool gave no client"));
          return;
        }
        let lost: Error | undefined;
        const onError = (connectionError: Error) => {
          lost ??= connectionError;
        };
        client.on("error", onError);
        resolve({
          client,
          lost: () => lost,
          release: (broken) => {
            client.release(lost ?? broken);
            client.removeListener("error", onError);
          },
        });
      });
    });
  }
}
