import { ToolMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";
import { isBoundTo, markerFingerprint } from "../content-fingerprint.js";
import { copyMessage } from "../messages.js";
import type { PayloadOrigin } from "./inspect.js";

/**
 * The `response_metadata` key that marks a tool result contextview has changed.
 * Its value is a {@link CompactionMarker} and a `fingerprint` that binds it to the
 * content it was written with; later passes read it to accumulate omissions
 * instead of wrapping the result again. A marker whose fingerprint does not match
 * the message's content (one a tool or a client set, or copied onto other content)
 * is not trusted: the result is read, and compacted, as the content it holds.
 *
 * @example
 * ```ts
 * message.response_metadata[COMPACTION_METADATA_KEY]; // { form: "json", omittedRows: 480, … }
 * ```
 */
export const COMPACTION_METADATA_KEY = "contextview_compaction";

/** Where the compacted content was projected from. */
export type CompactionOrigin = PayloadOrigin;

/** A tool result projected to JSON: shortened collections and texts are `$compacted` nodes in it. */
export interface JsonCompactionMarker {
  readonly form: "json";
  readonly origin: CompactionOrigin;
  /** The limit, in estimated tokens, of the last pass. */
  readonly limitTokens: number;
  /** Rows omitted over every collection, earlier passes included (`omitted` and `nested_omissions` of every node). */
  readonly omittedRows: number;
  /** Characters omitted over every text field, earlier passes included (`omitted_chars` of every node and nested omission). */
  readonly omittedChars: number;
  /**
   * How omitted rows are referred to: `"full"` lean references (`omitted_refs`),
   * `"ids"` one identifier per row (`omitted_ids`) when the references did not fit,
   * `"none"` only their count, with a notice to narrow the query.
   */
  readonly references?: "full" | "ids" | "none";
  /** Nested values of kept rows shown projected (objects as their identifiers and names, lists as names). */
  readonly projectedValues?: number;
}

/** A plain-text tool result shown as its beginning and end. */
export interface TextCompactionMarker {
  readonly form: "text";
  readonly origin: CompactionOrigin;
  readonly limitTokens: number;
  readonly headChars: number;
  readonly tailChars: number;
  /** Characters omitted, earlier passes included. */
  readonly omittedChars: number;
  /** Characters of the original result. */
  readonly totalChars: number;
}

/** An older tool result replaced by a short notice (micro-compaction). */
export interface ClearedCompactionMarker {
  readonly form: "cleared";
  /** Estimated tokens of the content it replaced. */
  readonly originalTokens: number;
}

/**
 * A result of the current turn too large to show even as identifiers, replaced by
 * its count and a notice to narrow the query (never to call the same tool again).
 */
export interface NarrowedCompactionMarker {
  readonly form: "narrowed";
  /** Estimated tokens of the content it replaced. */
  readonly originalTokens: number;
  /** Rows the result held, when it had a row collection. */
  readonly returnedRows?: number;
}

/** What `response_metadata.contextview_compaction` holds on a changed tool result. */
export type CompactionMarker = JsonCompactionMarker | TextCompactionMarker | ClearedCompactionMarker | NarrowedCompactionMarker;

/**
 * The compaction marker of a message, or undefined for a message contextview has
 * not changed: no marker, a malformed one, or one not bound to the message's
 * content (its fingerprint, written by contextview, does not match — the marker
 * was set by someone else or the content changed since). Returned without the
 * fingerprint.
 *
 * @example
 * ```ts
 * const marker = compactionMarkerOf(view.messages[3]);
 * if (marker?.form === "json") console.log(marker.omittedRows);
 * ```
 */
export function compactionMarkerOf(message: BaseMessage): CompactionMarker | undefined {
  if (!ToolMessage.isInstance(message)) return undefined;
  const value = (message.response_metadata as Record<string, unknown> | undefined)?.[COMPACTION_METADATA_KEY];
  if (typeof value !== "object" || value === null) return undefined;
  const form = (value as { form?: unknown }).form;
  if (form !== "json" && form !== "text" && form !== "cleared" && form !== "narrowed") return undefined;
  if (!isBoundTo(value, message.content, longestDescribed(value as CompactionMarker, message))) return undefined;
  const { fingerprint: _fingerprint, ...marker } = value as CompactionMarker & { fingerprint: string };
  return marker as CompactionMarker;
}

/** Characters a notice or an excerpt frame takes at most besides what it shows, the tool name and the call id. */
const FRAME_CHARS = 1024;

/**
 * The longest text contextview writes under `marker`: a notice for a cleared or
 * narrowed result, the shown characters and the frame for an excerpt. A longer
 * text is not hashed at all: no fingerprint can make it the content described.
 */
function longestDescribed(marker: CompactionMarker, message: ToolMessage): number {
  if (marker.form === "cleared" || marker.form === "narrowed") return FRAME_CHARS + String(message.name ?? "").length + String(message.tool_call_id ?? "").length;
  if (marker.form === "text") {
    const shown = Number(marker.headChars) + Number(marker.tailChars);
    return Number.isFinite(shown) ? shown + FRAME_CHARS : 0;
  }
  return Infinity;
}

/**
 * True for a tool result compacted or cleared by contextview.
 *
 * @example
 * ```ts
 * isCompactedToolResult(compactToolResult(message, 500)); // true
 * ```
 */
export function isCompactedToolResult(message: BaseMessage): boolean {
  return compactionMarkerOf(message) !== undefined;
}

/**
 * True for a tool result micro-compaction replaced by a cleared notice.
 *
 * @example
 * ```ts
 * const { messages } = microCompact(history, { keepRecentToolResults: 1 });
 * messages.filter(isClearedToolResult).length; // every tool result but the last
 * ```
 */
export function isClearedToolResult(message: BaseMessage): boolean {
  return compactionMarkerOf(message)?.form === "cleared";
}

/** A new ToolMessage with the same ids, name, status and artifact, the given content and marker (bound to that content). */
export function withCompaction(message: ToolMessage, content: MessageContent, marker: CompactionMarker): ToolMessage {
  const copy = copyMessage(message, "tool", { content }) as ToolMessage;
  const bound = { ...marker, fingerprint: markerFingerprint(marker as unknown as Record<string, unknown>, content) };
  copy.response_metadata = { ...copy.response_metadata, [COMPACTION_METADATA_KEY]: bound };
  return copy;
}
