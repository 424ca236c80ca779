// The rows of a tool result as the tool returned them, found by what a compaction
// note prints: the identifiers of `omitted_refs` / `omitted_ids`, or row numbers.
import type { BaseMessage } from "@langchain/core/messages";
import { ContextViewError } from "../errors.js";
import { isRecord } from "../compact/earlier-nodes.js";
import { parseJsonContent, readArtifactSource } from "../compact/compact-tool-result.js";
import { readPayloadAsJson, type PayloadOrigin } from "../compact/inspect.js";
import { compactionMarkerOf } from "../compact/marker.js";
import type { ResolvedCompactOptions } from "../compact/options.js";
import { isIdentifyingValue } from "../compact/references.js";
import { textOf } from "../messages.js";

/** The structured payload of a tool result, and where it was read from. */
export interface OriginalPayload {
  value: unknown;
  origin: PayloadOrigin;
}

/** One array of a payload: its path from the root (`[]` for a top-level array) and its rows. */
export interface RowCollection {
  path: string[];
  rows: readonly unknown[];
}

/**
 * The payload of a tool result as compaction reads it, so the recall tool reads
 * nothing the view could not have shown: `artifact.model_context` when the artifact has
 * one (the tool's projection for the model), else the artifact when it is an object or
 * an array, else the content when it is JSON. With `wholeArtifact` (the application's
 * opt-in), the artifact beside its `model_context` instead. A string when there is none,
 * saying why.
 */
export function originalPayloadOf(message: BaseMessage, options: ResolvedCompactOptions, wholeArtifact = false): OriginalPayload | string {
  const artifact: unknown = (message as { artifact?: unknown }).artifact;
  if (typeof artifact === "object" && artifact !== null) {
    try {
      const source = wholeArtifact ? wholeArtifactOf(artifact, options) : readArtifactSource(artifact, options);
      if (source !== undefined && typeof source.value === "object" && source.value !== null) return source;
    } catch (error) {
      return `its artifact could not be read as JSON (${ContextViewError.isInstance(error) ? error.message : "it threw"})`;
    }
  }
  if (compactionMarkerOf(message) !== undefined) return "its content is a compacted copy, not the original (read the checkpoint's messages, not a view's)";
  const value = parseJsonContent(textOf(message.content), options);
  if (typeof value === "object" && value !== null) return { value, origin: "content" };
  return "it has no structured artifact and its content is not JSON; read its text instead";
}

/** The whole artifact, a `model_context` beside other keys left out (the application's opt-in, `wholeArtifacts`). */
function wholeArtifactOf(artifact: object, options: ResolvedCompactOptions): OriginalPayload {
  const toJson = (artifact as { toJSON?: unknown }).toJSON;
  let top: unknown = typeof toJson === "function" ? (toJson as (key: string) => unknown).call(artifact, "") : artifact;
  if (isRecord(top) && Object.hasOwn(top, "model_context") && Object.keys(top).length > 1) {
    const { model_context: _focus, ...rest } = top;
    top = rest;
  }
  return { value: readPayloadAsJson(top, "artifact", options, true), origin: "artifact" };
}

/** A tool result read for `rows`: its payload, its arrays, and each array's identifiers once asked for. */
export interface ParsedResult {
  payload: OriginalPayload | string;
  collections: RowCollection[];
  /** Identifier indexes by collection, built on first use. */
  indexes: WeakMap<RowCollection, IdentifierIndex>;
}

/** Parsed results by message object: a tool loop's parallel calls share the state's message objects, so a large result is parsed once. */
const parsedResults = new WeakMap<BaseMessage, { length: number; artifact: unknown; whole: boolean; parsed: ParsedResult }>();

/**
 * {@link originalPayloadOf} and {@link collectionsOf} of a message, remembered while it is
 * the same object with the same content length and artifact (messages are never
 * mutated; the check guards a caller who does).
 */
export function parsedResultOf(message: BaseMessage, options: ResolvedCompactOptions, wholeArtifact: boolean): ParsedResult {
  const length = typeof message.content === "string" ? message.content.length : -1;
  const artifact: unknown = (message as { artifact?: unknown }).artifact;
  const known = parsedResults.get(message);
  if (known !== undefined && known.length === length && known.artifact === artifact && known.whole === wholeArtifact) return known.parsed;
  const payload = originalPayloadOf(message, options, wholeArtifact);
  const collections = typeof payload === "string" ? [] : collectionsOf(payload.value, options.maxDepth);
  const parsed: ParsedResult = { payload, collections, indexes: new WeakMap() };
  if (length >= 0) parsedResults.set(message, { length, artifact, whole: wholeArtifact, parsed });
  return parsed;
}

/** The identifier index of one of a parsed result's collections, built once. */
export function indexOf(parsed: ParsedResult, collection: RowCollection, options: ResolvedCompactOptions): IdentifierIndex {
  let index = parsed.indexes.get(collection);
  if (index === undefined) parsed.indexes.set(collection, (index = identifierIndex(collection.rows, options)));
  return index;
}

/** Every array of a payload, outside the rows of another (the collections compaction shortens), in source order. */
export function collectionsOf(value: unknown, maxDepth: number): RowCollection[] {
  const out: RowCollection[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) {
      if (node.length > 0) out.push({ path, rows: node });
      return;
    }
    if (!isRecord(node) || path.length >= maxDepth) return;
    for (const key of Object.keys(node)) walk(node[key], [...path, key]);
  };
  walk(value, []);
  return out;
}

/** A collection's path as the model names it: `transactions`, `data.items`, `$` for a top-level array. */
export function pathName(path: readonly string[]): string {
  return path.length === 0 ? "$" : path.join(".");
}

/** Row positions (from 0) of each identifying value, by exactly named reference fields and by suffix ones. */
export interface IdentifierIndex {
  exact: Map<string, number[]>;
  other: Map<string, number[]>;
}

/** Index one collection's identifiers: each row's reference fields that hold a short identifier or a link (a scalar row is its own). */
export function identifierIndex(rows: readonly unknown[], options: ResolvedCompactOptions): IdentifierIndex {
  const exact = new Map<string, number[]>();
  const other = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, value: unknown, row: number) => {
    const key = String(value);
    const list = map.get(key);
    if (list === undefined) map.set(key, [row]);
    else if (list[list.length - 1] !== row) list.push(row);
  };
  rows.forEach((row, i) => {
    if (typeof row === "string" || typeof row === "number") add(exact, row, i);
    if (!isRecord(row)) return;
    for (const key of Object.keys(row)) {
      if (!options.isReference(key) || !isIdentifyingValue(key, row[key])) continue;
      add(options.isExactReference(key) ? exact : other, row[key], i);
    }
  });
  return { exact, other };
}

/** Rows (from 0) holding `id`: by an exactly named identifier (`id`, `number`), else by a suffix one (`account_id`). */
export function rowsWithId(index: IdentifierIndex, id: string | number): number[] {
  const key = String(id);
  return index.exact.get(key) ?? index.other.get(key) ?? [];
}

/** Row numbers (from 1) written as the notes write them: `[13, "20-25"]`, or `"20-25, 30"`. Undefined for a malformed entry. */
export function parseRowNumbers(entries: ReadonlyArray<number | string>): number[] | undefined {
  const out: number[] = [];
  for (const entry of entries) {
    const parts = typeof entry === "number" ? [String(entry)] : entry.split(",").map((part) => part.trim()).filter((part) => part !== "");
    for (const part of parts) {
      const match = /^(\d+)(?:\s*(?:-|\.\.|–)\s*(\d+))?$/.exec(part);
      if (match === null) return undefined;
      const from = Number(match[1]);
      const to = match[2] === undefined ? from : Number(match[2]);
      if (from < 1 || to < from || !Number.isSafeInteger(to)) return undefined;
      for (let n = from; n <= to && out.length <= MAX_ROW_NUMBERS; n++) out.push(n);
    }
  }
  return out.length > MAX_ROW_NUMBERS ? undefined : out;
}

/** Most row numbers one request may name; a page shows far fewer. */
export const MAX_ROW_NUMBERS = 100_000;

/** Row numbers as ranges: `[13, 14, 15, 20]` → `["13-15", 20]`. */
export function asRanges(numbers: readonly number[]): Array<number | string> {
  const out: Array<number | string> = [];
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    out.push(j === i ? numbers[i]! : `${numbers[i]}-${numbers[j]}`);
    i = j + 1;
  }
  return out;
}
