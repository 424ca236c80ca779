// Shared checks: a compacted payload is compared with the payload it came from.
import type { BaseMessage } from "@langchain/core/messages";
import { textOf } from "../../src/messages.js";
import { resolveCompactOptions } from "../../src/compact/options.js";
import { splitFrontmatter } from "../../src/compact/note-lines.js";

const isReference = resolveCompactOptions(undefined).isReference;

export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== "object" || item === null || Object.isFrozen(item)) continue;
    Object.freeze(item);
    for (const key of Object.keys(item)) stack.push((item as Record<string, unknown>)[key]);
  }
  return value;
}

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
  /** `src[from..]` are omitted: `refs` must hold one row each, with every reference they carry. */
  const referenceProblems = (src: readonly unknown[], from: number, refs: unknown, at: string): void => {
    const table = refs as { fields: string[]; rows: unknown[][] } | undefined;
    const omitted = src.length - from;
    if (table && table.rows.length !== omitted) problems.push(`${at}: ${table.rows.length} reference rows for ${omitted} omitted`);
    for (let j = 0; j < omitted; j++) {
      const row = src[from + j];
      if (!isObject(row)) continue;
      for (const key of Object.keys(row)) {
        if (!isReference(key) || row[key] === undefined) continue;
        const column = table?.fields.indexOf(key) ?? -1;
        const cell = column >= 0 ? table!.rows[j]![column] : undefined;
        if (JSON.stringify(cell) !== JSON.stringify(row[key])) problems.push(`${at}[${from + j}].${key}: reference missing`);
      }
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
      referenceProblems(src, retained, out["omitted_refs"], at);
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
      const srcKeys = Object.keys(src).filter((k) => src[k] !== undefined).sort();
      const outKeys = Object.keys(out).sort();
      if (JSON.stringify(srcKeys) !== JSON.stringify(outKeys)) problems.push(`${at}: keys ${outKeys.join(",")} != ${srcKeys.join(",")}`);
      for (const key of outKeys) walk(src[key], out[key], `${at}.${key}`);
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
    const table = refs as { fields: string[]; rows: unknown[][] } | undefined;
    for (const row of table?.rows ?? []) {
      const pairs = table!.fields.map((field, i) => [field, row[i] ?? null] as const).filter(([, cell]) => cell !== null);
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
