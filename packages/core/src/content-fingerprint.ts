// Markers contextview writes into a message's metadata (a compacted tool result, a summary)
// say what contextview did to that message's content. Metadata is as writable as the
// content — a tool, a client or an edited checkpoint can set any key — so a marker is bound
// to the content it was written with: it carries a fingerprint of that content and of its
// own fields, and a marker whose fingerprint does not match is read as no marker at all.
// The fingerprint is not a secret (it is the same in every process, so written-back
// messages and recorded views keep their meaning): whoever computes it on purpose can only
// describe the very content they wrote, never another message's.
import type { MessageContent } from "@langchain/core/messages";
import { blockText } from "./message-content.js";
import { Sha256 } from "./sha256.js";

const DOMAIN = "contextview-marker-v1\n";
/** Hex digits of the SHA-256 kept: 128 bits. */
const DIGITS = 32;

/**
 * The text a marker describes: a string content, or the first text block of an
 * array content (compaction puts its text first and the images after it; a prompt
 * cache breakpoint turns a string into one text block with the same text).
 */
function describedText(content: MessageContent): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content as unknown[]) {
    const text = blockText(block);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The marker's fields, keys sorted, without its fingerprint: a checkpoint may reorder keys. */
function fieldsOf(marker: Readonly<Record<string, unknown>>): string {
  const keys = Object.keys(marker)
    .filter((key) => key !== "fingerprint")
    .sort();
  return JSON.stringify(keys.map((key) => [key, marker[key]]));
}

function digest(fields: string, text: string): string {
  return `${text.length}:${Sha256.create(DOMAIN).update(fields).update("\n").update(text).hex().slice(0, DIGITS)}`;
}

/**
 * The fingerprint binding `marker` (its fields but `fingerprint`) to `content`: the
 * described text's length and 128 bits of a SHA-256 over both.
 *
 * @example
 * ```ts
 * const marker = { form: "cleared", originalTokens: 900 };
 * const stored = { ...marker, fingerprint: markerFingerprint(marker, notice) };
 * ```
 */
export function markerFingerprint(marker: Readonly<Record<string, unknown>>, content: MessageContent): string {
  return digest(fieldsOf(marker), describedText(content) ?? "");
}

/** Verdicts by marker object: copies of a message share their metadata's marker object. */
const verdicts = new WeakMap<object, { text: string; bound: boolean }>();

/**
 * True when `marker` carries the fingerprint of its own fields and of `content`,
 * i.e. it was written for this content (see {@link markerFingerprint}). The length
 * is compared before anything is hashed — to the fingerprint's and to `maxChars`,
 * the longest text such a marker can describe — and the verdict is remembered per
 * marker object and text, so a message read several times in a view is hashed once.
 *
 * @example
 * ```ts
 * isBoundTo(message.response_metadata.contextview_compaction, message.content); // false for a marker a tool set
 * ```
 */
export function isBoundTo(marker: object, content: MessageContent, maxChars = Infinity): boolean {
  const fingerprint = (marker as { fingerprint?: unknown }).fingerprint;
  if (typeof fingerprint !== "string") return false;
  const text = describedText(content);
  if (text === undefined || text.length > maxChars || !fingerprint.startsWith(`${text.length}:`)) return false;
  const known = verdicts.get(marker);
  if (known !== undefined && known.text === text) return known.bound;
  const bound = digest(fieldsOf(marker as Record<string, unknown>), text) === fingerprint;
  verdicts.set(marker, { text, bound });
  return bound;
}
