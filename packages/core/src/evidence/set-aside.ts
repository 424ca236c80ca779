import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { MessageInput } from "../messages.js";
import { excerptOf } from "./extend.js";
import { parseEvidence, withEnvelope, type ParsedEvidence, type QuotedMessage } from "./held-evidence.js";
import { readMessage } from "./snapshot.js";
import { EVIDENCE_BUCKETS, evidenceNotice, type EvidenceBucket } from "./state.js";

/** An excerpt set aside from an evidence message: its bucket, its place there, and the checkpoint message it quotes. */
export interface SetAside {
  bucket: EvidenceBucket;
  /** Its position in the bucket of the whole evidence message. */
  at: number;
  /** The checkpoint position of the message it quotes. */
  index: number;
}

/** The evidence without the excerpts set aside, and where they go back. */
export interface EvidenceSetAside {
  /** The evidence envelope without them (kept even when no excerpt is left). */
  kept: AIMessage;
  aside: SetAside[];
}

/**
 * The evidence message without the excerpts of messages `shown(quoted)` says a view
 * shows, where the checkpoint `messages` gives each back exactly as it is (see
 * {@link excerptOf}): a view record then keeps only what the checkpoint does not hold (the
 * library's own notice, the same in every envelope, is written as null).
 * An excerpt that cannot be made again (evidence an application wrote, a message
 * changed since) stays. Undefined when nothing is set aside or `message` is not evidence.
 *
 * @example
 * ```ts
 * const split = setAsideShown(evidence, (q) => viewIds.has(q.messageId), request.messages);
 * const again = split && restoreSetAside(split.kept, split.aside, request.messages); // the same content as evidence
 * ```
 */
export function setAsideShown(
  message: BaseMessage,
  shown: (quoted: QuotedMessage) => boolean,
  messages: readonly MessageInput[],
): EvidenceSetAside | undefined {
  const parsed = parseEvidence(message);
  if (parsed === null) return undefined;
  const aside: SetAside[] = [];
  const next: Record<string, unknown> = { ...parsed.envelope };
  for (const bucket of EVIDENCE_BUCKETS) {
    const entries = parsed.buckets[bucket];
    next[bucket] = entries.filter((entry, at) => {
      const { index, messageId } = (entry ?? {}) as { index?: unknown; messageId?: unknown };
      if (typeof index !== "number" || typeof messageId !== "string" || !shown({ index, messageId })) return true;
      const again = madeAgain(messages, index);
      if (again === undefined || again.bucket !== bucket || JSON.stringify(again.entry) !== JSON.stringify(entry)) return true;
      aside.push({ bucket, at, index });
      return false;
    });
  }
  if (aside.length === 0) return undefined;
  // The library's own notice is written as null: the longest text of an envelope, and the same in every one.
  if (next["notice"] === noticeOf(next)) next["notice"] = null;
  return { kept: withEnvelope(message, parsed, next), aside };
}

/** The notice the library writes in an envelope with these fields (see `EvidenceState.asMessage`). */
function noticeOf(envelope: Record<string, unknown>): string {
  const unreadable = envelope["unreadable"];
  return evidenceNotice(typeof unreadable === "number" ? unreadable : 0);
}

/**
 * The evidence message `kept` with the excerpts set aside made again from the checkpoint
 * `messages` and put back in their places: the content {@link setAsideShown} was given,
 * byte for byte, while those messages are unchanged (the caller checks its hash).
 * Undefined when `kept` is not evidence or an excerpt cannot be made again.
 *
 * @example
 * ```ts
 * const whole = restoreSetAside(kept, aside, checkpointMessages);
 * ```
 */
export function restoreSetAside(kept: BaseMessage, aside: readonly SetAside[], messages: readonly MessageInput[]): AIMessage | undefined {
  const parsed: ParsedEvidence | null = parseEvidence(kept);
  if (parsed === null) return undefined;
  const next: Record<string, unknown> = { ...parsed.envelope };
  if (next["notice"] === null) next["notice"] = noticeOf(next);
  for (const bucket of EVIDENCE_BUCKETS) {
    const entries = [...parsed.buckets[bucket]];
    // In the order of their places in the whole bucket, so each goes where it was.
    const back = aside.filter((a) => a.bucket === bucket).sort((a, b) => a.at - b.at);
    for (const { at, index } of back) {
      const again = madeAgain(messages, index);
      if (again === undefined || again.bucket !== bucket || at > entries.length) return undefined;
      entries.splice(at, 0, again.entry);
    }
    next[bucket] = entries;
  }
  return withEnvelope(kept, parsed, next);
}

/** The excerpt evidence makes of the checkpoint message at `index`, or undefined (none there, or it cannot be read). */
function madeAgain(messages: readonly MessageInput[], index: number): ReturnType<typeof excerptOf> {
  if (!Number.isSafeInteger(index) || index < 0 || index >= messages.length) return undefined;
  try {
    return excerptOf(readMessage(messages[index], index, Number.MAX_SAFE_INTEGER), index);
  } catch {
    return undefined;
  }
}
