import type { BaseMessage } from "@langchain/core/messages";
import { heldEvidence, type HeldEvidence } from "../evidence/held-evidence.js";
import { ConversationMemo } from "../memo/conversation-memo.js";
import type { MessageInput } from "../messages.js";
import type { ConversationKey } from "../store/contracts.js";

/** The evidence message a view starts with, and what holds it. */
export interface EvidenceChoice {
  /** The message to show: the one shown before while it holds, else the request's. */
  evidence: BaseMessage | null;
  /** Set when the one shown before is held: it covers the messages before `held.cursor`. */
  held: HeldEvidence | null;
}

/**
 * The evidence message shown last per conversation. It is shown again, byte for
 * byte, while it holds (same lineage) and the view drops nothing it does not cover:
 * the head of the view then changes in steps, not on every turn (provider prompt
 * caches). A bounded memo: one evidence message (itself bounded) per conversation.
 *
 * @example
 * ```ts
 * const shown = new ShownEvidence();
 * const { evidence, held } = shown.choose(key, request.evidence ?? null, messages);
 * ```
 */
export class ShownEvidence {
  readonly #shown = new ConversationMemo<BaseMessage>();

  /** The evidence to start from: the one shown last while it holds, else `fresh`. */
  choose(key: ConversationKey, fresh: BaseMessage | null, messages: readonly MessageInput[]): EvidenceChoice {
    const previous = this.#shown.get(key);
    const held = fresh !== null && previous !== undefined && previous !== fresh ? heldEvidence(previous, messages) : null;
    return { evidence: held !== null ? (previous as BaseMessage) : fresh, held };
  }

  /** Remember what the view showed (nothing: forget). */
  remember(key: ConversationKey, evidence: BaseMessage | null): void {
    if (evidence === null) this.#shown.delete(key);
    else this.#shown.set(key, evidence);
  }
}

/**
 * True when held evidence no longer covers what the view leaves out: the view's
 * cut (in view positions, after any summary) reaches the held evidence's cursor
 * (in checkpoint positions), so the fresh evidence must take its place.
 *
 * @example
 * ```ts
 * if (held !== null && heldEvidenceOutlived(held, view.report.cut, offset, lead)) evidence = fresh;
 * ```
 */
export function heldEvidenceOutlived(held: HeldEvidence, cut: number, offset: number, lead: number): boolean {
  return checkpointCut(cut, offset, lead) > held.cursor;
}

/**
 * The view's cut (`report.cut`, in view positions after any summary) in checkpoint
 * positions: the first message of the checkpoint the view shows after the summary.
 *
 * @example
 * ```ts
 * checkpointCut(view.report.cut, offset, lead); // 120 for a cut at 4 past a summary of messages 1–116
 * ```
 */
export function checkpointCut(cut: number, offset: number, lead: number): number {
  return offset > lead && cut >= lead ? offset + (cut - lead) : cut;
}
