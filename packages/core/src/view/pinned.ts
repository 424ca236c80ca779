import type { BaseMessage, MessageContent, ToolMessage } from "@langchain/core/messages";
import { ContextBudgetError, invalidOption } from "../errors.js";
import type { Estimator } from "../estimate.js";
import { blockText, copyMessage, kindOf, textOf, toBaseMessage, toolCallsOf, type MessageInput, type MessageKind } from "../messages.js";
import { groupExchanges } from "./exchanges.js";
import { CONTINUATION_LABEL, labelMessage } from "./head.js";
import { orderTurn } from "./order.js";
import { isMarkedPinned } from "./pin-message.js";
import { boundPinnedText, MIN_PINNED_EXCERPT_TOKENS, textTokens } from "./pinned-bound.js";
import { EXCERPT_MARKER_TOKENS, IMAGE_PLACEHOLDER } from "./older.js";
import type { PinnedMessageReport, PinnedReport, PinPredicate } from "./types.js";

/**
 * The user-role label before the pinned opening request.
 *
 * @example
 * ```ts
 * const goal = view.messages[view.messages.findIndex((m) => m.content === OPENING_REQUEST_LABEL) + 1];
 * ```
 */
export const OPENING_REQUEST_LABEL = "[Pinned: the request that started this conversation. Later messages may refine or change it.]";

/**
 * The user-role label before the messages the application pinned.
 *
 * @example
 * ```ts
 * const start = view.messages.findIndex((m) => m.content === PINNED_LABEL); // -1 when nothing is pinned
 * ```
 */
export const PINNED_LABEL = "[Pinned: earlier messages of this conversation kept in view. Later messages may refine or change them.]";

/** A pinned exchange: a user message, an AI reply, or an AI tool call with all its results. */
export interface PinnedItem {
  /** Index in `messages` of its first message; -1 for a prior message (older than any view). */
  readonly start: number;
  /** The messages as read from the conversation. */
  readonly originals: readonly BaseMessage[];
  /** Their copies for the view, excerpted where a bound required it. */
  readonly messages: readonly BaseMessage[];
  readonly excerpted: readonly boolean[];
  readonly tokens: number;
  /** True for an AI tool call with its results (it may need a continuation label). */
  readonly calls: boolean;
}

/** What {@link collectPinned} found, bounded, and the tokens to reserve for it. */
export interface PinnedCandidates {
  /** The opening request, or null when pinning it is off or the conversation has no user message. */
  readonly opening: PinnedItem | null;
  /** True when the current request left no room for the opening request (it is then not shown). */
  readonly openingNoRoom: boolean;
  /** The application's pins older than the current turn, oldest first, within `pinnedBudget`. */
  readonly pins: readonly PinnedItem[];
  /** Estimated tokens of the pinned block at its largest (every item shown, with labels). */
  readonly reserve: number;
  /** Pinned messages of the current turn (always in the view). */
  readonly inCurrent: number;
  readonly dropped: number;
  readonly unpinnable: number;
  /** Index in `messages` where the current turn starts. */
  readonly currentStart: number;
}

/** Input of {@link collectPinned}. */
export interface CollectPinnedInput {
  /** The conversation as given to `buildContext`. */
  readonly messages: readonly MessageInput[];
  /** Count of its leading system messages. */
  readonly lead: number;
  /** Index in `messages` where the current turn starts. */
  readonly currentStart: number;
  /** Messages before `messages[lead]` that a summary stands for (see `BuildContextInput.priorMessages`). */
  readonly prior?: readonly MessageInput[] | undefined;
  readonly pinOpeningRequest: boolean;
  readonly maxOpeningRequestTokens: number;
  readonly pinnedBudget: number;
  readonly pin?: PinPredicate | undefined;
  readonly estimator: Estimator;
}

/** A pinned block ready for the view: messages to place right after the system message. */
export interface PinnedBlock {
  readonly messages: BaseMessage[];
  readonly tokens: number;
  /** Continuation labels inserted for ordering rules. */
  readonly labels: number;
  /** Messages of the block that come from `messages` (not labels, not prior messages). */
  readonly inputMessages: number;
  readonly report: PinnedReport;
}

/**
 * The pinning stage, first half: find the opening request (the first user message
 * of the conversation) and the messages the application pinned (the
 * {@link PIN_FIELD} field, or the `pin` predicate), extend each pin to its whole
 * exchange (a tool result brings its call and all sibling results), bound the
 * opening request to `maxOpeningRequestTokens` and the pins to `pinnedBudget`
 * (oldest excerpted first, then left out), and say how many tokens to reserve.
 *
 * Reads the pin field of every message (a few property reads each) and, with a
 * `pin` predicate, every message whole; the rest of the view reads only what it keeps.
 *
 * @example
 * ```ts
 * const pinned = collectPinned({ messages, lead: 0, currentStart, pinOpeningRequest: true, maxOpeningRequestTokens: 1500, pinnedBudget: 3000, estimator });
 * const fixed = systemTokens + toolTokens + pinned.reserve;
 * ```
 */
export function collectPinned(input: CollectPinnedInput): PinnedCandidates {
  const { messages, lead, currentStart, estimator } = input;
  const prior = input.prior ?? [];
  if (!Array.isArray(prior)) throw invalidOption("priorMessages", "an array of chat messages", prior);
  if (input.pin !== undefined && typeof input.pin !== "function") throw invalidOption("pin", "a function (message, index) => boolean", input.pin);
  const p = prior.length;
  const total = p + messages.length - lead;
  const currentPos = p + currentStart - lead;
  // Positions run over prior messages, then messages after the leading system ones.
  const at = (pos: number): MessageInput => (pos < p ? prior[pos] : messages[lead + pos - p]) as MessageInput;
  const indexOf = (pos: number): number => (pos < p ? pos : lead + pos - p);
  const startOf = (pos: number): number => (pos < p ? -1 : lead + pos - p);
  const kinds = new Map<number, MessageKind>();
  const kind = (pos: number): MessageKind => {
    let k = kinds.get(pos);
    if (k === undefined) {
      k = kindOf(at(pos), indexOf(pos));
      kinds.set(pos, k);
    }
    return k;
  };

  let openingPos = -1;
  let opening: PinnedItem | null = null;
  if (input.pinOpeningRequest) {
    for (let pos = 0; pos <= currentPos && pos < total; pos++) {
      if (kind(pos) === "human") {
        openingPos = pos;
        break;
      }
    }
    if (openingPos >= 0) {
      const original = toBaseMessage(at(openingPos), indexOf(openingPos));
      const bounded = boundPinnedText(original, "human", input.maxOpeningRequestTokens, estimator);
      const copy = bounded.excerpted ? bounded.message : copyMessage(original, "human");
      opening = { start: startOf(openingPos), originals: [original], messages: [copy], excerpted: [bounded.excerpted], tokens: estimator.estimateMessage(copy), calls: false };
    }
  }

  let inCurrent = 0;
  let unpinnable = 0;
  const pins: PinnedItem[] = [];
  if (input.pinnedBudget > 0) {
    const seen = new Set<number>();
    for (let pos = 0; pos < total; pos++) {
      const value = at(pos);
      if (!isMarkedPinned(value) && !(input.pin !== undefined && input.pin(toBaseMessage(value, indexOf(pos)), lead + pos))) continue;
      if (pos >= currentPos) {
        inCurrent++;
        continue;
      }
      const item = pinnedExchange(pos, kind, at, indexOf, total, estimator);
      if (item === null) unpinnable++;
      else if (item.from !== openingPos && !seen.has(item.from)) {
        seen.add(item.from);
        pins.push({ ...item.item, start: startOf(item.from) });
      }
    }
  }
  const bounded = boundToBudget(pins, input.pinnedBudget, estimator);
  const candidates = { opening, openingNoRoom: false, pins: bounded.pins, inCurrent, dropped: bounded.dropped, unpinnable, currentStart };
  return { ...candidates, reserve: reserveOf(candidates, estimator) };
}

/** The whole exchange of a pinned message at `pos`, or null when it cannot be shown. */
function pinnedExchange(
  pos: number,
  kind: (pos: number) => MessageKind,
  at: (pos: number) => MessageInput,
  indexOf: (pos: number) => number,
  total: number,
  estimator: Estimator,
): { from: number; item: Omit<PinnedItem, "start"> } | null {
  const k = kind(pos);
  if (k === "system") return null;
  let from = pos;
  if (k === "tool") {
    while (from > 0 && kind(from - 1) === "tool") from--;
    from--;
    if (from < 0 || kind(from) !== "ai") return null;
  }
  let to = from + 1;
  if (k !== "human" && toolCallsOf(toBaseMessage(at(from), indexOf(from))).length > 0) {
    while (to < total && kind(to) === "tool") to++;
  }
  const slice: MessageInput[] = [];
  const sliceKinds: MessageKind[] = [];
  for (let q = from; q < to; q++) {
    slice.push(at(q));
    sliceKinds.push(kind(q));
  }
  const exchange = groupExchanges(slice, sliceKinds, 0, slice.length).exchanges[0];
  if (exchange === undefined || exchange.start !== 0) return null;
  if (k === "tool") {
    const id = (toBaseMessage(at(pos), indexOf(pos)) as ToolMessage).tool_call_id;
    if (!exchange.messages.some((m) => m.type === "tool" && (m as ToolMessage).tool_call_id === id)) return null;
  }
  const originals = exchange.messages;
  const copies = originals.map((m) => copyMessage(m, m.type as MessageKind));
  return {
    from,
    item: { originals, messages: copies, excerpted: copies.map(() => false), tokens: estimator.estimateMessages(copies), calls: exchange.kind === "tools" },
  };
}

/** Excerpt the oldest pins first until all fit `budget`; leave out the oldest that still do not. */
function boundToBudget(pins: PinnedItem[], budget: number, estimator: Estimator): { pins: PinnedItem[]; dropped: number } {
  let total = pins.reduce((sum, pin) => sum + pin.tokens, 0);
  const out = [...pins];
  for (let i = 0; i < out.length && total > budget; i++) {
    const item = out[i] as PinnedItem;
    const texts = item.messages.map((m) => textTokens(m, estimator));
    const textTotal = texts.reduce((a, b) => a + b, 0);
    if (textTotal === 0) continue;
    const keep = Math.max(0, textTotal - (total - budget) - EXCERPT_MARKER_TOKENS * texts.length);
    const excerpted = [...item.excerpted];
    const messages = item.messages.map((m, j) => {
      const max = Math.max(MIN_PINNED_EXCERPT_TOKENS, Math.floor(((texts[j] as number) * keep) / textTotal));
      const bounded = boundPinnedText(m, m.type as MessageKind, max, estimator);
      if (bounded.excerpted) excerpted[j] = true;
      return bounded.message;
    });
    const tokens = estimator.estimateMessages(messages);
    total += tokens - item.tokens;
    out[i] = { ...item, messages, excerpted, tokens };
  }
  let dropped = 0;
  while (total > budget && out.length > 0) {
    const oldest = out.shift() as PinnedItem;
    total -= oldest.tokens;
    dropped += oldest.messages.length;
  }
  return { pins: out, dropped };
}

function reserveOf(c: Omit<PinnedCandidates, "reserve">, estimator: Estimator): number {
  let reserve = 0;
  if (c.opening !== null && !c.openingNoRoom && c.opening.start < c.currentStart) reserve += estimator.estimateMessage(labelMessage(OPENING_REQUEST_LABEL)) + c.opening.tokens;
  if (c.pins.length > 0) {
    const continuation = estimator.estimateMessage(labelMessage(CONTINUATION_LABEL));
    reserve += estimator.estimateMessage(labelMessage(PINNED_LABEL));
    for (const pin of c.pins) reserve += pin.tokens + (pin.calls ? continuation : 0);
  }
  return reserve;
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
    next = { ...next, openingNoRoom: true };
    reserve = reserveOf(next, estimator);
  }
  return { ...next, reserve };
}

/**
 * Run the compaction stage with the pinned reserve charged as fixed overhead. When
 * the current turn does not fit beside it (a {@link ContextBudgetError}), run it
 * again with the pins fitted to the room the current turn leaves (see
 * {@link fitPinned}), and at last with nothing pinned, whose error is the real one.
 * `room` is the limit less the fixed part without pins.
 *
 * @example
 * ```ts
 * const stage = withRoomForCurrent(pinned, limit - fixed.tokens, (p) => compactToFit({ … fixed: { ...fixed, tokens: fixed.tokens + p.reserve } }), estimator);
 * ```
 */
export function withRoomForCurrent<T>(pinned: PinnedCandidates, room: number, compact: (pinned: PinnedCandidates) => T, estimator: Estimator): T {
  try {
    return compact(pinned);
  } catch (error) {
    if (pinned.reserve === 0 || !ContextBudgetError.isBudgetError(error)) throw error;
    const fitted = fitPinned(pinned, room - (error.parts["current"] ?? 0), estimator);
    if (fitted.reserve > 0) {
      try {
        return compact(fitted);
      } catch (again) {
        if (!ContextBudgetError.isBudgetError(again)) throw again;
      }
    }
    return compact(fitPinned(pinned, 0, estimator));
  }
}

/**
 * The pinning stage, second half: once the view's kept turns are known (`cut`, the
 * index in `messages` of the oldest kept message, and `shown`, the kept messages),
 * the pinned block holds every pinned item not already in the view unchanged: the
 * labelled opening request first, then the labelled pins in conversation order.
 * Its estimate never exceeds `candidates.reserve`.
 *
 * @example
 * ```ts
 * const block = pinnedBlock(pinned, report.cut, keptMessages, estimator);
 * view.splice(systemMessage ? 1 : 0, 0, ...block.messages);
 * ```
 */
export function pinnedBlock(candidates: PinnedCandidates, cut: number, shown: readonly BaseMessage[], estimator: Estimator): PinnedBlock {
  const byId = new Map<string, BaseMessage>();
  for (const message of shown) if (message.id !== undefined) byId.set(message.id, message);
  // In the view: its turn is kept and its text was not excerpted there (an image placeholder
  // does not count). A tool
  // exchange is never shown twice (providers reject repeated tool-call ids).
  const inView = (item: PinnedItem): boolean => {
    if (item.start < cut) return false;
    if (item.calls) return true;
    const original = item.originals[0] as BaseMessage;
    if (original.id === undefined) return true;
    const copy = byId.get(original.id);
    return copy !== undefined && ownText(copy.content) === ownText(original.content);
  };

  const messages: BaseMessage[] = [];
  let inputMessages = 0;
  let openingReport: PinnedReport["openingRequest"] = null;
  const opening = candidates.opening;
  if (opening !== null) {
    const copy = opening.messages[0] as BaseMessage;
    const placement = candidates.openingNoRoom ? "no-room" : inView(opening) ? "in-view" : "pinned";
    openingReport = { id: copy.id ?? null, role: "human", tokens: opening.tokens, excerpted: opening.excerpted[0] === true, placement };
    if (placement === "pinned") {
      messages.push(labelMessage(OPENING_REQUEST_LABEL), copy);
      if (opening.start >= 0) inputMessages++;
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
    if (item.start >= 0) inputMessages += item.messages.length;
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
    labels = orderTurn(part);
    messages.push(...part);
  }
  return {
    messages,
    tokens: estimator.estimateMessages(messages),
    labels,
    inputMessages,
    report: { openingRequest: openingReport, messages: reports, inView: inViewCount, excerpted, dropped: candidates.dropped, unpinnable: candidates.unpinnable },
  };
}

/** The text of a content without the placeholders that stand in for older images. */
function ownText(content: MessageContent): string {
  if (typeof content === "string") return content;
  return textOf(content.filter((block) => blockText(block) !== IMAGE_PLACEHOLDER) as MessageContent);
}
