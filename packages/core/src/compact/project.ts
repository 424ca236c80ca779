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
  /** Rows left out, over every collection (earlier passes included). */
  readonly omittedRows: number;
  /** Characters left out, over every text field (earlier passes included). */
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

    const rowsNode = (returned: number, rows: unknown[], table: ReferenceTable | undefined): Json => {
      const retained = rows.length;
      const omitted = returned - retained;
      omittedRows += omitted;
      const which = retained === 0 ? `All ${returned} rows are` : `Rows ${retained + 1}-${returned} of ${returned} are`;
      const node = record();
      node[COMPACTED_KEY] = "rows";
      node["returned"] = returned;
      node["retained"] = retained;
      node["omitted"] = omitted;
      node["notice"] =
        `${which} omitted from this view${table ? "; their references are in omitted_refs" : ""}. ` +
        "For full rows, consult the original tool result (artifact) or call the source tool again.";
      node["rows"] = rows;
      if (table) node["omitted_refs"] = table;
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
      const excerpt = node["excerpt"];
      const omitted = node["omitted_chars"];
      const total = node["total_chars"];
      if (typeof excerpt !== "string" || !isCount(omitted) || !isCount(total)) return undefined;
      const n = excerpt.length <= cap ? excerpt.length : prefixLength(excerpt, cap, true);
      if (n < excerpt.length) shortened++;
      const extra = record();
      for (const key of ["frontmatter", "lines", "headings", "headings_omitted"]) if (key in node) extra[key] = copyJson(node[key]);
      return textNode(excerpt.slice(0, n), omitted + excerpt.length - n, total, extra);
    };

    const projectArray = (items: readonly unknown[], cap: number): unknown => {
      if (items.length <= cap) return items.map(projectElement);
      shortened++;
      const retained = items.slice(0, cap).map(projectElement);
      return rowsNode(items.length, retained, refs.table(items, cap));
    };

    /** A collection node of an earlier pass: it keeps a prefix of its rows and adds their references. */
    const projectRowsNode = (node: Json, cap: number): Json | undefined => {
      const rows = node["rows"];
      const returned = node["returned"];
      if (!Array.isArray(rows) || !isCount(returned) || rows.length > returned) return undefined;
      const prior = readTable(node["omitted_refs"], returned - rows.length);
      if (prior === false) return undefined;
      const keep = Math.min(rows.length, cap);
      if (keep < rows.length) shortened++;
      const table = keep < rows.length ? concatTables(refs.table(rows, keep), rows.length - keep, prior, returned - rows.length) : prior;
      return rowsNode(returned, rows.slice(0, keep).map(projectElement), table);
    };

    const projectObject = (value: Json, rowCap: number, stringCap: number): Json => {
      if (trusted && typeof value[COMPACTED_KEY] === "string") {
        const kind = value[COMPACTED_KEY];
        const node = kind === "rows" ? projectRowsNode(value, rowCap) : kind === "text" ? projectTextNode(value, stringCap) : undefined;
        if (node !== undefined) return node;
      }
      const out = record();
      for (const key of Object.keys(value)) {
        const item = value[key];
        if (skipped(item)) continue;
        out[key] = options.preserveKeys.has(key) ? copyJson(item) : projectValue(item, fieldRowCap(key), fieldStringCap(key));
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
      if (isRecord(value)) return projectObject(value, rowCap, stringCap);
      return leaf(value);
    }

    function projectElement(value: unknown): unknown {
      return skipped(value) ? null : projectValue(value, level * OTHER_ARRAY_FACTOR, otherStringCap);
    }

    // The payload itself is the main collection when it is an array.
    const value = projectValue(root, level, textCap);
    return { value, shortened, omittedRows, omittedChars };
  };
}
