import type Database from "better-sqlite3";
import { ContextViewError } from "@contextview/core";

/** Table that records which {@link MIGRATIONS} ran; ours alone, never the checkpointer's. */
export const MIGRATIONS_TABLE = "contextview_migrations";

/**
 * Schema changes, versioned by position: migration `v` is `MIGRATIONS[v]`. Append
 * only; never edit or reorder a migration that has shipped.
 *
 * @example
 * ```ts
 * MIGRATIONS.length; // the schema version a migrated database is at
 * ```
 */
export const MIGRATIONS: readonly string[] = Object.freeze([
  `CREATE TABLE contextview_evidence (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     revision INTEGER NOT NULL CHECK (revision > 0),
     cursor INTEGER NOT NULL CHECK (cursor >= 0),
     prefix_digest TEXT NOT NULL,
     state TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (user_id, conversation_id)
   );
   CREATE TABLE contextview_compaction (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     state TEXT NOT NULL,
     updated_at INTEGER NOT NULL,
     PRIMARY KEY (user_id, conversation_id)
   );`,
  // v1: per-call view records (content-free JSON) and the input texts they name, once per hash.
  `CREATE TABLE contextview_views (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     sequence INTEGER NOT NULL CHECK (sequence > 0),
     record TEXT NOT NULL,
     input_hashes TEXT NOT NULL,
     recorded_at INTEGER NOT NULL,
     PRIMARY KEY (user_id, conversation_id, sequence)
   );
   CREATE TABLE contextview_view_inputs (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     hash TEXT NOT NULL,
     text TEXT NOT NULL,
     PRIMARY KEY (user_id, conversation_id, hash)
   );`,
]);

/**
 * Brings the schema up to date. Idempotent and safe when several processes open
 * one file at once: the check and the migrations run in one `BEGIN IMMEDIATE`
 * transaction, so a second process waits, then finds nothing left to do.
 *
 * @returns the schema version after migrating
 */
export function migrate(db: Database.Database): number {
  db.exec(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (v INTEGER PRIMARY KEY)`);
  const run = db.transaction((): number => {
    const row = db.prepare(`SELECT MAX(v) AS v FROM ${MIGRATIONS_TABLE}`).get() as { v: number | null };
    const applied = row.v === null ? 0 : row.v + 1;
    if (applied > MIGRATIONS.length) {
      throw new ContextViewError(
        "STORE_ERROR",
        `The context store schema is at version ${applied}, newer than this @contextview/sqlite knows (${MIGRATIONS.length}); upgrade the package`,
        { schemaVersion: applied, knownVersion: MIGRATIONS.length },
      );
    }
    const record = db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (v) VALUES (?)`);
    for (let v = applied; v < MIGRATIONS.length; v++) {
      db.exec(MIGRATIONS[v] as string);
      record.run(v);
    }
    return MIGRATIONS.length;
  });
  return run.immediate();
}
