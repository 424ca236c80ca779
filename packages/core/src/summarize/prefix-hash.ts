import { jsonText } from "../estimate.js";
import { Slicer } from "../evidence/slicer.js";
import { kindOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";
import { PrefixHasher } from "../evidence/digest.js";
import { resumeTrail } from "../evidence/prefix-trail.js";
import { readMessage } from "../evidence/snapshot.js";
import { Sha256 } from "../sha256.js";

const DOMAIN = "contextview.summary-prefix.v1\n";

/**
 * Marks a summary prefix hash that is the evidence's prefix digest. Hashes
 * stored without it (by earlier versions) are the {@link legacySummaryPrefixHash}
 * and are still checked as such.
 */
export const PREFIX_DIGEST_TAG = "prefix-digest:";

/**
 * The hash the summary cache stores for `messages[0, n)`: the evidence's prefix
 * digest of those messages (tagged with {@link PREFIX_DIGEST_TAG}), so that on the
 * first model call of a turn the prefix is hashed once for both: this digest
 * resumes from the hash states the evidence update left on the same messages.
 * Messages the evidence cannot read (no ids, as outside a checkpoint) get the
 * {@link legacySummaryPrefixHash}. Yields to the event loop on long prefixes.
 *
 * @example
 * ```ts
 * const hash = await summaryPrefixHash(messages, state.summary.prefixN);
 * ```
 */
export async function summaryPrefixHash(messages: readonly MessageInput[], n: number, signal?: AbortSignal): Promise<string> {
  const digest = await prefixDigest(messages, n, signal);
  return digest === undefined ? legacySummaryPrefixHash(messages, n, signal) : `${PREFIX_DIGEST_TAG}${digest}`;
}

/**
 * True for a hash stored by an earlier version ({@link legacySummaryPrefixHash}):
 * it is checked as such, so the cached summary stays valid.
 *
 * @example
 * ```ts
 * const hash = isLegacySummaryPrefixHash(stored) ? await legacySummaryPrefixHash(messages, n) : await summaryPrefixHash(messages, n);
 * ```
 */
export function isLegacySummaryPrefixHash(stored: string): boolean {
  return !stored.startsWith(PREFIX_DIGEST_TAG);
}

/** The evidence prefix digest of `messages[0, n)`, resumed from a trail when one exists; undefined for messages it cannot read. */
async function prefixDigest(messages: readonly MessageInput[], n: number, signal: AbortSignal | undefined): Promise<string | undefined> {
  const slicer = new Slicer(signal);
  const resumed = resumeTrail(messages, n);
  const hasher = new PrefixHasher(resumed?.hash);
  for (let i = resumed?.end ?? 0; i < n; i++) {
    let parts: readonly string[];
    try {
      parts = readMessage(messages[i], i, Number.POSITIVE_INFINITY).parts;
    } catch {
      return undefined;
    }
    for (const part of parts) {
      if (PrefixHasher.isLong(part)) await hasher.addLong(part, slicer);
      else hasher.add(part);
    }
    if (slicer.due()) await slicer.pause();
  }
  return hasher.digest();
}

/**
 * SHA-256 (hex) of `messages[0, n)` as earlier versions of the summary cache
 * stored it: role, id, content, tool calls and `tool_call_id` of each message,
 * length-prefixed. Works on messages without ids, and yields to the event loop
 * on long prefixes.
 *
 * @example
 * ```ts
 * const hash = await legacySummaryPrefixHash(messages, state.summary.prefixN);
 * ```
 */
export async function legacySummaryPrefixHash(messages: readonly MessageInput[], n: number, signal?: AbortSignal): Promise<string> {
  const hash = Sha256.create(DOMAIN);
  const slicer = new Slicer(signal);
  const add = (part: string) => hash.update(`${part.length}:`).update(part);
  for (let i = 0; i < n; i++) {
    const kind = kindOf(messages[i], i);
    const message = toBaseMessage(messages[i] as MessageInput, i);
    add(kind);
    add(message.id ?? "");
    add(typeof message.content === "string" ? message.content : jsonText(message.content, `messages[${i}].content`));
    toolCallsOf(message).forEach((call, j) => {
      add(call.id ?? "");
      add(call.name);
      add(jsonText(call.args ?? {}, `messages[${i}].tool_calls[${j}].args`));
    });
    const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
    if (typeof toolCallId === "string") add(toolCallId);
    if (slicer.due()) await slicer.pause();
  }
  return hash.hex();
}
