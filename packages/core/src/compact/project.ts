import { indexHeadings, splitFrontmatter, type HeadingIndex } from "./note-lines.js";
import type { ResolvedCompactOptions } from "./options.js";
import { concatTables, createReferenceReader, identifiersOf, type IdentifierList, type ReferenceReader, type ReferenceTable } from "./references.js";
import { prefixLength } from "./text-excerpt.js";
import { COMPACTED_KEY, copyJson, isRecord, leaf, readRowsNode, readTextNode, record, skipped, type Json, type NodePath } from "./earlier-nodes.js";
import { namesOf, PROJECTION_NOTE, shrinkNested, withoutReferences } from "./project-rows.js";

export { COMPACTED_KEY } from "./earlier-nodes.js";

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
  /** Nested values of kept rows shown projected: objects as their identifying fields, arrays of named objects as their names. */
  readonly projected: number;
}

/**
 * How omitted rows are referred to: `"full"` lean references (identifiers, dates,
 * one link), `"ids"` one identifier per row, `"none"` only their count (with a
 * notice to narrow the query).
 */
export type ReferenceMode = "full" | "ids" | "none";

/** Builds projections of one payload at any level, sharing caches between levels. */
export type Projector = (level: number, mode?: ReferenceMode) => Projection;

/**
 * Create the projector of a payload. `trusted` says the payload is the content of
 * an earlier compaction, whose `$compacted` nodes are taken as such (in a fresh
 * payload they are plain data).
 */
export function createProjector(root: unknown, options: ResolvedCompactOptions, trusted: boolean): Projector {
  const refs: ReferenceReader = createReferenceReader(options.isReference, options.isExactReference, copyJson);
  const headings = new Map<string, HeadingIndex>();

  return (level, refMode = "full") => {
    const textCap = level * TEXT_CHARS_PER_LEVEL;
    let shortened = 0;
    let omittedRows = 0;
    let omittedChars = 0;
    let projected = 0;

    /**
     * `rows` of `returned` are kept and the rest omitted, referred to as `mode` says.
     * `table` holds the omitted rows' references (earlier passes included), `idField`
     * the identifier of the identifiers-only form; `nested` are the earlier omissions
     * inside the omitted rows, which the node counts with its own.
     */
    const rowsNode = (returned: number, rows: unknown[], rowsProjected: boolean, table: ReferenceTable | undefined, idField: string | undefined, nested: Json[]): Json => {
      const retained = rows.length;
      const omitted = returned - retained;
      omittedRows += omitted;
      for (const entry of nested) {
        if (typeof entry["omitted"] === "number") omittedRows += entry["omitted"];
        else omittedChars += entry["omitted_chars"] as number;
      }
      const which = retained === 0 ? `All ${returned} rows are` : `Rows ${retained + 1}-${returned} of ${returned} are`;
      const field = idField ?? (table !== undefined && table.fields.length === 1 ? table.fields[0] : undefined);
      const ids: IdentifierList | undefined = refMode === "ids" && omitted > 0 && field !== undefined ? identifiersOf(table, field, omitted) : undefined;
      const refs = refMode === "full" && omitted > 0 ? table : undefined;
      const where = refs ? "; their references are in omitted_refs" : ids ? `; their identifiers (${ids.field}) are in omitted_ids` : "";
      const node = record();
      node[COMPACTED_KEY] = "rows";
      node["returned"] = returned;
      node["retained"] = retained;
      node["omitted"] = omitted;
      node["notice"] =
        `${which} omitted from this view${where}` +
        `${nested.length > 0 && refMode !== "none" ? "; nested_omissions counts what was shortened inside them, with its references" : ""}. ` +
        (refMode === "none"
          ? "Too many to list here, even by identifier: narrow the query (filters, paging) to see them."
          : "For full rows, consult the original tool result (artifact) or narrow the query (filters, paging).");
      if (rowsProjected && retained > 0) node["projection"] = PROJECTION_NOTE;
      node["rows"] = rows;
      if (refs) node["omitted_refs"] = refs;
      if (ids) node["omitted_ids"] = ids;
      if (nested.length > 0) node["nested_omissions"] = refMode === "full" ? nested : nested.map(withoutReferences);
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
      const before = projected;
      const retained = items.slice(0, cap).map(projectElement);
      return rowsNode(items.length, retained, projected > before, refs.table(items, cap), refs.idField(items), nestedOmissions(items, cap));
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
      const before = projected;
      const retained = rows.slice(0, keep).map(projectElement);
      const idField = refs.idField(rows) ?? (prior !== undefined && prior.fields.length === 1 ? prior.fields[0] : undefined);
      return rowsNode(returned, retained, projected > before, table, idField, [...nestedOmissions(rows, keep), ...nested]);
    };

    /**
     * `isRow`: the object is an array element, whose references stay whole, as
     * `omitted_refs` would keep them, and whose nested objects are projected to
     * their identifying fields (see {@link shrinkNested}).
     */
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
        if (options.preserveKeys.has(key) || (isRow && options.isReference(key))) {
          out[key] = copyJson(item);
        } else if (isRow && Array.isArray(item) && namesOf(item) !== undefined) {
          projected++;
          out[key] = projectValue(namesOf(item), fieldRowCap(key), fieldStringCap(key));
        } else if (isRow && isRecord(item) && !(trusted && typeof item[COMPACTED_KEY] === "string")) {
          const shrunk = shrinkNested(item, options.isReference);
          if (shrunk !== undefined) {
            projected++;
            out[key] = projectObject(shrunk, fieldRowCap(key), fieldStringCap(key), false);
          } else out[key] = projectValue(item, fieldRowCap(key), fieldStringCap(key));
        } else {
          out[key] = projectValue(item, fieldRowCap(key), fieldStringCap(key));
        }
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
    return { value, shortened, omittedRows, omittedChars, projected };
  };
}
