import { statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { ContextViewError } from "@contextview/core";

/**
 * Environment variable that overrides where {@link SqliteContextStore.nextTo} puts the store.
 * @default "CONTEXTVIEW_STORE_PATH"
 * @example
 * ```ts
 * process.env[STORE_PATH_ENV] = "/data/contextview.sqlite";
 * ```
 */
export const STORE_PATH_ENV = "CONTEXTVIEW_STORE_PATH";

/** The 0.x name of {@link STORE_PATH_ENV}: refused, never read, so a store is never opened elsewhere unnoticed. */
const FORMER_STORE_PATH_ENV = "CONVERSATION_SUMMARY_DB_PATH";

/**
 * The store path set in the environment ({@link STORE_PATH_ENV}), and the variable it
 * came from. Throws `ContextViewError` `INVALID_OPTION` when only the 0.x name
 * `CONVERSATION_SUMMARY_DB_PATH` is set: reading nothing would open the store
 * somewhere else and lose sight of what the old path holds.
 *
 * @example
 * ```ts
 * const override = storePathFromEnv(); // { path: "/data/contextview.sqlite", variable: "CONTEXTVIEW_STORE_PATH" }
 * ```
 */
export function storePathFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): { path: string; variable: string } | undefined {
  const path = env[STORE_PATH_ENV];
  if (path !== undefined && path !== "") return { path, variable: STORE_PATH_ENV };
  const former = env[FORMER_STORE_PATH_ENV];
  if (former !== undefined && former !== "") {
    const message = `\`${FORMER_STORE_PATH_ENV}\` is no longer read: rename it to \`${STORE_PATH_ENV}\` (${STORE_PATH_ENV}=${former})`;
    throw new ContextViewError("INVALID_OPTION", message, { field: FORMER_STORE_PATH_ENV });
  }
  return undefined;
}

/** Appended to the checkpoint file's name (its extension removed) to name the sidecar. */
export const SIDECAR_SUFFIX = ".contextview.sqlite";

/**
 * The sidecar file that sits beside a checkpoint database: same directory, the
 * checkpoint file's name without its extension, then `.contextview.sqlite`.
 *
 * @example
 * ```ts
 * sidecarPath("/data/checkpoints.sqlite"); // "/data/checkpoints.contextview.sqlite"
 * sidecarPath("state/graph.db"); // "<cwd>/state/graph.contextview.sqlite"
 * ```
 */
export function sidecarPath(checkpointPath: string): string {
  const absolute = resolve(checkpointPath);
  return join(dirname(absolute), `${basename(absolute, extname(absolute))}${SIDECAR_SUFFIX}`);
}

/** True for the names better-sqlite3 gives a database that lives in memory. */
export function isMemoryPath(path: string): boolean {
  return path === ":memory:" || path === "";
}

/**
 * Opens a better-sqlite3 database at `path`, or in memory for `:memory:`. The
 * parent directory must exist: the store never creates directories, so a
 * mistyped volume path fails here instead of writing to an unexpected place.
 *
 * @param field names the setting the path came from, for the error message
 */
export function openDatabase(path: string, field: string, busyTimeoutMs: number): Database.Database {
  if (typeof path !== "string") throw new ContextViewError("INVALID_OPTION", `Expected \`${field}\` to be a file path or ":memory:"`, { field });
  if (isMemoryPath(path)) return new Database(":memory:", { timeout: busyTimeoutMs });
  const parent = dirname(resolve(path));
  let isDirectory = false;
  try {
    isDirectory = statSync(parent).isDirectory();
  } catch {
    isDirectory = false;
  }
  if (!isDirectory) {
    throw new ContextViewError(
      "INVALID_OPTION",
      `Expected the parent directory of \`${field}\` (${parent}) to exist; create it on a writable volume first`,
      { field, directory: parent },
    );
  }
  try {
    return new Database(path, { timeout: busyTimeoutMs });
  } catch (cause) {
    throw new ContextViewError("STORE_ERROR", `Could not open the context store at \`${field}\` (${resolve(path)}): ${(cause as Error).message}`, { field }, { cause });
  }
}

/** A database file as opened: its absolute path and the device and inode it had then. */
export interface OpenedFile {
  readonly path: string;
  readonly dev: number;
  readonly ino: number;
}

/**
 * The identity of the file a database was just opened on, or undefined when it cannot
 * be read (then the store does not check it).
 *
 * @example
 * ```ts
 * const opened = openedFile(db.name); // { path: "/data/checkpoints.contextview.sqlite", dev: 2049, ino: 131 }
 * ```
 */
export function openedFile(path: string): OpenedFile | undefined {
  const absolute = resolve(path);
  const stats = statSync(absolute, { throwIfNoEntry: false });
  return stats === undefined ? undefined : { path: absolute, dev: stats.dev, ino: stats.ino };
}

/**
 * Throws `STORE_ERROR` (`details.reason` `"deleted"` or `"replaced"`) unless `opened.path`
 * still names the file that was opened. One `stat`: cheap enough before every call.
 *
 * @example
 * ```ts
 * checkSameFile(opened, "write evidence"); // throws once the sidecar was deleted or replaced
 * ```
 */
export function checkSameFile(opened: OpenedFile, operation: string): void {
  const now = statSync(opened.path, { throwIfNoEntry: false });
  if (now !== undefined && now.dev === opened.dev && now.ino === opened.ino) return;
  const reason = now === undefined ? "deleted" : "replaced";
  throw new ContextViewError(
    "STORE_ERROR",
    `SQLite context store could not ${operation}: its file ${opened.path} was ${reason === "deleted" ? "deleted or moved" : "replaced by another file"} ` +
      "after the store opened it, so what it writes would be lost; reopen the store to start on the file now at that path",
    { operation, file: opened.path, reason },
  );
}
