import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { invalidOption } from "../errors.js";
import type { Estimator } from "../estimate.js";
import { copyMessage, kindOf, toBaseMessage, toolCallsOf, type MessageInput, type MessageKind } from "../messages.js";
import { groupExchanges } from "./exchanges.js";
import { pinnedCopy, type PinnedImageChoice } from "./images.js";
import { CONTINUATION_LABEL, labelMessage } from "./head.js";
import { markedIndices } from "./message-marks.js";
import { boundPinnedText, MIN_PINNED_EXCERPT_TOKENS, textTokens } from "./pinned-bound.js";
import { EXCERPT_MARKER_TOKENS, type OlderCounts } from "./older.js";
import type { PinPredicate } from "./types.js";

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
  /** Images of `originals` its copies do not show: replaced by placeholders, or left out of an excerpt. */
  readonly imagesReplaced: number;
}

/** What {@link collectPinned} found, bounded, and the tokens to reserve for it. */
export interface PinnedCandidates {
  /** The opening request, or null when pinning it is off or the conversation has no user message. */
  readonly opening: PinnedItem | null;
  /** True when the current request left no room for the opening request (it is then not shown). */
  readonly openingNoRoom: boolean;
  /** True when the application also pinned the opening request (its exchange is the opening item). */
  readonly openingAlsoPinned: boolean;
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
  /** False when the pin field pins nothing (the `trustPinField` view option). @default true */
  readonly trustPinField?: boolean;
  readonly estimator: Estimator;
  /** False when the model takes no image input: pinned copies get its placeholders. @default true */
  readonly imageInputs?: boolean;
  /** True when pinned copies keep their images (the `pinnedImages` view option). @default false */
  readonly pinnedImages?: boolean;
}

/**
 * The pinning stage, first half: find the opening request (the first user message
 * of the conversation) and the messages the application pinned (the
 * {@link PIN_FIELD} field unless `trustPinField` is false, or the `pin` predicate), extend each pin to its whole
 * exchange (a tool result brings its call and all sibling results), bound the
 * opening request to `maxOpeningRequestTokens` and the pins to `pinnedBudget`
 * (oldest excerpted first, then left out), and say how many tokens to reserve.
 * Images of the copies become placeholders unless `pinnedImages` is true.
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
      const counts: OlderCounts = { excerpted: 0, imagesReplaced: bounded.imagesOmitted };
      const copy = pinnedCopy(input, bounded.excerpted ? bounded.message : copyMessage(original, "human"), "human", counts);
      const tokens = estimator.estimateMessage(copy);
      opening = { start: startOf(openingPos), originals: [original], messages: [copy], excerpted: [bounded.excerpted], tokens, calls: false, imagesReplaced: counts.imagesReplaced };
    }
  }

  let inCurrent = 0;
  let unpinnable = 0;
  let openingAlsoPinned = false;
  const pins: PinnedItem[] = [];
  if (input.pinnedBudget > 0) {
    const seen = new Set<number>();
    for (const pos of pinnedPositions(prior, messages, lead, input.pin, indexOf, input.trustPinField !== false)) {
      if (pos >= currentPos) {
        inCurrent++;
        continue;
      }
      const item = pinnedExchange(pos, kind, at, indexOf, total, estimator, input);
      if (item === null) unpinnable++;
      else if (item.from === openingPos) openingAlsoPinned = true;
      else if (!seen.has(item.from)) {
        seen.add(item.from);
        pins.push({ ...item.item, start: startOf(item.from) });
      }
    }
  }
  const bounded = boundToBudget(pins, input.pinnedBudget, estimator);
  const candidates = { opening, openingNoRoom: false, openingAlsoPinned, pins: bounded.pins, inCurrent, dropped: bounded.dropped, unpinnable, currentStart };
  return { ...candidates, reserve: reserveOf(candidates, estimator) };
}

/**
 * Positions (prior messages first, then `messages` after the leading system ones)
 * of the pinned messages, in order: those carrying the pin field (unless it is not
 * trusted), and with a `pin` predicate those it chooses (which reads every message).
 */
function pinnedPositions(
  prior: readonly MessageInput[],
  messages: readonly MessageInput[],
  lead: number,
  pin: PinPredicate | undefined,
  indexOf: (pos: number) => number,
  trustField: boolean,
): number[] {
  const p = prior.length;
  const positions = trustField ? [...markedIndices(prior)] : [];
  if (trustField) for (const index of markedIndices(messages)) if (index >= lead) positions.push(p + index - lead);
  if (pin === undefined) return positions;
  const marked = new Set(positions);
  const total = p + messages.length - lead;
  for (let pos = 0; pos < total; pos++) {
    if (marked.has(pos)) continue;
    const value = (pos < p ? prior[pos] : messages[lead + pos - p]) as MessageInput;
    if (pin(toBaseMessage(value, indexOf(pos)), lead + pos)) marked.add(pos);
  }
  return [...marked].sort((a, b) => a - b);
}

/** The whole exchange of a pinned message at `pos`, or null when it cannot be shown. */
function pinnedExchange(
  pos: number,
  kind: (pos: number) => MessageKind,
  at: (pos: number) => MessageInput,
  indexOf: (pos: number) => number,
  total: number,
  estimator: Estimator,
  images: PinnedImageChoice,
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
  const counts: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  const copies = originals.map((m) => pinnedCopy(images, copyMessage(m, m.type as MessageKind), m.type as MessageKind, counts));
  return {
    from,
    item: { originals, messages: copies, excerpted: copies.map(() => false), tokens: estimator.estimateMessages(copies), calls: exchange.kind === "tools", imagesReplaced: counts.imagesReplaced },
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
    let imagesReplaced = item.imagesReplaced;
    const messages = item.messages.map((m, j) => {
      const max = Math.max(MIN_PINNED_EXCERPT_TOKENS, Math.floor(((texts[j] as number) * keep) / textTotal));
      const bounded = boundPinnedText(m, m.type as MessageKind, max, estimator);
      if (bounded.excerpted) excerpted[j] = true;
      imagesReplaced += bounded.imagesOmitted;
      return bounded.message;
    });
    const tokens = estimator.estimateMessages(messages);
    total += tokens - item.tokens;
    out[i] = { ...item, messages, excerpted, tokens, imagesReplaced };
  }
  let dropped = 0;
  while (total > budget && out.length > 0) {
    const oldest = out.shift() as PinnedItem;
    total -= oldest.tokens;
    dropped += oldest.messages.length;
  }
  return { pins: out, dropped };
}

/** Estimated tokens of the pinned block with every candidate shown, labels included (an upper bound). */
export function reserveOf(c: Omit<PinnedCandidates, "reserve">, estimator: Estimator): number {
  let reserve = 0;
  if (c.opening !== null && !c.openingNoRoom && c.opening.start < c.currentStart) reserve += estimator.estimateMessage(labelMessage(OPENING_REQUEST_LABEL)) + c.opening.tokens;
  if (c.pins.length > 0) {
    const continuation = estimator.estimateMessage(labelMessage(CONTINUATION_LABEL));
    reserve += estimator.estimateMessage(labelMessage(PINNED_LABEL));
    // A pin that opens with an assistant message may follow another one: a continuation label before it.
    for (const pin of c.pins) reserve += pin.tokens + (pin.calls || pin.messages[0]?.type === "ai" ? continuation : 0);
  }
  return reserve;
}
