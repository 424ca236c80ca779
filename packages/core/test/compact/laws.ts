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
      const table = out["omitted_refs"] as { fields: string[]; rows: unknown[][] } | undefined;
      if (table && table.rows.length !== omitted) problems.push(`${at}: ${table.rows.length} reference rows for ${omitted} omitted`);
      for (let j = 0; j < omitted; j++) {
        const row = src[retained + j];
        if (!isObject(row)) continue;
        for (const key of Object.keys(row)) {
          if (!isReference(key) || row[key] === undefined) continue;
          const column = table?.fields.indexOf(key) ?? -1;
          const cell = column >= 0 ? table!.rows[j]![column] : undefined;
          if (JSON.stringify(cell) !== JSON.stringify(row[key])) problems.push(`${at}[${retained + j}].${key}: reference missing`);
        }
      }
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
