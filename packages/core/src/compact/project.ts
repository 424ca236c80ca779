import { indexHeadings, splitFrontmatter, type HeadingIndex } from "./note-lines.js";
import type { ResolvedCompactOptions } from "./options.js";
import { concatTables, createReferenceReader, type ReferenceReader, type ReferenceTable } from "./references.js";
import { prefixLength } from "./text-excerpt.js";

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

/** Characters of each recognised text field per projection level (a level also keeps one row per collection). */
const TEXT_CHARS_PER_LEVEL = 80;
/** Strings outside the recognised text fields (titles, names, ids) keep at least this many characters. */
const OTHER_STRING_FLOOR = 256;
/** Arrays outside the recognised collections keep this many times as many rows. */
const OTHER_ARRAY_FACTOR = 2;

/** A projection of a payload at one level, with what it left out. */
export interface Projection {
  readonly value: unknown;
  /** Collections and texts shortened at this level; 0 means the payload is whole. */
  readonly shortened: number;
  /** Rows left out, over every collection and nested omission (earlier passes included). */
  readonly omittedRows: number;
  /** Characters left out, over every text field and nested omission (earlier passes included). */
  readonly omittedChars: number;
}

/** Builds projections of one payload at any level, sharing caches between levels. */
export type Projector = (level: number) => Projection;

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

function skipped(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** Null-prototype record, so keys such as `__proto__` stay plain data. */
function record(): Json {
  return Object.create(null) as Json;
}

function leaf(value: unknown): unknown {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  return value;
}

/** A full copy with JSON semantics; the payload was inspected, so the depth is bounded. */
function copyJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (skipped(item) ? null : copyJson(item)));
  if (!isRecord(value)) return leaf(value);
  const out = record();
  for (const key of Object.keys(value)) if (!skipped(value[key])) out[key] = copyJson(value[key]);
  return out;
}

function readTable(value: unknown, count: number): ReferenceTable | undefined | false {
  if (value === undefined) return undefined;
  if (!isRecord(value) || !Array.isArray(value["fields"]) || !Array.isArray(value["rows"])) return false;
  const fields = value["fields"] as unknown[];
  const rows = value["rows"] as unknown[];
  if (!fields.every((f) => typeof f === "string") || rows.length !== count || !rows.every((r) => Array.isArray(r))) return false;
  return { fields: fields as string[], rows: (rows as unknown[][]).map((row) => row.map(copyJson)) };
}

/** Keys a rows node may hold; an object with any other key is plain data. */
const ROWS_NODE_KEYS: ReadonlySet<string> = new Set([COMPACTED_KEY, "returned", "retained", "omitted", "notice", "rows", "omitted_refs", "nested_omissions"]);
/** Keys a text node may hold. */
const TEXT_NODE_KEYS: ReadonlySet<string> = new Set([COMPACTED_KEY, "frontmatter", "excerpt", "omitted_chars", "total_chars", "lines", "headings", "headings_omitted"]);
/** Keys of a `nested_omissions` entry for a collection, and for a text. */
const NESTED_ROWS_KEYS: ReadonlySet<string> = new Set(["path", "omitted", "omitted_refs"]);
const NESTED_TEXT_KEYS: ReadonlySet<string> = new Set(["path", "omitted_chars"]);

function hasOnlyKeys(value: Json, allowed: ReadonlySet<string>): boolean {
  return Object.keys(value).every((key) => allowed.has(key));
}

/** Where a nested omission sits inside the collection that holds it: the row's index, then keys and indexes. */
type NodePath = Array<string | number>;

/**
 * The `nested_omissions` of an earlier pass, copied, each inside an omitted row
 * (`from` ≤ row < `to`); false when malformed.
 */
function readNested(value: unknown, from: number, to: number): Json[] | false {
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
interface RowsNodeParts {
  readonly returned: number;
  readonly rows: readonly unknown[];
  readonly prior: ReferenceTable | undefined;
  readonly nested: Json[];
}

function readRowsNode(node: Json): RowsNodeParts | undefined {
  const rows = node["rows"];
  const returned = node["returned"];
  if (node[COMPACTED_KEY] !== "rows" || !hasOnlyKeys(node, ROWS_NODE_KEYS) || !Array.isArray(rows) || !isCount(returned) || rows.length > returned) return undefined;
  if (node["retained"] !== rows.length || node["omitted"] !== returned - rows.length || typeof node["notice"] !== "string") return undefined;
  const prior = readTable(node["omitted_refs"], returned - rows.length);
  const nested = readNested(node["nested_omissions"], rows.length, returned);
  if (prior === false || nested === false) return undefined;
  return { returned, rows, prior, nested };
}

/** A text node of an earlier pass, checked the same way: its parts add up to its total. */
interface TextNodeParts {
  readonly excerpt: string;
  readonly omitted: number;
  readonly total: number;
}

function readTextNode(node: Json): TextNodeParts | undefined {
  const excerpt = node["excerpt"];
  const omitted = node["omitted_chars"];
  const total = node["total_chars"];
  const frontmatter = node["frontmatter"] ?? "";
  if (node[COMPACTED_KEY] !== "text" || !hasOnlyKeys(node, TEXT_NODE_KEYS)) return undefined;
  if (typeof excerpt !== "string" || !isCount(omitted) || !isCount(total) || typeof frontmatter !== "string") return undefined;
  if (frontmatter.length + excerpt.length + omitted !== total) return undefined;
  return { excerpt, omitted, total };
}

/**
 * Create the projector of a payload. `trusted` says the payload is the content of
 * an earlier compaction, whose `$compacted` nodes are taken as such (in a fresh
 * payload they are plain data).
 */
export function createProjector(root: unknown, options: ResolvedCompactOptions, trusted: boolean): Projector {
  const refs: ReferenceReader = createReferenceReader(options.isReference, copyJson);
  const headings = new Map<string, HeadingIndex>();

  return (level) => {
    const textCap = level * TEXT_CHARS_PER_LEVEL;
    let shortened = 0;
    let omittedRows = 0;
    let omittedChars = 0;

    /** `nested` are the earlier omissions inside the omitted rows; the node counts them with its own. */
    const rowsNode = (returned: number, rows: unknown[], table: ReferenceTable | undefined, nested: Json[]): Json => {
      const retained = rows.length;
      const omitted = returned - retained;
      omittedRows += omitted;
      for (const entry of nested) {
        if (typeof entry["omitted"] === "number") omittedRows += entry["omitted"];
        else omittedChars += entry["omitted_chars"] as number;
      }
      const which = retained === 0 ? `All ${returned} rows are` : `Rows ${retained + 1}-${returned} of ${returned} are`;
      const node = record();
      node[COMPACTED_KEY] = "rows";
      node["returned"] = returned;
      node["retained"] = retained;
      node["omitted"] = omitted;
      node["notice"] =
        `${which} omitted from this view${table ? "; their references are in omitted_refs" : ""}` +
        `${nested.length > 0 ? "; nested_omissions counts what was shortened inside them, with its references" : ""}. ` +
        "For full rows, consult the original tool result (artifact) or call the source tool again.";
      node["rows"] = rows;
      if (table) node["omitted_refs"] = table;
      if (nested.length > 0) node["nested_omissions"] = nested;
      return node;
    };

    const textNode = (excerpt: string, omitted: number, total: number, extra: Json): Json => {
      omittedChars += omitted;
      const node = record();
      node[COMPACTED_KEY] = "text";
      // Frontmatter first: it is note metadata the model should read before the excerpt.
      if (extra["frontmatter"] !== undefined) node["frontmatter"] = extra["frontmatter"];
      node["excerpt"] = excerpt;
      node["omitted_chars"] = omitted;
      node["total_chars"] = total;
      for (const key of Object.keys(extra)) if (key !== "frontmatter") node[key] = extra[key];
      return node;
    };

    const projectString = (text: string, cap: number): unknown => {
      const { frontmatter, body } = splitFrontmatter(text);
      if (body.length <= cap) return text;
      shortened++;
      const n = prefixLength(body, cap, true);
      let index = headings.get(text);
      if (index === undefined) {
        index = indexHeadings(body, options.maxHeadings);
        headings.set(text, index);
      }
      const extra = record();
      if (frontmatter !== "") extra["frontmatter"] = frontmatter;
      if (index.headings.length > 0) {
        extra["lines"] = index.lines;
        extra["headings"] = [...index.headings];
        if (index.omitted > 0) extra["headings_omitted"] = index.omitted;
      }
      return textNode(body.slice(0, n), body.length - n, text.length, extra);
    };

    /** A text node of an earlier pass: its excerpt may only get shorter, its omission only larger. */
    const projectTextNode = (node: Json, cap: number): Json | undefined => {
      const parts = readTextNode(node);
      if (parts === undefined) return undefined;
      const { excerpt, omitted, total } = parts;
      const n = excerpt.length <= cap ? excerpt.length : prefixLength(excerpt, cap, true);
      if (n < excerpt.length) shortened++;
      const extra = record();
      for (const key of ["frontmatter", "lines", "headings", "headings_omitted"]) if (key in node) extra[key] = copyJson(node[key]);
      return textNode(excerpt.slice(0, n), omitted + excerpt.length - n, total, extra);
    };

    /**
     * The earlier pass's nodes inside `rows[from..]`, rows this pass omits, as
     * `nested_omissions` entries in source order: each node's whole collection or
     * text is now omitted, so it counts all of it and keeps the references of all
     * its rows, and the nodes inside those rows follow it. A fresh payload has no
     * nodes. The walk skips what the projection copies whole (preserved keys, row
     * references), where nodes are not recognised either.
     */
    const nestedOmissions = (rows: readonly unknown[], from: number): Json[] => {
      const found: Json[] = [];
      if (!trusted) return found;
      const path: NodePath = [];
      const entry = (fields: Json): void => {
        const out = record();
        out["path"] = [...path];
        Object.assign(out, fields);
        found.push(out);
      };
      const visitRows = (items: readonly unknown[], start: number): void => {
        for (let i = start; i < items.length; i++) {
          path.push(i);
          visit(items[i], true);
          path.pop();
        }
      };
      function visit(value: unknown, isRow: boolean): void {
        if (Array.isArray(value)) return visitRows(value, 0);
        if (!isRecord(value)) return;
        const kind = value[COMPACTED_KEY];
        const text = kind === "text" ? readTextNode(value) : undefined;
        if (text !== undefined) return entry({ omitted_chars: text.total });
        const node = kind === "rows" ? readRowsNode(value) : undefined;
        if (node !== undefined) {
          const { returned, rows: kept, prior, nested } = node;
          const table = concatTables(refs.table(kept, 0), kept.length, prior, returned - kept.length);
          entry(table === undefined ? { omitted: returned } : { omitted: returned, omitted_refs: table });
          visitRows(kept, 0);
          for (const inner of nested) entry({ ...inner, path: [...path, ...(inner["path"] as NodePath)] });
          return;
        }
        for (const key of Object.keys(value)) {
          if (options.preserveKeys.has(key) || (isRow && options.isReference(key))) continue;
          path.push(key);
          visit(value[key], false);
          path.pop();
        }
      }
      visitRows(rows, from);
      return found;
    };

    const projectArray = (items: readonly unknown[], cap: number): unknown => {
      if (items.length <= cap) return items.map(projectElement);
      shortened++;
      const retained = items.slice(0, cap).map(projectElement);
      return rowsNode(items.length, retained, refs.table(items, cap), nestedOmissions(items, cap));
    };

    /**
     * A collection node of an earlier pass: it keeps a prefix of its rows and adds
     * what it drops (references, and the nodes inside those rows) before what the
     * earlier pass omitted, which comes later in source order.
     */
    const projectRowsNode = (node: Json, cap: number): Json | undefined => {
      const parts = readRowsNode(node);
      if (parts === undefined) return undefined;
      const { returned, rows, prior, nested } = parts;
      const keep = Math.min(rows.length, cap);
      if (keep < rows.length) shortened++;
      const table = keep < rows.length ? concatTables(refs.table(rows, keep), rows.length - keep, prior, returned - rows.length) : prior;
      const retained = rows.slice(0, keep).map(projectElement);
      return rowsNode(returned, retained, table, [...nestedOmissions(rows, keep), ...nested]);
    };

    /** `isRow`: the object is an array element, whose references stay whole, as `omitted_refs` would keep them. */
    const projectObject = (value: Json, rowCap: number, stringCap: number, isRow: boolean): Json => {
      if (trusted && typeof value[COMPACTED_KEY] === "string") {
        const kind = value[COMPACTED_KEY];
        const node = kind === "rows" ? projectRowsNode(value, rowCap) : kind === "text" ? projectTextNode(value, stringCap) : undefined;
        if (node !== undefined) return node;
      }
      const out = record();
      for (const key of Object.keys(value)) {
        const item = value[key];
        if (skipped(item)) continue;
        const whole = options.preserveKeys.has(key) || (isRow && options.isReference(key));
        out[key] = whole ? copyJson(item) : projectValue(item, fieldRowCap(key), fieldStringCap(key));
      }
      return out;
    };

    const otherStringCap = Math.max(OTHER_STRING_FLOOR, textCap * 2);
    const fieldRowCap = (key: string): number => (options.collectionKeys.has(key) ? level : level * OTHER_ARRAY_FACTOR);
    const fieldStringCap = (key: string): number => (options.textFields.has(key) ? textCap : otherStringCap);

    /** `rowCap` and `stringCap` apply to this value; its children get caps from their own keys. */
    function projectValue(value: unknown, rowCap: number, stringCap: number): unknown {
      if (typeof value === "string") return projectString(value, stringCap);
      if (Array.isArray(value)) return projectArray(value, rowCap);
      if (isRecord(value)) return projectObject(value, rowCap, stringCap, false);
      return leaf(value);
    }

    function projectElement(value: unknown): unknown {
      if (skipped(value)) return null;
      if (isRecord(value)) return projectObject(value, level * OTHER_ARRAY_FACTOR, otherStringCap, true);
      return projectValue(value, level * OTHER_ARRAY_FACTOR, otherStringCap);
    }

    // The payload itself is the main collection when it is an array.
    const value = projectValue(root, level, textCap);
    return { value, shortened, omittedRows, omittedChars };
  };
}
