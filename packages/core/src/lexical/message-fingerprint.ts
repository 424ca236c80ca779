import { kindOf, messageFields, type MessageInput } from "../messages.js";

/** Characters of a text read from each of its ends. */
const END_CHARS = 8;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const KIND_CODE = { system: 1, human: 2, ai: 3, tool: 4 } as const;

function mix(hash: number, value: number): number {
  return Math.imul(hash ^ value, FNV_PRIME);
}

/** The length of `text` and its first and last {@link END_CHARS} characters: constant work whatever its size. */
function mixEnds(hash: number, text: string): number {
  const n = text.length;
  hash = mix(mix(hash, n & 0xffff), n >>> 16);
  const head = Math.min(END_CHARS, n);
  for (let i = 0; i < head; i++) hash = mix(hash, text.charCodeAt(i));
  for (let i = Math.max(head, n - END_CHARS); i < n; i++) hash = mix(hash, text.charCodeAt(i));
  return hash;
}

function mixContent(hash: number, content: unknown): number {
  if (typeof content === "string") return mixEnds(hash, content);
  if (!Array.isArray(content)) return mix(hash, 1);
  hash = mix(hash, content.length);
  for (const block of content as unknown[]) {
    if (typeof block === "string") hash = mixEnds(hash, block);
    else if (typeof block === "object" && block !== null) {
      const { type, text, id } = block as { type?: unknown; text?: unknown; id?: unknown };
      hash = mixEnds(hash, typeof type === "string" ? type : "");
      if (typeof text === "string") hash = mixEnds(hash, text);
      if (typeof id === "string") hash = mixEnds(hash, id);
    }
  }
  return hash;
}

function mixCalls(hash: number, calls: unknown): number {
  if (!Array.isArray(calls)) return hash;
  hash = mix(hash, calls.length);
  for (const call of calls as unknown[]) {
    const { id, name } = (call ?? {}) as { id?: unknown; name?: unknown };
    hash = mixEnds(mixEnds(hash, typeof id === "string" ? id : ""), typeof name === "string" ? name : "");
  }
  return hash;
}

/**
 * A cheap fingerprint of what a message says, read in constant time whatever its size:
 * its role, each text's length and first and last 8 characters, a tool result's name,
 * and the ids and names of an assistant message's tool calls (not their arguments).
 * With the message's id it tells a message read anew (the same fingerprint) from one
 * edited under its id in most cases; an edit that keeps the length and both ends goes
 * unseen, so whatever is keyed by it may only rank messages, never stand for their text.
 *
 * @example
 * ```ts
 * messageFingerprint(new HumanMessage({ id: "h1", content: "book the flight" }), 0) ===
 *   messageFingerprint(new HumanMessage({ id: "h1", content: "book the flights" }), 0); // false: the length changed
 * ```
 */
export function messageFingerprint(message: MessageInput, index: number): number {
  const kind = kindOf(message, index);
  const fields = messageFields(message);
  let hash = mix(FNV_OFFSET, KIND_CODE[kind]);
  hash = mixContent(hash, fields["content"]);
  if (kind === "tool") hash = mixEnds(hash, typeof fields["name"] === "string" ? fields["name"] : "");
  if (kind === "ai") {
    hash = mixCalls(hash, fields["tool_calls"]);
    hash = mixCalls(hash, (fields["additional_kwargs"] as { tool_calls?: unknown } | undefined)?.tool_calls);
  }
  return hash >>> 0;
}
