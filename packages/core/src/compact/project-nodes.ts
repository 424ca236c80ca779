import { indexHeadings, splitFrontmatter, type HeadingIndex } from "./note-lines.js";
import type { ResolvedCompactOptions } from "./options.js";
import { concatTables, identifiersOf, type IdentifierList, type ReferenceReader, type ReferenceTable } from "./references.js";
import { prefixLength } from "./text-excerpt.js";
import { COMPACTED_KEY, copyJson, isRecord, readRowsNode, readTextNode, record, type Json, type NodePath } from "./earlier-nodes.js";
import { PROJECTION_NOTE, withoutReferences } from "./project-rows.js";

/**
 * How omitted rows are referred to: `"full"` lean references (identifiers, dates,
 * one link), `"ids"` one identifier per row, `"none"` only their count (with a
 * notice to narrow the query).
 */
export type ReferenceMode = "full" | "ids" | "none";

/** What one projection left out, counted as its nodes are written. */
export interface ProjectionTally {
  shortened: number;
  omittedRows: number;
  omittedChars: number;
  projected: number;
}

/**
 * A rows node: `rows` of `returned` are kept and the rest omitted, referred to as
 * `refMode` says. `table` holds the omitted rows' references (earlier passes
 * included), `idField` the identifier of the identifiers-only form; `nested` are
 * the earlier omissions inside the omitted rows, which the node counts with its own.
 *
 * @example
 * ```ts
 * const node = rowsNode(tally, "ids", 40, kept, false, refs.table(items, 2), "id", []);
 * ```
 */
export function rowsNode(
  tally: ProjectionTally,
  refMode: ReferenceMode,
  returned: number,
  rows: unknown[],
  rowsProjected: boolean,
  table: ReferenceTable | undefined,
  idField: string | undefined,
  nested: Json[],
): Json {
  const retained = rows.length;
  const omitted = returned - retained;
  tally.omittedRows += omitted;
  for (const entry of nested) {
    if (typeof entry["omitted"] === "number") tally.omittedRows += entry["omitted"];
    else tally.omittedChars += entry["omitted_chars"] as number;
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
}

function textNode(tally: ProjectionTally, excerpt: string, omitted: number, total: number, extra: Json): Json {
  tally.omittedChars += omitted;
  const node = record();
  node[COMPACTED_KEY] = "text";
  // Frontmatter first: it is note metadata the model should read before the excerpt.
  if (extra["frontmatter"] !== undefined) node["frontmatter"] = extra["frontmatter"];
  node["excerpt"] = excerpt;
  node["omitted_chars"] = omitted;
  node["total_chars"] = total;
  for (const key of Object.keys(extra)) if (key !== "frontmatter") node[key] = extra[key];
  return node;
}

/**
 * A string within `cap` characters of body, or a text node with its excerpt, its
 * frontmatter and an index of its headings (`headings` caches the index per text).
 *
 * @example
 * ```ts
 * const value = projectString(tally, headings, options.maxHeadings, note, 160);
 * ```
 */
export function projectString(tally: ProjectionTally, headings: Map<string, HeadingIndex>, maxHeadings: ResolvedCompactOptions["maxHeadings"], text: string, cap: number): unknown {
  const { frontmatter, body } = splitFrontmatter(text);
  if (body.length <= cap) return text;
  tally.shortened++;
  const n = prefixLength(body, cap, true);
  let index = headings.get(text);
  if (index === undefined) {
    index = indexHeadings(body, maxHeadings);
    headings.set(text, index);
  }
  const extra = record();
  if (frontmatter !== "") extra["frontmatter"] = frontmatter;
  if (index.headings.length > 0) {
    extra["lines"] = index.lines;
    extra["headings"] = [...index.headings];
    if (index.omitted > 0) extra["headings_omitted"] = index.omitted;
  }
  return textNode(tally, body.slice(0, n), body.length - n, text.length, extra);
}

/**
 * A text node of an earlier pass: its excerpt may only get shorter, its omission only larger.
 *
 * @example
 * ```ts
 * const node = projectTextNode(tally, earlier, 80) ?? earlier;
 * ```
 */
export function projectTextNode(tally: ProjectionTally, node: Json, cap: number): Json | undefined {
  const parts = readTextNode(node);
  if (parts === undefined) return undefined;
  const { excerpt, omitted, total } = parts;
  const n = excerpt.length <= cap ? excerpt.length : prefixLength(excerpt, cap, true);
  if (n < excerpt.length) tally.shortened++;
  const extra = record();
  for (const key of ["frontmatter", "lines", "headings", "headings_omitted"]) if (key in node) extra[key] = copyJson(node[key]);
  return textNode(tally, excerpt.slice(0, n), omitted + excerpt.length - n, total, extra);
}

/**
 * The earlier pass's nodes inside `rows[from..]`, rows this pass omits, as
 * `nested_omissions` entries in source order: each node's whole collection or
 * text is now omitted, so it counts all of it and keeps the references of all
 * its rows, and the nodes inside those rows follow it. A payload not `trusted`
 * (fresh) has no nodes. The walk skips what the projection copies whole
 * (preserved keys, row references), where nodes are not recognised either.
 *
 * @example
 * ```ts
 * const nested = nestedOmissions(rows, 2, true, refs, options);
 * ```
 */
export function nestedOmissions(rows: readonly unknown[], from: number, trusted: boolean, refs: ReferenceReader, options: ResolvedCompactOptions): Json[] {
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
}

/** What a projection at one level shares with the nodes it writes. */
export interface ProjectionPass {
  tally: ProjectionTally;
  refMode: ReferenceMode;
  refs: ReferenceReader;
  trusted: boolean;
  options: ResolvedCompactOptions;
}

/**
 * A collection node of an earlier pass: it keeps a prefix of its rows (each
 * projected by `projectElement`) and adds what it drops (references, and the
 * nodes inside those rows) before what the earlier pass omitted, which comes
 * later in source order.
 *
 * @example
 * ```ts
 * const node = projectRowsNode(pass, earlier, 2, projectElement) ?? earlier;
 * ```
 */
export function projectRowsNode(pass: ProjectionPass, node: Json, cap: number, projectElement: (value: unknown) => unknown): Json | undefined {
  const { tally, refs } = pass;
  const parts = readRowsNode(node);
  if (parts === undefined) return undefined;
  const { returned, rows, prior, nested } = parts;
  const keep = Math.min(rows.length, cap);
  if (keep < rows.length) tally.shortened++;
  const table = keep < rows.length ? concatTables(refs.table(rows, keep), rows.length - keep, prior, returned - rows.length) : prior;
  const before = tally.projected;
  const retained = rows.slice(0, keep).map(projectElement);
  const idField = refs.idField(rows) ?? (prior !== undefined && prior.fields.length === 1 ? prior.fields[0] : undefined);
  return rowsNode(tally, pass.refMode, returned, retained, tally.projected > before, table, idField, [...nestedOmissions(rows, keep, pass.trusted, refs, pass.options), ...nested]);
}
