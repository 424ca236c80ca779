import { statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { ContextViewError } from "@contextview/core";

/** Environment variable that overrides where {@link SqliteContextStore.nextTo} puts the store. */
export const SUMMARY_DB_PATH_ENV = "CONVERSATION_SUMMARY_DB_PATH";

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
