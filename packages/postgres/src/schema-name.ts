import { ContextViewError } from "@contextview/core";

/** The schema PostgreSQL and `PostgresSaver` use when none is given. */
export const DEFAULT_SCHEMA = "public";

/** An unquoted-identifier shape: letters, digits and `_`, not starting with a digit, at most 63 bytes. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Checks a schema name and returns it quoted for SQL. Only plain identifiers are
 * accepted (letters, digits, `_`, not starting with a digit, at most 63
 * characters), so a name never needs escaping; it is quoted all the same, which
 * keeps its case as written. Anything else is refused with `INVALID_OPTION`.
 *
 * @example
 * ```ts
 * quoteSchema("tenant_a"); // "\"tenant_a\""
 * quoteSchema('x"; DROP TABLE users; --'); // throws INVALID_OPTION naming `schema`
 * ```
 */
export function quoteSchema(schema: unknown, field = "schema"): string {
  if (typeof schema !== "string" || !IDENTIFIER.test(schema)) {
    const shown = typeof schema === "string" ? JSON.stringify(schema.slice(0, 80)) : typeof schema;
    throw new ContextViewError(
      "INVALID_OPTION",
      `Expected \`${field}\` to be a schema name of letters, digits and _ (not starting with a digit, at most 63 characters), got ${shown}`,
      { field },
    );
  }
  return `"${schema}"`;
}
