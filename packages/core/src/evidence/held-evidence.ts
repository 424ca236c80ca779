import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { toBaseMessage, type MessageInput } from "../messages.js";
import { DERIVED_ID_PREFIX } from "./snapshot.js";
import { EVIDENCE_BUCKETS, type EvidenceBucket } from "./state.js";

/** What an evidence message shown earlier still says about the conversation. */
export interface HeldEvidence {
  /** The evidence covers the messages before this index. */
  cursor: number;
}

/**
 * Whether an evidence message shown on an earlier call (`EvidenceState.asMessage()`)
 * may be shown again, byte for byte, instead of a fresher one: it must be an
 * evidence envelope whose every excerpt still quotes the message with the same id
 * at the same position of `messages` (the same lineage, not a fork or an edit).
 * Returns its cursor — it covers the messages before it — or `null`.
 *
 * Showing the held evidence while the messages it does not cover are still in the
 * view keeps the view's head byte-identical between evidence steps, so a provider's
 * prompt cache keeps serving it; the caller refreshes once the view drops a message
 * at or past the cursor.
 *
 * @example
 * ```ts
 * const held = heldEvidence(shownBefore, messages);
 * const evidence = held !== null ? shownBefore : fresh;
 * ```
 */
export function heldEvidence(message: BaseMessage, messages: readonly MessageInput[]): HeldEvidence | null {
  if (typeof message.content !== "string") return null;
  let envelope: unknown;
  try {
    envelope = (JSON.parse(message.content) as { contextview_evidence?: unknown }).contextview_evidence;
  } catch {
    return null;
  }
  if (envelope === null || typeof envelope !== "object") return null;
  const record = envelope as Record<string, unknown>;
  const cursor = record["cursor"];
  if (typeof cursor !== "number" || !Number.isSafeInteger(cursor) || cursor < 0 || cursor > messages.length) return null;
  for (const bucket of EVIDENCE_BUCKETS) {
    const entries = record[bucket];
    if (!Array.isArray(entries)) return null;
    for (const entry of entries as { index?: unknown; messageId?: unknown }[]) {
      const index = entry?.index;
      if (typeof index !== "number" || !Number.isSafeInteger(index) || index < 0 || index >= cursor) return null;
      if (toBaseMessage(messages[index] as MessageInput, index).id !== entry.messageId) return null;
    }
  }
  return { cursor };
}

/**
 * The evidence message without the excerpts `shown(entry)` says the view shows itself,
 * so evidence never repeats them, and the entries it left out. `message` is
 * `message` itself when it quotes none of them, `null` when it quotes nothing else,
 * and a new assistant message otherwise (same id and metadata; the envelope's other
 * fields as they were, each bucket's order kept).
 *
 * @example
 * ```ts
 * const { message, removed } = evidenceWithout(state.asMessage()!, (entry) => viewIds.has(entry.messageId));
 * ```
 */
export function evidenceWithout(message: BaseMessage, shown: (entry: QuotedMessage) => boolean): { message: BaseMessage | null; removed: QuotedMessage[] } {
  const same = { message, removed: [] };
  const parsed = parseEvidence(message);
  if (parsed === null) return same;
  const removed: QuotedMessage[] = [];
  let left = 0;
  const next: Record<string, unknown> = { ...parsed.envelope };
  for (const bucket of EVIDENCE_BUCKETS) {
    const kept = (parsed.buckets[bucket] as { index?: unknown; messageId?: unknown }[]).filter((entry) => {
      if (typeof entry?.index !== "number" || typeof entry.messageId !== "string") return true;
      const quoted = { messageId: entry.messageId, index: entry.index };
      if (!shown(quoted)) return true;
      removed.push(quoted);
      return false;
    });
    left += kept.length;
    next[bucket] = kept;
  }
  if (removed.length === 0) return same;
  if (left === 0) return { message: null, removed };
  return { message: withEnvelope(message, parsed, next), removed };
}

/** An evidence message's content, parsed: the whole object, its envelope, and each bucket's entries. */
export interface ParsedEvidence {
  whole: { contextview_evidence: Record<string, unknown> };
  envelope: Record<string, unknown>;
  buckets: Record<EvidenceBucket, unknown[]>;
}

/**
 * The envelope of an evidence message (`EvidenceState.asMessage()`), or null when
 * `message` is not one: not JSON, no envelope, or a bucket that is not a list.
 *
 * @example
 * ```ts
 * parseEvidence(state.asMessage()!)?.buckets.decisions.length; // 2
 * ```
 */
export function parseEvidence(message: BaseMessage): ParsedEvidence | null {
  if (typeof message.content !== "string") return null;
  let whole: { contextview_evidence?: unknown };
  try {
    whole = JSON.parse(message.content) as typeof whole;
  } catch {
    return null;
  }
  const envelope = whole?.contextview_evidence;
  if (envelope === null || typeof envelope !== "object") return null;
  const buckets = {} as Record<EvidenceBucket, unknown[]>;
  for (const bucket of EVIDENCE_BUCKETS) {
    const entries = (envelope as Record<string, unknown>)[bucket];
    if (!Array.isArray(entries)) return null;
    buckets[bucket] = entries;
  }
  return { whole: whole as ParsedEvidence["whole"], envelope: envelope as Record<string, unknown>, buckets };
}

/** `message` with its envelope's fields replaced by `next` (same id and metadata, the other fields as they were). */
export function withEnvelope(message: BaseMessage, parsed: ParsedEvidence, next: Record<string, unknown>): AIMessage {
  return new AIMessage({
    ...(message.id === undefined ? {} : { id: message.id }),
    content: JSON.stringify({ ...parsed.whole, contextview_evidence: next }),
    response_metadata: { ...message.response_metadata },
  });
}

/** A message an evidence excerpt quotes: its id (or position key) and its index in the checkpoint. */
export interface QuotedMessage {
  messageId: string;
  index: number;
}

/**
 * The ids of the messages the evidence in a history message quotes (an evidence
 * message, or a summary with evidence riding along), position keys of messages
 * without an id left out. Empty when it holds no evidence.
 *
 * @example
 * ```ts
 * const quoted = quotedMessageIds(historyMessage); // Set { "h12", "t40" }
 * ```
 */
export function quotedMessageIds(message: BaseMessage): Set<string> {
  const ids = new Set<string>();
  const text = typeof message.content === "string" ? message.content : "";
  const at = text.indexOf('{"contextview_evidence"');
  if (at < 0) return ids;
  let envelope: unknown;
  try {
    envelope = (JSON.parse(text.slice(at)) as { contextview_evidence?: unknown }).contextview_evidence;
  } catch {
    return ids;
  }
  if (envelope === null || typeof envelope !== "object") return ids;
  for (const bucket of EVIDENCE_BUCKETS) {
    const entries = (envelope as Record<string, unknown>)[bucket];
    if (!Array.isArray(entries)) continue;
    for (const entry of entries as { messageId?: unknown }[]) {
      if (typeof entry?.messageId === "string" && !entry.messageId.startsWith(DERIVED_ID_PREFIX)) ids.add(entry.messageId);
    }
  }
  return ids;
}
