import { safeJson } from "../estimate.js";
import { kindOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";
import { Slicer } from "../evidence/slicer.js";
import { feedRemembered, feedRememberedInSlices } from "../remembered-hash.js";
import { Sha256 } from "../sha256.js";
import { markedIndices } from "../view/message-marks.js";
import { conversationStart } from "../view/provider-head.js";

const DOMAIN = "contextview.view-record.v1\n";

/** SHA-256 (hex) of a text, for the inputs of a view record. */
export function sha256Hex(text: string): string {
  return Sha256.create(DOMAIN).update(text).hex();
}

/**
 * Digests per message object, rechecked against its content and tool calls: every
 * model call of an agent turn reads the same message objects again.
 */
const digests = new WeakMap<object, { content: unknown; calls: unknown; digest: string }>();

/** The texts one message's digest is made of, in order: role, id, content, tool calls and `tool_call_id`, each length-prefixed. */
function* digestParts(value: MessageInput, index: number): Generator<string> {
  const message = toBaseMessage(value, index);
  const parts = [kindOf(value, index), message.id ?? "", typeof message.content === "string" ? message.content : safeJson(message.content)];
  for (const call of toolCallsOf(message)) parts.push(call.id ?? "", call.name, safeJson(call.args ?? {}));
  const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
  if (typeof toolCallId === "string") parts.push(toolCallId);
  for (const part of parts) {
    yield `${part.length}:`;
    yield part;
  }
}

function cachedDigest(value: MessageInput): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const hit = digests.get(value);
  return hit && hit.content === (value as { content?: unknown }).content && hit.calls === (value as { tool_calls?: unknown }).tool_calls ? hit.digest : undefined;
}

function remember(value: MessageInput, digest: string): string {
  if (typeof value === "object" && value !== null) digests.set(value, { content: (value as { content?: unknown }).content, calls: (value as { tool_calls?: unknown }).tool_calls, digest });
  return digest;
}

/** SHA-256 (hex) of one message (see {@link digestParts}). */
function messageDigest(value: MessageInput, index: number): string {
  const hit = cachedDigest(value);
  if (hit !== undefined) return hit;
  let hash = Sha256.create();
  for (const part of digestParts(value, index)) hash = feedRemembered(hash, part);
  return remember(value, hash.hex());
}

/** Messages with more content than this are hashed ahead by {@link warmMessageDigests}. */
const LARGE_CONTENT_CHARS = 1 << 18;

/**
 * Hash the large messages among `indices` ahead of a view record, in slices that
 * yield to the event loop, so that `readMessagesHash` finds their digests made: a
 * 50 MB tool result read anew from a checkpoint would otherwise block for the whole
 * of its hashing. The digests are those {@link readMessagesHash} makes at once.
 *
 * @example
 * ```ts
 * await warmMessageDigests(messages, recordReadIndices(request, view));
 * const entry = viewRecordOf(request, view, { source: "node" });
 * ```
 */
export async function warmMessageDigests(messages: readonly MessageInput[], indices: Iterable<number>, signal?: AbortSignal): Promise<void> {
  const slicer = new Slicer(signal);
  for (const i of indices) {
    const value = messages[i] as MessageInput;
    const content = (value as { content?: unknown } | null)?.content;
    const large = typeof content === "string" ? content.length > LARGE_CONTENT_CHARS : Array.isArray(content) && content.length > 0;
    if (!large || cachedDigest(value) !== undefined) continue;
    // A copy of a message read anew (the next call's checkpoint) finds its content's hash remembered.
    let hash = Sha256.create();
    for (const part of digestParts(value, i)) hash = await feedRememberedInSlices(hash, part, slicer);
    remember(value, hash.hex());
  }
}

/**
 * Indices in `[lead, from)` of the messages a view read outside its walk: the
 * opening request (when pinned) and the messages pinned by the pin field (when
 * `trustPinField`) or by the manager's `pin` predicate (`predicatePins`), ascending.
 */
export function pinnedReadIndices(
  messages: readonly MessageInput[],
  lead: number,
  from: number,
  pinOpeningRequest: boolean,
  predicatePins: readonly number[] = [],
  trustPinField = true,
): number[] {
  const out = new Set<number>();
  if (pinOpeningRequest) {
    for (let i = lead; i < from; i++) {
      if (kindOf(messages[i], i) === "human") {
        out.add(i);
        break;
      }
    }
  }
  if (trustPinField) for (const i of markedIndices(messages)) if (i >= lead && i < from) out.add(i);
  for (const i of predicatePins) if (i >= lead && i < from) out.add(i);
  return [...out].sort((a, b) => a - b);
}

/**
 * The indices of `[0, lead)` a view read: all of them, but the messages before a
 * provider compaction (see `conversationStart`), which no view reads.
 *
 * @example
 * ```ts
 * for (const i of leadRead(messages, lead)) hash.update(messageDigest(messages[i], i));
 * ```
 */
export function* leadRead(messages: readonly MessageInput[], lead: number): Generator<number> {
  const { systemLead, head, floor } = conversationStart(messages);
  const skipped = head !== undefined && floor === lead ? head.start : systemLead;
  for (let i = 0; i < lead; i++) if (i < systemLead || i >= skipped) yield i;
}

/**
 * SHA-256 (hex) of the messages a view read: `[0, lead)` (see {@link leadRead}), the messages at `pinned`
 * (see {@link pinnedReadIndices}) and `[from, to)`, as the digests of each message
 * in order with the positions of the pinned ones.
 */
export function readMessagesHash(messages: readonly MessageInput[], lead: number, from: number, to: number, pinned: readonly number[] = []): string {
  const hash = Sha256.create(DOMAIN);
  for (const i of leadRead(messages, Math.min(lead, to))) hash.update(messageDigest(messages[i] as MessageInput, i));
  hash.update("|");
  for (const i of pinned) if (i < to) hash.update(`${i}:`).update(messageDigest(messages[i] as MessageInput, i));
  hash.update("|");
  for (let i = Math.max(from, lead); i < to; i++) hash.update(messageDigest(messages[i] as MessageInput, i));
  return hash.hex();
}
