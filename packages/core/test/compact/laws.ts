// Shared checks: a compacted payload is compared with the payload it came from.
import type { BaseMessage } from "@langchain/core/messages";
import { textOf } from "../../src/messages.js";
import { resolveCompactOptions } from "../../src/compact/options.js";
import { splitFrontmatter } from "../../src/compact/note-lines.js";

const isReference = resolveCompactOptions(undefined).isReference;
/** A value that can identify a row: a number or a short string (URL templates never). */
const isIdentifier = (value: unknown): boolean =>
  (typeof value === "number" && Number.isFinite(value)) || (typeof value === "string" && value !== "" && value.length <= 120 && !value.includes("{"));

export function contentJson(message: BaseMessage): unknown {
  return JSON.parse(textOf(message.content));
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Every difference between `output` and what a faithful projection of `source`
 * may contain: retained rows are the source's first rows in order, counts add up,
 * every omitted row's references are present, excerpts are prefixes, and no key
 * or value is invented. Returns the list of problems (empty when lawful).
 */
export function projectionProblems(source: unknown, output: unknown, path = "$"): string[] {
  const problems: string[] = [];
  /**
   * `src[from..]` are omitted: `refs` (a table, possibly with link patterns) or `ids`
   * must hold one entry each, every value the source row's own, and a row that has
   * an identifier must be findable by one (unless the node lists none at all).
   */
  const referenceProblems = (src: readonly unknown[], from: number, refs: unknown, at: string, ids?: unknown): void => {
    const table = refs as { fields: string[]; rows: unknown[][]; links?: Record<string, string> } | undefined;
    const list = ids as { field: string; ids: unknown[] } | undefined;
    const omitted = src.length - from;
    if (table && table.rows.length !== omitted) problems.push(`${at}: ${table.rows.length} reference rows for ${omitted} omitted`);
    if (list && list.ids.length !== omitted) problems.push(`${at}: ${list.ids.length} ids for ${omitted} omitted`);
    for (let j = 0; j < omitted; j++) {
      const row = src[from + j];
      if (!isObject(row)) continue;
      let found = false;
      table?.fields.forEach((field, column) => {
        const cell = table.rows[j]?.[column];
        if (cell === null || cell === undefined) return;
        found = true;
        if (JSON.stringify(cell) !== JSON.stringify(row[field])) problems.push(`${at}[${from + j}].${field}: reference invented`);
      });
      for (const [field, pattern] of Object.entries(table?.links ?? {})) {
        const id = /\{([^{}]+)\}/.exec(pattern)?.[1] ?? "";
        const column = table!.fields.indexOf(id);
        const cell = column >= 0 ? table!.rows[j]?.[column] : null;
        if (cell !== null && cell !== undefined && pattern.replace(`{${id}}`, String(cell)) !== row[field]) problems.push(`${at}[${from + j}].${field}: link pattern invents a link`);
      }
      if (list) {
        const id = list.ids[j];
        if (id !== null && JSON.stringify(id) !== JSON.stringify(row[list.field])) problems.push(`${at}[${from + j}]: id invented`);
        if (id !== null) found = true;
        if (id === null && isIdentifier(row[list.field])) problems.push(`${at}[${from + j}]: id missing`);
      }
      // With lean references (not the identifiers-only form), a row that has an identifier is findable by one.
      const identifiable = Object.keys(row).some((key) => isReference(key) && isIdentifier(row[key]) && !/url|uri|href|link|date|_at$|At$|Date$/i.test(key));
      if (table && !list && identifiable && !found) problems.push(`${at}[${from + j}]: not findable by an identifier`);
    }
  };
  /**
   * Earlier omissions inside omitted rows: each entry's path leads, in the source,
   * to the whole collection (every row counted, every reference kept) or the whole
   * text it counts, inside a row at or after `from`, in source order.
   */
  const nestedProblems = (src: readonly unknown[], from: number, nested: unknown, at: string): void => {
    if (nested === undefined) return;
    if (!Array.isArray(nested) || nested.length === 0) return void problems.push(`${at}: nested_omissions is not a non-empty list`);
    let lastRow = from;
    for (const entry of nested as Json[]) {
      const path = entry["path"] as Array<string | number>;
      const where = `${at}.nested_omissions${JSON.stringify(path)}`;
      if (typeof path[0] !== "number" || path[0] < lastRow || path[0] >= src.length) problems.push(`${where}: row out of order or not omitted`);
      else lastRow = path[0];
      let value: unknown = src;
      for (const step of path) value = Array.isArray(value) || isObject(value) ? (value as Record<string | number, unknown>)[step] : undefined;
      if (typeof entry["omitted_chars"] === "number") {
        if (typeof value !== "string" || value.length !== entry["omitted_chars"]) problems.push(`${where}: omitted_chars is not the whole text`);
      } else if (!Array.isArray(value) || value.length !== entry["omitted"]) problems.push(`${where}: omitted is not the whole collection`);
      else referenceProblems(value, 0, entry["omitted_refs"], where);
    }
  };
  const walk = (src: unknown, out: unknown, at: string): void => {
    if (isObject(out) && out["$compacted"] === "rows") {
      if (!Array.isArray(src)) return void problems.push(`${at}: rows node for a non-array`);
      const rows = out["rows"] as unknown[];
      const { returned, retained, omitted } = out as { returned: number; retained: number; omitted: number };
      if (returned !== src.length) problems.push(`${at}: returned ${returned} != ${src.length}`);
      if (retained !== rows.length) problems.push(`${at}: retained ${retained} != rows ${rows.length}`);
      if (retained + omitted !== returned) problems.push(`${at}: retained + omitted != returned`);
      if (typeof out["notice"] !== "string" || !/tool/.test(out["notice"] as string)) problems.push(`${at}: no notice`);
      rows.forEach((row, i) => walk(src[i], row, `${at}[${i}]`));
      referenceProblems(src, retained, out["omitted_refs"], at, out["omitted_ids"]);
      nestedProblems(src, retained, out["nested_omissions"], at);
      return;
    }
    if (isObject(out) && out["$compacted"] === "text") {
      if (typeof src !== "string") return void problems.push(`${at}: text node for a non-string`);
      const { frontmatter } = splitFrontmatter(src);
      const excerpt = out["excerpt"] as string;
      if ((out["frontmatter"] ?? "") !== frontmatter) problems.push(`${at}: frontmatter changed`);
      if (!src.startsWith(frontmatter + excerpt)) problems.push(`${at}: excerpt is not a prefix`);
      if (frontmatter.length + excerpt.length + (out["omitted_chars"] as number) !== src.length) problems.push(`${at}: characters do not add up`);
      if (out["total_chars"] !== src.length) problems.push(`${at}: total_chars ${String(out["total_chars"])} != ${src.length}`);
      return;
    }
    if (Array.isArray(out)) {
      if (!Array.isArray(src) || src.length !== out.length) return void problems.push(`${at}: array changed length`);
      out.forEach((item, i) => walk(src[i], item, `${at}[${i}]`));
      return;
    }
    if (isObject(out)) {
      if (!isObject(src)) return void problems.push(`${at}: object for a non-object`);
      // A projected nested object keeps some of its keys; it never adds one.
      const srcKeys = new Set(Object.keys(src).filter((k) => src[k] !== undefined));
      const outKeys = Object.keys(out);
      for (const key of outKeys) if (!srcKeys.has(key)) problems.push(`${at}.${key}: key invented`);
      for (const key of outKeys) walk(src[key], out[key], `${at}.${key}`);
      return;
    }
    // A named object in a list may be shown as its name.
    if (typeof out === "string" && isObject(src)) {
      if (!Object.values(src).includes(out)) problems.push(`${at}: name invented`);
      return;
    }
    if (JSON.stringify(out) !== JSON.stringify(src)) problems.push(`${at}: value changed`);
  };
  walk(source, output, path);
  return problems;
}

/** Every `$compacted` node of a payload, with its path. */
export function compactedNodes(value: unknown, path = "$"): Array<{ path: string; node: Json }> {
  const found: Array<{ path: string; node: Json }> = [];
  const walk = (v: unknown, at: string): void => {
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${at}[${i}]`));
    else if (isObject(v)) {
      if (typeof v["$compacted"] === "string") found.push({ path: at, node: v });
      for (const key of Object.keys(v)) walk(v[key], `${at}.${key}`);
    }
  };
  walk(value, path);
  return found;
}

/** Rows and characters omitted, over every node and every nested omission: what the marker must report. */
export function omissionTotals(value: unknown): { omittedRows: number; omittedChars: number } {
  let omittedRows = 0;
  let omittedChars = 0;
  for (const { node } of compactedNodes(value)) {
    if (node["$compacted"] === "text") omittedChars += node["omitted_chars"] as number;
    if (node["$compacted"] !== "rows") continue;
    omittedRows += node["omitted"] as number;
    for (const entry of (node["nested_omissions"] ?? []) as Json[]) {
      omittedRows += (entry["omitted"] as number | undefined) ?? 0;
      omittedChars += (entry["omitted_chars"] as number | undefined) ?? 0;
    }
  }
  return { omittedRows, omittedChars };
}

/**
 * Every reference row of every `omitted_refs` table, nested omissions included,
 * as its identifying fields (nulls dropped, keys sorted), so tables whose columns
 * differ can be compared.
 */
export function omittedReferences(value: unknown): string[] {
  const found: string[] = [];
  const collect = (refs: unknown): void => {
    const table = refs as { fields: string[]; rows: unknown[][]; links?: Record<string, string> } | undefined;
    for (const row of table?.rows ?? []) {
      const pairs: Array<readonly [string, unknown]> = table!.fields.map((field, i) => [field, row[i] ?? null] as const).filter(([, cell]) => cell !== null);
      // A link pattern stands for each row's link: expanded, so patterns and columns compare equal.
      for (const [field, pattern] of Object.entries(table!.links ?? {})) {
        const id = /\{([^{}]+)\}/.exec(pattern)?.[1] ?? "";
        const cell = row[table!.fields.indexOf(id)];
        if (cell !== null && cell !== undefined) pairs.push([field, pattern.replace(`{${id}}`, String(cell))]);
      }
      found.push(JSON.stringify(pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
    }
  };
  for (const { node } of compactedNodes(value)) {
    if (node["$compacted"] !== "rows") continue;
    collect(node["omitted_refs"]);
    for (const entry of (node["nested_omissions"] ?? []) as Json[]) collect(entry["omitted_refs"]);
  }
  return found.sort();
}
