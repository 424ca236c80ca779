// Reading the `$compacted` nodes of an earlier pass, and JSON helpers the projection shares.
import type { ReferenceTable } from "./references.js";

/**
 * The key that marks a shortened collection (`"rows"`) or text (`"text"`) inside
 * compacted JSON. Trusted only on a message that carries the compaction marker.
 *
 * @example
 * ```ts
 * const payload = JSON.parse(compactToolResult(message, 1500).content as string);
 * payload.transactions[COMPACTED_KEY]; // "rows"
 * ```
 */
export const COMPACTED_KEY = "$compacted";

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

export function skipped(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** Null-prototype record, so keys such as `__proto__` stay plain data. */
export function record(): Json {
  return Object.create(null) as Json;
}

export function leaf(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return value;
}

/** A full copy with JSON semantics; the payload was inspected, so the depth is bounded. */
export function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (skipped(item) ? null : copyJson(item)));
  if (!isRecord(value)) return leaf(value);
  const out = record();
  for (const key of Object.keys(value)) if (!skipped(value[key])) out[key] = copyJson(value[key]);
  return out;
}

export function readTable(value: unknown, count: number): ReferenceTable | undefined | false {
  if (value === undefined) return undefined;
  if (!isRecord(value) || !Array.isArray(value["fields"]) || !Array.isArray(value["rows"])) return false;
  if (!Object.keys(value).every((key) => key === "fields" || key === "rows" || key === "links")) return false;
  const fields = value["fields"] as unknown[];
  const rows = value["rows"] as unknown[];
  if (!fields.every((f) => typeof f === "string") || rows.length !== count || !rows.every((r) => Array.isArray(r))) return false;
  const table: ReferenceTable = { fields: fields as string[], rows: (rows as unknown[][]).map((row) => row.map(copyJson)) };
  const links = value["links"];
  if (links !== undefined) {
    if (!isRecord(links) || !Object.values(links).every((pattern) => typeof pattern === "string")) return false;
    table.links = { ...(links as Record<string, string>) };
  }
  return table;
}

/** An `omitted_ids` list of an earlier pass, as a one-column table. */
export function readIds(value: unknown, count: number): ReferenceTable | undefined | false {
  if (value === undefined) return undefined;
  if (!isRecord(value) || typeof value["field"] !== "string" || !Array.isArray(value["ids"]) || value["ids"].length !== count) return false;
  return { fields: [value["field"]], rows: (value["ids"] as unknown[]).map((id) => [copyJson(id)]) };
}

/** Keys a rows node may hold; an object with any other key is plain data. */
const ROWS_NODE_KEYS: ReadonlySet<string> = new Set([COMPACTED_KEY, "returned", "retained", "omitted", "notice", "projection", "rows", "omitted_refs", "omitted_ids", "nested_omissions"]);
/** Keys a text node may hold. */
const TEXT_NODE_KEYS: ReadonlySet<string> = new Set([COMPACTED_KEY, "frontmatter", "excerpt", "omitted_chars", "total_chars", "lines", "headings", "headings_omitted"]);
/** Keys of a `nested_omissions` entry for a collection, and for a text. */
const NESTED_ROWS_KEYS: ReadonlySet<string> = new Set(["path", "omitted", "omitted_refs"]);
const NESTED_TEXT_KEYS: ReadonlySet<string> = new Set(["path", "omitted_chars"]);

export function hasOnlyKeys(value: Json, allowed: ReadonlySet<string>): boolean {
  return Object.keys(value).every((key) => allowed.has(key));
}

/** Where a nested omission sits inside the collection that holds it: the row's index, then keys and indexes. */
export type NodePath = Array<string | number>;

/**
 * The `nested_omissions` of an earlier pass, copied, each inside an omitted row
 * (`from` ≤ row < `to`); false when malformed.
 */
export function readNested(value: unknown, from: number, to: number): Json[] | false {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return false;
  const entries: Json[] = [];
  for (const entry of value) {
    if (!isRecord(entry)) return false;
    const path = entry["path"];
    if (!Array.isArray(path) || path.length === 0 || !isCount(path[0]) || path[0] < from || path[0] >= to) return false;
    if (!path.every((step) => typeof step === "string" || isCount(step))) return false;
    const rows = isCount(entry["omitted"]) && hasOnlyKeys(entry, NESTED_ROWS_KEYS) && readTable(entry["omitted_refs"], entry["omitted"]) !== false;
    const text = isCount(entry["omitted_chars"]) && hasOnlyKeys(entry, NESTED_TEXT_KEYS);
    if (!rows && !text) return false;
    entries.push(copyJson(entry) as Json);
  }
  return entries;
}

/** A rows node of an earlier pass, checked so that data that merely looks like one (a fresh artifact's `$compacted` key) stays data. */
export interface RowsNodeParts {
  readonly returned: number;
  readonly rows: readonly unknown[];
  readonly prior: ReferenceTable | undefined;
  readonly nested: Json[];
}

export function readRowsNode(node: Json): RowsNodeParts | undefined {
  const rows = node["rows"];
  const returned = node["returned"];
  if (node[COMPACTED_KEY] !== "rows" || !hasOnlyKeys(node, ROWS_NODE_KEYS) || !Array.isArray(rows) || !isCount(returned) || rows.length > returned) return undefined;
  if (node["retained"] !== rows.length || node["omitted"] !== returned - rows.length || typeof node["notice"] !== "string") return undefined;
  const table = readTable(node["omitted_refs"], returned - rows.length);
  const ids = readIds(node["omitted_ids"], returned - rows.length);
  if (table !== undefined && ids !== undefined) return undefined;
  const prior = table ?? ids;
  const nested = readNested(node["nested_omissions"], rows.length, returned);
  if (prior === false || nested === false) return undefined;
  return { returned, rows, prior, nested };
}

/** A text node of an earlier pass, checked the same way: its parts add up to its total. */
export interface TextNodeParts {
  readonly excerpt: string;
  readonly omitted: number;
  readonly total: number;
}

export function readTextNode(node: Json): TextNodeParts | undefined {
  const excerpt = node["excerpt"];
  const omitted = node["omitted_chars"];
  const total = node["total_chars"];
  const frontmatter = node["frontmatter"] ?? "";
  if (node[COMPACTED_KEY] !== "text" || !hasOnlyKeys(node, TEXT_NODE_KEYS)) return undefined;
  if (typeof excerpt !== "string" || !isCount(omitted) || !isCount(total) || typeof frontmatter !== "string") return undefined;
  if (frontmatter.length + excerpt.length + omitted !== total) return undefined;
  return { excerpt, omitted, total };
}
