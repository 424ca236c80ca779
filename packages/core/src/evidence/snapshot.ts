import { ContextViewError, describeValue } from "../errors.js";
import { jsonText, safeJson } from "../estimate.js";
import { blockText, checkMessageArray, hasToolCalls, kindOf, messageFields, type MessageInput, type MessageKind } from "../messages.js";
import { isWellFormedText, toWellFormedText, utf8Length } from "../text.js";
import type { Slicer } from "./slicer.js";

/**
 * What the evidence logic reads of one checkpoint message: the strings that
 * identify it (hashed for lineage, whatever its size) and, for user text and
 * assistant text without tool calls, the text that may enter evidence. Tool
 * content, artifacts and tool-call prose never get a `text`, nor does text over
 * `maxMessageBytes` (the message is then `unreadable`).
 */
export interface SnapshotMessage {
  readonly kind: MessageKind;
  readonly id: string;
  /** Role, id, content pieces, tool-call ids/names/arguments and `tool_call_id`, in order. */
  readonly parts: readonly string[];
  /** Set only for text that may enter evidence. */
  readonly text: string | undefined;
  /** True for user or assistant text evidence would read but that is over `maxMessageBytes`: hashed, not read, counted. */
  readonly unreadable: boolean;
}

/** A validated snapshot and the index of its newest HumanMessage (-1 when none). */
export interface Snapshot {
  readonly messages: readonly SnapshotMessage[];
  readonly lastHuman: number;
}

function invalid(field: string, expected: string, got: string, index: number): ContextViewError {
  return new ContextViewError("INVALID_MESSAGES", `Expected \`${field}\` to be ${expected}, got ${got}`, { index, field });
}

/** An id or a name as text; a value without a string form (a null-prototype object) reads as its JSON. */
function textPart(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value !== "object") return String(value);
  return safeJson(value);
}

/**
 * The calls as serialized, invalid ones included. These parts feed the lineage digests
 * stores keep, so they do not follow `toolCallsOf`: reading them another way would
 * make every stored evidence state look like another conversation.
 */
function toolCallParts(fields: Record<string, unknown>, index: number): string[] {
  const parts: string[] = [];
  for (const list of [fields["tool_calls"], fields["invalid_tool_calls"]]) {
    if (!Array.isArray(list)) continue;
    (list as Record<string, unknown>[]).forEach((call, j) => {
      const fn = call?.["function"] as Record<string, unknown> | undefined;
      const args = call?.["args"] ?? fn?.["arguments"];
      parts.push(textPart(call?.["id"]), textPart(call?.["name"] ?? fn?.["name"]), typeof args === "string" ? args : jsonText(args ?? {}, `messages[${index}].tool_calls[${j}].args`));
    });
  }
  return parts;
}

/**
 * Reads and checks one message. Text that may enter evidence (and every id) must
 * be well-formed UTF-16: SQLite stores UTF-8, where a lone surrogate cannot be
 * kept. Other text is hashed in its well-formed form.
 *
 * `maxMessageBytes` bounds only what evidence reads: user or assistant text over it
 * is left unread (`unreadable`), and the size of other messages is never counted,
 * since nothing of them but the hash is used. Every message keeps all its parts,
 * so the prefix digest covers it whole and an edit of a large message is seen.
 */
export function readMessage(value: unknown, index: number, maxMessageBytes: number): SnapshotMessage {
  const kind = kindOf(value, index);
  const fields = messageFields(value as object);
  const given = fields["id"];
  if (given !== undefined && given !== null && given !== "" && typeof given !== "string") {
    throw invalid(`messages[${index}].id`, "a non-empty string, or none", describeValue(given), index);
  }
  if (typeof given === "string" && !isWellFormedText(given)) throw invalid(`messages[${index}].id`, "well-formed text", "a lone surrogate", index);
  // A message without an id (a wrapper's or middleware's caller builds them by hand) gets a
  // key of its position and content: the same message at the same place keeps it.
  const id = typeof given === "string" && given !== "" ? given : derivedId(index, kind, fields["content"]);
  const content = fields["content"] ?? "";
  // The view's rule (`toolCallsOf`): an answer whose only calls are invalid is shown as
  // an answer, so its text is evidence like any other answer.
  const keepsText = kind === "human" || (kind === "ai" && !hasToolCalls(value as MessageInput, index));
  const parts: string[] = [kind, id];
  const texts: string[] = [];
  if (typeof content === "string") {
    parts.push("s", content);
    texts.push(content);
  } else if (Array.isArray(content)) {
    parts.push(`a${content.length}`);
    for (let j = 0; j < content.length; j++) {
      const block: unknown = content[j];
      const text = blockText(block);
      if (text === undefined) {
        parts.push("j", jsonText(block, `messages[${index}].content[${j}]`));
      } else {
        parts.push("t", text);
        texts.push(text);
      }
    }
  } else {
    throw invalid(`messages[${index}].content`, "a string or an array of content blocks", describeValue(content), index);
  }
  if (kind === "ai") parts.push(...toolCallParts(fields, index));
  const toolCallId = fields["tool_call_id"];
  if (typeof toolCallId === "string") parts.push(toolCallId);

  const unreadable = keepsText && overBytes(parts, maxMessageBytes);
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] as string;
    if (isWellFormedText(part)) continue;
    if (keepsText) throw invalid(`messages[${index}].content`, "well-formed text", "a lone surrogate", index);
    parts[p] = toWellFormedText(part);
  }
  return { kind, id, parts, text: keepsText && !unreadable ? texts.join("\n") : undefined, unreadable };
}

/** Prefix of the key {@link readMessage} gives a message without an id: never a LangChain id's shape. */
export const DERIVED_ID_PREFIX = "contextview:position:";

/** `contextview:position:<index>:<FNV-1a of role and content>` for a message without an id. */
function derivedId(index: number, kind: string, content: unknown): string {
  const text = `${kind}\n${typeof content === "string" ? content : jsonText(content ?? "", `messages[${index}].content`)}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return `${DERIVED_ID_PREFIX}${index}:${(hash >>> 0).toString(16).padStart(8, "0")}`;
}

/** True when `parts` take more than `maxBytes` UTF-8 bytes. */
function overBytes(parts: readonly string[], maxBytes: number): boolean {
  let units = 0;
  for (const part of parts) units += part.length;
  // A UTF-16 code unit takes at most 3 UTF-8 bytes, so most messages need no exact count.
  if (units * 3 <= maxBytes) return false;
  let bytes = 0;
  for (const part of parts) bytes += utf8Length(part);
  return bytes > maxBytes;
}

/**
 * Validates a checkpoint snapshot and reads what the evidence logic needs, in
 * slices that yield to the event loop. Throws `INVALID_MESSAGES` naming the
 * first offending message and field; a message over `maxMessageBytes` is not an
 * error (see {@link readMessage}).
 */
export async function readSnapshot(messages: unknown, maxMessageBytes: number, slicer: Slicer): Promise<Snapshot> {
  checkMessageArray(messages);
  const read: SnapshotMessage[] = [];
  let lastHuman = -1;
  for (let i = 0; i < messages.length; i++) {
    const message = readMessage(messages[i], i, maxMessageBytes);
    if (message.kind === "human") lastHuman = i;
    read.push(message);
    if (slicer.due()) await slicer.pause();
  }
  return { messages: read, lastHuman };
}
