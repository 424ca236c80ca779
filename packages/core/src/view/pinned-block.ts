import type { BaseMessage, MessageContent } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { currentTurnMinimum } from "./long-turn.js";
import { wholeOver } from "./current-turn-room.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { blockText, textOf, type MessageKind } from "../messages.js";
import { CONTINUATION_LABEL, labelMessage } from "./head.js";
import { NO_IMAGE_INPUT_PLACEHOLDER } from "./images.js";
import { IMAGE_PLACEHOLDER } from "./older.js";
import { orderTurn } from "./order.js";
import { OPENING_REQUEST_LABEL, PINNED_LABEL, reserveOf, type PinnedCandidates, type PinnedItem } from "./pinned.js";
import type { PinnedMessageReport, PinnedReport } from "./types.js";

/** A pinned block ready for the view: messages to place right after the system message. */
export interface PinnedBlock {
  readonly messages: BaseMessage[];
  readonly tokens: number;
  /** Continuation labels inserted for ordering rules. */
  readonly labels: number;
  /** Messages of the block that come from `messages` (not labels, not prior messages). */
  readonly inputMessages: number;
  /** Index in `messages` of each of those `inputMessages`, by the start of its item (a tool call's results share its start). */
  readonly inputStarts: readonly number[];
  /** Images of the pinned messages shown that the block replaced by placeholders (or left out of an excerpt). */
  readonly imagesReplaced: number;
  readonly report: PinnedReport;
}

/**
 * Fit the pinned reserve into `room` (what the current request and the fixed
 * overhead leave): the oldest pins are left out first, then the opening request.
 * Returns the candidates unchanged when they fit.
 */
export function fitPinned(candidates: PinnedCandidates, room: number, estimator: Estimator): PinnedCandidates {
  if (candidates.reserve <= room) return candidates;
  let next: Omit<PinnedCandidates, "reserve"> = candidates;
  let reserve = candidates.reserve;
  while (reserve > room && next.pins.length > 0) {
    next = { ...next, pins: next.pins.slice(1), dropped: next.dropped + (next.pins[0] as PinnedItem).messages.length };
    reserve = reserveOf(next, estimator);
  }
  if (reserve > room && next.opening !== null && next.opening.start < next.currentStart) {
    // An opening request the application pinned too is a pinned message left out.
    next = { ...next, openingNoRoom: true, dropped: next.dropped + (next.openingAlsoPinned ? 1 : 0) };
    reserve = reserveOf(next, estimator);
  }
  return { ...next, reserve };
}

/**
 * The pinning stage, second half: once the view's kept turns are known (`cut`, the
 * index in `messages` of the oldest kept message, and `shown`, the kept messages, read
 * only when a pinned item among the kept turns must be looked up), the pinned block
 * holds every pinned item not already in the view unchanged: the labelled opening
 * request first, then the labelled pins in conversation order. Its estimate never
 * exceeds `candidates.reserve`.
 *
 * @example
 * ```ts
 * const block = pinnedBlock(pinned, report.cut, keptMessages, estimator);
 * view.splice(systemMessage ? 1 : 0, 0, ...block.messages);
 * ```
 */
export function pinnedBlock(candidates: PinnedCandidates, cut: number, shown: Iterable<BaseMessage>, estimator: Estimator): PinnedBlock {
  // Several messages may share an id (a client that reuses one): all are kept, by id. Made at the first lookup.
  let byId: Map<string, BaseMessage[]> | undefined;
  const copiesOf = (id: string): BaseMessage[] => {
    if (byId === undefined) {
      byId = new Map();
      for (const message of shown) {
        if (message.id === undefined) continue;
        const same = byId.get(message.id);
        if (same === undefined) byId.set(message.id, [message]);
        else same.push(message);
      }
    }
    return byId.get(id) ?? [];
  };
  // In the view: its turn is kept and its text was not excerpted there (an image placeholder
  // does not count). A tool exchange is never shown twice (providers reject repeated
  // tool-call ids); the current turn is always in the view, and no room was kept for it.
  const inView = (item: PinnedItem): boolean => {
    if (item.start < cut) return false;
    if (item.calls || item.start >= candidates.currentStart) return true;
    const original = item.originals[0] as BaseMessage;
    if (original.id === undefined) return true;
    return copiesOf(original.id).some((copy) => copy.type === original.type && ownText(copy.content) === ownText(original.content));
  };

  const messages: BaseMessage[] = [];
  const inputStarts: number[] = [];
  let imagesReplaced = 0;
  let openingReport: PinnedReport["openingRequest"] = null;
  const opening = candidates.opening;
  if (opening !== null) {
    const copy = opening.messages[0] as BaseMessage;
    const placement = candidates.openingNoRoom ? "no-room" : inView(opening) ? "in-view" : "pinned";
    openingReport = { id: copy.id ?? null, role: "human", tokens: opening.tokens, excerpted: opening.excerpted[0] === true, placement };
    if (placement === "pinned") {
      messages.push(labelMessage(OPENING_REQUEST_LABEL), copy);
      if (opening.start >= 0) inputStarts.push(opening.start);
      imagesReplaced += opening.imagesReplaced;
    }
  }

  let inViewCount = candidates.inCurrent;
  let excerpted = 0;
  const reports: PinnedMessageReport[] = [];
  const pinned: BaseMessage[] = [];
  for (const item of candidates.pins) {
    if (inView(item)) {
      inViewCount += item.messages.length;
      continue;
    }
    if (item.start >= 0) for (let j = 0; j < item.messages.length; j++) inputStarts.push(item.start);
    imagesReplaced += item.imagesReplaced;
    item.messages.forEach((message, j) => {
      const wasExcerpted = item.excerpted[j] === true;
      if (wasExcerpted) excerpted++;
      reports.push({ id: message.id ?? null, role: message.type as MessageKind, tokens: estimator.estimateMessage(message), excerpted: wasExcerpted });
      pinned.push(message);
    });
  }
  let labels = 0;
  if (pinned.length > 0) {
    const part: BaseMessage[] = [labelMessage(PINNED_LABEL), ...pinned];
    labels = orderTurn(part) + separateModelTurns(part);
    messages.push(...part);
  }
  return {
    messages,
    tokens: estimator.estimateMessages(messages),
    labels,
    inputMessages: inputStarts.length,
    inputStarts,
    imagesReplaced,
    report: { openingRequest: openingReport, messages: reports, inView: inViewCount, excerpted, dropped: candidates.dropped, unpinnable: candidates.unpinnable },
  };
}

/**
 * A continuation label between two assistant messages in a row, in place: pinned answers of
 * different turns (the user messages between them not pinned) would be two model turns in
 * a row, which Gemini refuses. Returns the labels inserted (each charged in the reserve).
 */
function separateModelTurns(part: BaseMessage[]): number {
  let inserted = 0;
  for (let i = 1; i < part.length; i++) {
    if (part[i]?.type !== "ai" || part[i - 1]?.type !== "ai") continue;
    part.splice(i, 0, labelMessage(CONTINUATION_LABEL));
    inserted++;
    i++;
  }
  return inserted;
}

/** The text of a content without the placeholders that stand in for older images. */
function ownText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return textOf(content.filter((block) => blockText(block) !== IMAGE_PLACEHOLDER && blockText(block) !== NO_IMAGE_INPUT_PLACEHOLDER) as MessageContent);
}

/**
 * The pinned block beside the current turn. It is fixed overhead and gives way only when
 * the current turn, in the least form it can take (see {@link currentTurnMinimum}), would
 * not fit beside it: then it is fitted to the room that form leaves (see {@link fitPinned}:
 * the oldest pins first, then the opening request). `room` is the limit less the fixed part
 * without pins. Known before the turn is fitted, so the turn is fitted once.
 *
 * @example
 * ```ts
 * const pinned = pinnedBeside(collected, prepared, limit - fixed.tokens, options, estimator);
 * ```
 */
export function pinnedBeside(
  pinned: PinnedCandidates,
  current: PreparedTurn,
  room: number,
  options: Parameters<typeof currentTurnMinimum>[0]["options"],
  estimator: Estimator,
): PinnedCandidates {
  if (pinned.reserve === 0 || !wholeOver(current, room - pinned.reserve, estimator)) return pinned;
  return fitPinned(pinned, Math.max(0, room - currentTurnMinimum({ current, options, estimator })), estimator);
}
