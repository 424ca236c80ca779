import type { MessageInput } from "../messages.js";
import { holdsProviderCompaction } from "../provider-content.js";
import { isMarkedPinned } from "./pin-message.js";

/** What a scan of every message finds (see {@link messageMarks}). */
export interface MessageMarks {
  /** Indices of the messages carrying the pin field (see `isMarkedPinned`), ascending. */
  readonly pinned: readonly number[];
  /** Indices of the messages that hold a provider compaction (see `holdsProviderCompaction`), ascending. */
  readonly compactions: readonly number[];
}

/** The last scan per conversation, keyed by its first message object (collected with it). */
const scans = new WeakMap<object, { objects: readonly unknown[]; marks: MessageMarks }>();

/**
 * The marks a view looks for in every message, whatever it keeps: the pin field and a
 * provider compaction. Reading a few fields of every message touches every message
 * object, which for a long conversation costs more than building the view; so the last
 * scan of a conversation is remembered (keyed by its first message object), and a call
 * whose messages start with the same objects compares references — an array walk — and
 * reads only the messages after the first difference. The result is the same as a full
 * scan.
 *
 * @example
 * ```ts
 * messageMarks([new HumanMessage("a"), pinMessage(new HumanMessage("b"))]).pinned; // [1]
 * ```
 */
export function messageMarks(messages: readonly MessageInput[]): MessageMarks {
  const first = messages[0];
  const memo = typeof first === "object" && first !== null ? scans.get(first) : undefined;
  let same = 0;
  if (memo !== undefined) {
    const common = Math.min(memo.objects.length, messages.length);
    while (same < common && memo.objects[same] === messages[same]) same++;
  }
  if (memo !== undefined && same === messages.length && same === memo.objects.length) return memo.marks;
  const pinned = memo === undefined ? [] : memo.marks.pinned.filter((index) => index < same);
  const compactions = memo === undefined ? [] : memo.marks.compactions.filter((index) => index < same);
  for (let i = same; i < messages.length; i++) {
    const message = messages[i];
    if (isMarkedPinned(message)) pinned.push(i);
    if (holdsProviderCompaction(message)) compactions.push(i);
  }
  const marks: MessageMarks = Object.freeze({ pinned: Object.freeze(pinned), compactions: Object.freeze(compactions) });
  // A copy of the array: the caller may push onto the same array later.
  if (typeof first === "object" && first !== null) scans.set(first, { objects: messages.slice(), marks });
  return marks;
}

/**
 * Indices of the messages carrying the pin field, from {@link messageMarks}.
 *
 * @example
 * ```ts
 * markedIndices([new HumanMessage("a"), pinMessage(new HumanMessage("b"))]); // [1]
 * ```
 */
export function markedIndices(messages: readonly MessageInput[]): number[] {
  return [...messageMarks(messages).pinned];
}
