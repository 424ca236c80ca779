import type { BaseMessage } from "@langchain/core/messages";
import { toBaseMessage, type MessageInput } from "../messages.js";
import { EVIDENCE_BUCKETS } from "./state.js";

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
