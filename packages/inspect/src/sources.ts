import { existsSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import type { ContextStore } from "@contextview/core";
import { SqliteContextStore, sidecarPath } from "@contextview/sqlite";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { InspectError } from "./errors.js";
import type { CheckpointReader } from "./inspect-thread.js";
import type { ThreadSummary } from "./page/render-index.js";

/** Where a thread's checkpoints and view records are read from. */
export interface InspectSources {
  checkpointer: CheckpointReader;
  store: Pick<ContextStore, "listViews">;
  /** Every thread with checkpoints, and the users with view records in it. */
  listThreads(): Promise<ThreadSummary[]>;
  /** The users with view records in a thread (to pick one when `--user` is not given). */
  usersOf(threadId: string): Promise<string[]>;
  /**
   * A cheap value that changes whenever the thread's checkpoints or the user's view
   * records do (read without deserializing a checkpoint). `--serve` keeps a built page
   * until it changes; without it every request builds the page again.
   * @default undefined
   */
  versionOf?(threadId: string, userId: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * Opens a `SqliteSaver` checkpoint file and the SQLite context store beside it
 * (`SqliteContextStore.nextTo`), or the store at `store` when given. Both files
 * must exist: the inspector never creates an empty one.
 *
 * @example
 * ```ts
 * const sources = openSqliteSources({ checkpoints: "data/checkpoints.sqlite" });
 * ```
 */
export function openSqliteSources(options: { checkpoints: string; store?: string }): InspectSources {
  const file = resolve(options.checkpoints);
  if (!existsSync(file)) throw new InspectError("NOT_FOUND", `No checkpoint file at ${file} (\`--checkpoints\`)`, { field: "checkpoints" });
  const storeFile = resolve(options.store ?? sidecarPath(file));
  if (!existsSync(storeFile)) {
    throw new InspectError("NOT_FOUND", `No context store at ${storeFile}; pass the store file with \`--store\` if it is elsewhere`, { field: "store" });
  }
  const saver = SqliteSaver.fromConnString(file);
  const store = SqliteContextStore.fromConnString(storeFile);
  const read = <Row>(sql: string, ...params: string[]): Row[] => {
    // Our own tables, read-only: which users have view records in which threads, and how many.
    const db = new Database(storeFile, { readonly: true, fileMustExist: true });
    try {
      return db.prepare(sql).all(...params) as Row[];
    } catch {
      return [];
    } finally {
      db.close();
    }
  };
  type UserRow = { user_id: string; conversation_id: string };
  return {
    checkpointer: saver,
    store,
    async listThreads() {
      const db = (saver as unknown as { db: Database.Database }).db;
      // SqliteSaver sets its tables up lazily; list() once so they exist even for an empty file.
      await saver.getTuple({ configurable: { thread_id: "" } });
      const threads = db.prepare("SELECT thread_id, COUNT(*) AS n FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY thread_id").all() as { thread_id: string; n: number }[];
      const users = read<UserRow>("SELECT DISTINCT user_id, conversation_id FROM contextview_views ORDER BY user_id");
      return threads.map((t) => ({ threadId: t.thread_id, checkpoints: t.n, userIds: users.filter((u) => u.conversation_id === t.thread_id).map((u) => u.user_id) }));
    },
    async usersOf(threadId) {
      const users = read<UserRow>("SELECT DISTINCT user_id, conversation_id FROM contextview_views WHERE conversation_id = ? ORDER BY user_id", threadId);
      return users.map((u) => u.user_id);
    },
    async versionOf(threadId, userId) {
      const db = (saver as unknown as { db: Database.Database }).db;
      await saver.getTuple({ configurable: { thread_id: "" } });
      const checkpoints = db.prepare("SELECT MAX(checkpoint_id) AS id, COUNT(*) AS n FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''");
      const newest = checkpoints.get(threadId);
      const views = read("SELECT MAX(sequence) AS sequence, COUNT(*) AS n FROM contextview_views WHERE user_id = ? AND conversation_id = ?", userId, threadId);
      return JSON.stringify([newest, views]);
    },
    async close() {
      store.close();
      (saver as unknown as { db: Database.Database }).db.close();
    },
  };
}

/** Loads an optional package by name, or says clearly that it is not installed. */
function loadOptional(name: string, why: string): Record<string, unknown> {
  try {
    return require(name) as Record<string, unknown>;
  } catch (cause) {
    throw new InspectError("MISSING_PACKAGE", `${why} needs the package ${name}, which is not installed; install it next to @contextview/inspect`, { field: name, cause });
  }
}

/** What the inspector uses of a node-postgres pool. */
type Queryable = { query: (sql: string, values?: unknown[]) => Promise<{ rows: unknown[] }> };

/** `versionOf` of the PostgreSQL sources: the thread's newest checkpoint and the user's newest view record, by id. */
function postgresVersionOf(pool: Queryable): NonNullable<InspectSources["versionOf"]> {
  return async (threadId, userId) => {
    const checkpoints = await pool.query(
      "SELECT MAX(checkpoint_id) AS id, COUNT(*)::int AS n FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = ''",
      [threadId],
    );
    // The store's tables may not exist yet (no record kept): that is a version too.
    const views = await pool
      .query("SELECT MAX(sequence) AS sequence, COUNT(*)::int AS n FROM contextview_views WHERE user_id = $1 AND conversation_id = $2", [userId, threadId])
      .catch(() => null);
    return JSON.stringify([checkpoints.rows, views?.rows ?? null]);
  };
}

/**
 * Opens a PostgreSQL checkpointer (`PostgresSaver`) and the PostgreSQL context
 * store, when `@contextview/postgres` and `@langchain/langgraph-checkpoint-postgres`
 * are installed (resolved at run time; `MISSING_PACKAGE` otherwise).
 *
 * @example
 * ```ts
 * const sources = await openPostgresSources({ url: "postgresql://postgres@127.0.0.1:5432/test" });
 * ```
 */
export async function openPostgresSources(options: { url: string }): Promise<InspectSources> {
  const contextPackage = loadOptional("@contextview/postgres", "`--postgres`");
  const checkpointPackage = loadOptional("@langchain/langgraph-checkpoint-postgres", "`--postgres`");
  type OpenedStore = ContextStore & { end?: () => Promise<void>; close?: () => Promise<void> | void };
  const Store = contextPackage["PostgresContextStore"] as { fromConnString?: (url: string) => OpenedStore } | undefined;
  type OpenedSaver = CheckpointReader & { end?: () => Promise<void>; pool?: Queryable };
  const Saver = checkpointPackage["PostgresSaver"] as { fromConnString?: (url: string) => OpenedSaver } | undefined;
  if (typeof Store?.fromConnString !== "function") throw new InspectError("MISSING_PACKAGE", "The installed @contextview/postgres has no PostgresContextStore.fromConnString", { field: "@contextview/postgres" });
  if (typeof Saver?.fromConnString !== "function") throw new InspectError("MISSING_PACKAGE", "The installed @langchain/langgraph-checkpoint-postgres has no PostgresSaver.fromConnString", { field: "@langchain/langgraph-checkpoint-postgres" });
  const saver = Saver.fromConnString(options.url);
  const store = Store.fromConnString(options.url);
  if (typeof store.listViews !== "function") throw new InspectError("MISSING_PACKAGE", "The installed @contextview/postgres does not keep view records (no listViews); upgrade it", { field: "@contextview/postgres" });
  return {
    checkpointer: saver,
    store,
    async listThreads() {
      const result = await saver.pool?.query("SELECT thread_id, COUNT(*)::int AS n FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id ORDER BY thread_id");
      return ((result?.rows ?? []) as { thread_id: string; n: number }[]).map((t) => ({ threadId: t.thread_id, checkpoints: t.n, userIds: [] }));
    },
    async usersOf() {
      return [];
    },
    ...(saver.pool === undefined ? {} : { versionOf: postgresVersionOf(saver.pool) }),
    async close() {
      // PostgresContextStore ends the pool it opened with `end()`.
      await (store.end ?? store.close)?.call(store);
      await saver.end?.();
    },
  };
}
