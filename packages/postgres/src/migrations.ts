import type { PoolClient } from "pg";
import { ContextViewError } from "@contextview/core";
import { quoteSchema } from "./schema-name.js";

/**
 * Table that records which {@link MIGRATIONS} ran; ours alone, never the checkpointer's.
 *
 * @example
 * ```ts
 * await pool.query(`SELECT v, applied_at FROM "agents".${MIGRATIONS_TABLE} ORDER BY v`);
 * ```
 */
export const MIGRATIONS_TABLE = "contextview_migrations";

/**
 * Schema changes, versioned by position: migration `v` is `MIGRATIONS[v](schema)`,
 * given the quoted schema name. Append only; never edit or reorder a migration
 * that has shipped. The tables carry the `contextview_` prefix, so they sit beside
 * `PostgresSaver`'s `checkpoints*` tables in one schema without touching them.
 *
 * @example
 * ```ts
 * MIGRATIONS.length; // the schema version a migrated database is at
 * MIGRATIONS[0]?.('"public"'); // the SQL of the first migration
 * ```
 */
export const MIGRATIONS: readonly ((schema: string) => string)[] = Object.freeze([
  (schema: string) => `CREATE TABLE ${schema}.contextview_evidence (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     revision INTEGER NOT NULL CHECK (revision > 0),
     cursor INTEGER NOT NULL CHECK (cursor >= 0),
     prefix_digest TEXT NOT NULL,
     state TEXT NOT NULL,
     updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     PRIMARY KEY (user_id, conversation_id)
   );
   CREATE TABLE ${schema}.contextview_compaction (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     state TEXT NOT NULL,
     updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
     PRIMARY KEY (user_id, conversation_id)
   );`,
  // v1: view records (`recordView`, `listViews`) and the input texts they name by hash.
  (schema: string) => `CREATE TABLE ${schema}.contextview_views (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     sequence INTEGER NOT NULL CHECK (sequence > 0),
     record TEXT NOT NULL,
     input_hashes TEXT[] NOT NULL,
     recorded_at BIGINT NOT NULL,
     PRIMARY KEY (user_id, conversation_id, sequence)
   );
   CREATE TABLE ${schema}.contextview_view_inputs (
     user_id TEXT NOT NULL,
     conversation_id TEXT NOT NULL,
     hash TEXT NOT NULL,
     text TEXT NOT NULL,
     PRIMARY KEY (user_id, conversation_id, hash)
   );`,
  // v2: the key of one recordView call, so a call retried after its COMMIT's reply was lost finds its record instead of writing it twice.
  (schema: string) => `ALTER TABLE ${schema}.contextview_views ADD COLUMN record_key TEXT;
   CREATE UNIQUE INDEX contextview_views_record_key ON ${schema}.contextview_views (user_id, conversation_id, record_key);`,
]);

/**
 * Brings the schema up to date. Idempotent and safe when several processes set up
 * one database at once: everything runs in one transaction holding an advisory
 * lock named after the schema, so a second process waits, then finds nothing left
 * to do. The schema is created when missing.
 *
 * @param name the schema name (checked and quoted here)
 * @returns the schema version after migrating
 */
export async function migrate(client: PoolClient, name: string): Promise<number> {
  const schema = quoteSchema(name);
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`contextview_migrations:${name}`]);
    // Only when missing: CREATE SCHEMA needs a privilege a user of an existing schema may lack.
    const exists = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [name]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.${MIGRATIONS_TABLE} (v INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ v: number | null }>(`SELECT MAX(v) AS v FROM ${schema}.${MIGRATIONS_TABLE}`);
    const max = rows[0]?.v ?? null;
    const applied = max === null ? 0 : max + 1;
    if (applied > MIGRATIONS.length) {
      throw new ContextViewError(
        "STORE_ERROR",
        `The context store schema is at version ${applied}, newer than this @contextview/postgres knows (${MIGRATIONS.length}); upgrade the package`,
        { schemaVersion: applied, knownVersion: MIGRATIONS.length },
      );
    }
    for (let v = applied; v < MIGRATIONS.length; v++) {
      await client.query((MIGRATIONS[v] as (schema: string) => string)(schema));
      await client.query(`INSERT INTO ${schema}.${MIGRATIONS_TABLE} (v) VALUES ($1)`, [v]);
    }
    await client.query("COMMIT");
    return MIGRATIONS.length;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
