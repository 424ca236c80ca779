// The lines a compaction note adds when a recall tool is bound to the call: which call
// of it reads back what the note left out, instead of calling the source tool again.
import type { ToolMessage } from "@langchain/core/messages";
import { invalidOption } from "../errors.js";
import { COMPACTED_KEY, isRecord } from "./earlier-nodes.js";
import type { CompactionOrigin } from "./marker.js";

/** The key, first in a compacted JSON result, whose value names the recall call for its omitted rows. */
export const RECALL_KEY = "$recall";

/** Rows a cleared notice asks for first: enough to see them, and the answer counts them all. */
const FIRST_ROWS = "1-20";

/** A recall tool's name as the notes write it, checked like the tool's own option. */
export function checkRecallToolName(value: unknown, field = "recallToolName"): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(value)) throw invalidOption(field, "a tool name of 1 to 64 letters, digits, `_` or `-`", value);
  return value;
}

/** A call of the recall tool, written as its arguments so the model can repeat it exactly. */
export function recallCall(toolName: string, args: Record<string, unknown>): string {
  return `call \`${toolName}\` with ${JSON.stringify(args)}`;
}

/** True when `value` is an array, or an object with one two levels down at most (a `model_context` beside other keys, the tool's own projection, left out). */
function holdsArray(value: unknown, depth: number): boolean {
  if (Array.isArray(value)) return true;
  if (depth === 0 || !isRecord(value)) return false;
  const keys = Object.keys(value);
  return keys.some((key) => !(key === "model_context" && keys.length > 1) && holdsArray(value[key], depth - 1));
}

/** True when the result has rows recall could read: an artifact holding an array near its top, or content that looks like JSON. Read without parsing. */
function looksStructured(message: ToolMessage, text: string): boolean {
  const artifact: unknown = message.artifact;
  if (typeof artifact === "object" && artifact !== null) return holdsArray(artifact, 2);
  const first = text.trimStart().charCodeAt(0);
  return first === 123 || first === 91;
}

/**
 * The sentence a cleared notice ends with when a recall tool is bound: the call that
 * reads the result back — its first rows (the answer counts them all, and pages on)
 * for a structured result, its text otherwise. Decided without parsing the result.
 *
 * @example
 * ```ts
 * clearedRecallSentence(message, text, "recall");
 * // 'To read it back, call `recall` with {"action":"rows","message":"call_7","rows":["1-20"]} (row numbers from 1).'
 * ```
 */
export function clearedRecallSentence(message: ToolMessage, text: string, toolName: string): string {
  return recallSentenceFor(message, text, toolName, "full")!;
}

/**
 * {@link clearedRecallSentence}, shorter as `line` asks ({@link RECALL_LINES}), for a
 * notice too tight for the longest: `call`, the rows call without its note on row
 * numbers; `read`, the read of the result's whole text (for a structured result only
 * when its rows are the content's: `read` reads the content, not an artifact; else
 * undefined). A result that is not structured has only its read.
 */
export function recallSentenceFor(message: ToolMessage, text: string, toolName: string, line: RecallLine): string | undefined {
  const id = message.tool_call_id;
  const read = `To read it back, ${recallCall(toolName, { action: "read", message: id })}.`;
  if (!looksStructured(message, text)) return read;
  const artifact: unknown = message.artifact;
  if (line === "read") return typeof artifact === "object" && artifact !== null ? undefined : read;
  const rows = `To read it back, ${recallCall(toolName, { action: "rows", message: id, rows: [FIRST_ROWS] })}`;
  return line === "full" ? `${rows} (row numbers from 1).` : `${rows}.`;
}

/** A shortened collection of a compacted payload: where it is and which rows it left out. */
interface ShortenedCollection {
  path: string[];
  retained: number;
  returned: number;
  references: "omitted_refs" | "omitted_ids" | undefined;
}

/**
 * The shortened collections of a compacted payload, in source order: those outside
 * any rows, those inside a kept row (a path through its position from 0; rows keep
 * a prefix, so that is its position in the original too), and the earlier passes'
 * ones inside omitted rows (`nested_omissions`, whose paths are written the same way).
 */
function shortenedCollections(value: unknown): ShortenedCollection[] {
  const out: ShortenedCollection[] = [];
  const walk = (node: unknown, path: string[]): void => {
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, [...path, String(i)]));
      return;
    }
    if (!isRecord(node)) return;
    if (node[COMPACTED_KEY] === "rows") {
      const { retained, returned, rows, nested_omissions: nested } = node;
      if (typeof retained === "number" && typeof returned === "number" && returned > retained) {
        out.push({ path, retained, returned, references: node["omitted_refs"] !== undefined ? "omitted_refs" : node["omitted_ids"] !== undefined ? "omitted_ids" : undefined });
      }
      if (Array.isArray(rows)) rows.forEach((row, i) => walk(row, [...path, String(i)]));
      if (Array.isArray(nested)) for (const entry of nested) if (isRecord(entry)) nestedEntry(entry, path, out);
      return;
    }
    for (const key of Object.keys(node)) if (key !== COMPACTED_KEY) walk(node[key], [...path, key]);
  };
  walk(value, []);
  return out;
}

/** A `nested_omissions` entry of rows: a collection inside an omitted row, all of it left out. */
function nestedEntry(entry: Record<string, unknown>, base: string[], out: ShortenedCollection[]): void {
  const { path, omitted } = entry;
  if (!Array.isArray(path) || typeof omitted !== "number" || omitted < 1) return;
  out.push({ path: [...base, ...path.map(String)], retained: 0, returned: omitted, references: entry["omitted_refs"] !== undefined ? "omitted_refs" : undefined });
}

/** How the notes write the other shortened collections: one path, or a pattern with `<n>` for a row's position. */
function otherCollections(collections: readonly ShortenedCollection[]): string {
  if (collections.length === 0) return "";
  const patterns = new Map<string, { count: number; first: string[] }>();
  for (const { path } of collections) {
    const pattern = path.map((key) => (/^\d+$/.test(key) ? "<n>" : key)).join(".");
    const seen = patterns.get(pattern);
    if (seen === undefined) patterns.set(pattern, { count: 1, first: path });
    else seen.count++;
  }
  const named = [...patterns].slice(0, 3).map(([pattern, { count, first }]) => JSON.stringify(count === 1 ? first.join(".") : pattern));
  const positions = named.some((name) => name.includes("<n>")) ? " (<n>: a row's position from 0)" : "";
  return `; rows left out elsewhere: name ${named.join(", ")}${patterns.size > 3 ? ", …" : ""} in \`collection\`${positions}, with the rows its notice gives`;
}

/**
 * How much a {@link RECALL_KEY} value says, longest first; a note too tight for one
 * takes the next. `full`: the call for the most shortened collection, its references
 * and the other shortened collections; `call`: that call alone (its answer names the
 * result's other arrays, so each of their rows is one more call); `read`: the call
 * that reads the whole result's text, page by page (only for rows read from the
 * content: `read` reads the content, not an artifact).
 */
export const RECALL_LINES = ["full", "call", "read"] as const;
export type RecallLine = (typeof RECALL_LINES)[number];

/**
 * The value of {@link RECALL_KEY} for a compacted JSON result: the recall call that
 * reads its most shortened collection's omitted rows, by the row numbers its notice
 * counts (from the artifact or content, as recall numbers them) and by the
 * references it printed; shorter as `line` asks ({@link RECALL_LINES}). Undefined
 * when no collection left rows out, or when that line has no call for this origin.
 *
 * @example
 * ```ts
 * recallValueFor(JSON.parse(compacted), "call_7", "content", "recall");
 * // 'Omitted rows are kept: call `recall` with {"action":"rows","message":"call_7","collection":"transactions","rows":["13-200"]}, or with "ids" from omitted_refs.'
 * ```
 */
export function recallValueFor(value: unknown, callId: string, origin: CompactionOrigin, toolName: string, line: RecallLine = "full"): string | undefined {
  const collections = shortenedCollections(value);
  if (collections.length === 0) return undefined;
  if (line === "read") return origin === "content" ? recallCall(toolName, { action: "read", message: callId }) : undefined;
  // The collections outside any row come first (the rest are named by a pattern), then the one that left most out.
  const outside = collections.filter((c) => !c.path.some((key) => /^\d+$/.test(key)));
  const most = (outside.length > 0 ? outside : collections).reduce((a, b) => (b.returned - b.retained > a.returned - a.retained ? b : a));
  const args: Record<string, unknown> = { action: "rows", message: callId };
  if (most.path.length > 0) args["collection"] = most.path.join(".");
  // A tool's own `model_context` numbers its rows its own way; recall reads the artifact, so only its references match.
  if (origin === "model_context") {
    return most.references === undefined ? undefined : `Omitted rows are kept: ${recallCall(toolName, args).slice(0, -1)},"ids":[<ids from ${most.references}>]}.`;
  }
  const first = most.retained + 1;
  args["rows"] = [first === most.returned ? first : `${first}-${most.returned}`];
  if (line === "call") return `Omitted rows are kept: ${recallCall(toolName, args)}.`;
  const others = otherCollections(collections.filter((c) => c !== most));
  const byReference = most.references === undefined ? "" : `, or with "ids" from ${most.references}`;
  return `Omitted rows are kept: ${recallCall(toolName, args)}${byReference}${others}.`;
}

/** `json` (an object's JSON text) with `"$recall": value` as its first key. */
export function withRecallKey(json: string, value: string): string {
  const entry = `${JSON.stringify(RECALL_KEY)}:${JSON.stringify(value)}`;
  return json === "{}" ? `{${entry}}` : `{${entry},${json.slice(1)}`;
}

/** A compacted payload without the recall key an earlier pass put first (it is written again). */
export function withoutRecallKey(value: unknown): unknown {
  if (!isRecord(value) || !Object.hasOwn(value, RECALL_KEY)) return value;
  const { [RECALL_KEY]: _line, ...rest } = value;
  return rest;
}
