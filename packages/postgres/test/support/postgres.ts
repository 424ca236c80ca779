import { randomBytes } from "node:crypto";
import pg from "pg";

/** The server the PostgreSQL tests use. */
export const POSTGRES_URL = process.env["POSTGRES_URL"] || "postgresql://postgres@127.0.0.1:5432/test";

/**
 * `describe` when the server is reachable (or required: CI=true), else `describe.skip`.
 * Jest's global set-up probes the server once and prints the one line saying how to run them.
 */
export const describePostgres: jest.Describe = process.env["CONTEXTVIEW_POSTGRES"] === "unreachable" ? describe.skip : describe;

/** A fresh schema name, unique across processes and runs. */
export function freshSchemaName(): string {
  return `cv_test_${randomBytes(6).toString("hex")}`;
}

/** Drops a schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A schema of its own for each test (not created: the stores create it), dropped
 * after the test, with every pool opened through `pool()` ended first.
 */
export function useSchema(): { schema: () => string; pool: () => pg.Pool } {
  let schema: string | undefined;
  const pools: pg.Pool[] = [];
  beforeEach(() => {
    schema = freshSchemaName();
  });
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end().catch(() => undefined)));
    if (schema) await dropSchema(schema);
    schema = undefined;
  });
  return {
    schema: () => {
      if (!schema) throw new Error("useSchema() is only available inside a test");
      return schema;
    },
    pool: () => {
      const pool = new pg.Pool({ connectionString: POSTGRES_URL });
      pool.on("error", () => undefined);
      pools.push(pool);
      return pool;
    },
  };
}
