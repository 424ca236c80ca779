import { safeJson } from "../estimate.js";
import { kindOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";
import { Sha256 } from "../sha256.js";
import { markedIndices } from "../view/pin-message.js";

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

/** SHA-256 (hex) of one message: role, id, content, tool calls and `tool_call_id`, length-prefixed. */
function messageDigest(value: MessageInput, index: number): string {
  const content = (value as { content?: unknown }).content;
  const calls = (value as { tool_calls?: unknown }).tool_calls;
  const hit = typeof value === "object" && value !== null ? digests.get(value) : undefined;
  if (hit && hit.content === content && hit.calls === calls) return hit.digest;
  const hash = Sha256.create();
  const add = (part: string) => hash.update(`${part.length}:`).update(part);
  const message = toBaseMessage(value, index);
  add(kindOf(value, index));
  add(message.id ?? "");
  add(typeof message.content === "string" ? message.content : safeJson(message.content));
  for (const call of toolCallsOf(message)) {
    add(call.id ?? "");
    add(call.name);
    add(safeJson(call.args ?? {}));
  }
  const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
  if (typeof toolCallId === "string") add(toolCallId);
  const digest = hash.hex();
  if (typeof value === "object" && value !== null) digests.set(value, { content, calls, digest });
  return digest;
}

/**
 * Indices in `[lead, from)` of the messages a view read outside its walk: the
 * opening request (when pinned) and the messages pinned by the pin field or by the
 * manager's `pin` predicate (`predicatePins`), ascending.
 */
export function pinnedReadIndices(messages: readonly MessageInput[], lead: number, from: number, pinOpeningRequest: boolean, predicatePins: readonly number[] = []): number[] {
  const out = new Set<number>();
  if (pinOpeningRequest) {
    for (let i = lead; i < from; i++) {
      if (kindOf(messages[i], i) === "human") {
        out.add(i);
        break;
      }
    }
  }
  for (const i of markedIndices(messages)) if (i >= lead && i < from) out.add(i);
  for (const i of predicatePins) if (i >= lead && i < from) out.add(i);
  return [...out].sort((a, b) => a - b);
}

/**
 * SHA-256 (hex) of the messages a view read: `[0, lead)`, the messages at `pinned`
 * (see {@link pinnedReadIndices}) and `[from, to)`, as the digests of each message
 * in order with the positions of the pinned ones.
 */
export function readMessagesHash(messages: readonly MessageInput[], lead: number, from: number, to: number, pinned: readonly number[] = []): string {
  const hash = Sha256.create(DOMAIN);
  for (let i = 0; i < Math.min(lead, to); i++) hash.update(messageDigest(messages[i] as MessageInput, i));
  hash.update("|");
  for (const i of pinned) if (i < to) hash.update(`${i}:`).update(messageDigest(messages[i] as MessageInput, i));
  hash.update("|");
  for (let i = Math.max(from, lead); i < to; i++) hash.update(messageDigest(messages[i] as MessageInput, i));
  return hash.hex();
}
