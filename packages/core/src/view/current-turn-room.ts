import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { compactOrNarrow } from "../compact/compact-tool-result.js";
import { textTokensAtLeast, type Estimator } from "../estimate.js";
import { copyMessage } from "../messages.js";
import { splitContent } from "../compact/compact-tool-result.js";
import { minMessageTokens, withMessages, type PreparedTurn } from "./prepare-turn.js";

/** What fitting the current turn's results did. */
export interface CurrentTurnFit {
  turn: PreparedTurn;
  /** Results compacted (projected rows, references or identifiers of the rest). */
  compacted: number;
  /** Results too large even for identifiers: shown as their totals, with a notice to narrow the query. */
  narrowed: number;
}

/** How much more a result of the turn's newest exchange is worth than an older one's: the next call is decided from it. */
export const NEWEST_RESULT_WEIGHT = 32;

/**
 * Room for results of `sizes` tokens, filled level by level: each result gets
 * `min(size, weight × level)`, with the highest level whose total fits `room`. A
 * result smaller than its share is kept whole and leaves the rest to the others, so a
 * small result beside a large one is never cut to a sliver, and a result of weight at
 * least another's never gets less room unless it is whole. Each share is at least 1.
 *
 * @example
 * ```ts
 * waterFill([6000, 600, 400], [1, 1, 1], 3500); // [2500, 600, 400]
 * waterFill([6000, 6000], [1, 2], 3000); // [1000, 2000]
 * ```
 */
export function waterFill(sizes: readonly number[], weights: readonly number[], room: number): number[] {
  const shares = sizes.map(() => 1);
  const order = sizes.map((_, k) => k).sort((a, b) => sizes[a]! / weights[a]! - sizes[b]! / weights[b]! || a - b);
  let left = Math.max(0, room);
  let weight = order.reduce((sum, k) => sum + weights[k]!, 0);
  for (const k of order) {
    const fair = (left * weights[k]!) / weight;
    shares[k] = Math.max(1, Math.floor(Math.min(sizes[k]!, fair)));
    left -= Math.min(sizes[k]!, fair);
    weight -= weights[k]!;
  }
  return shares;
}

/**
 * Room for the current turn: its tool results share all the room left after the
 * fixed part, the request and the calls (`room` is the limit less the fixed part),
 * filled level by level ({@link waterFill}), a result of the newest exchange
 * weighing {@link NEWEST_RESULT_WEIGHT} times an older one — so small results stay
 * whole and the newest results never get less room than older ones. A result whose
 * share is below what it needs first takes the room others left unused, the newest
 * exchange's first. Results are never cleared: the smallest form is their totals with a
 * notice to narrow the query (see {@link compactOrNarrow}).
 *
 * @example
 * ```ts
 * const { turn, compacted, narrowed } = fitCurrentTurn(current, limit - fixed.tokens, estimator);
 * ```
 */
export function fitCurrentTurn(turn: PreparedTurn, room: number, estimator: Estimator, recallToolName?: string): CurrentTurnFit {
  // Shares are of text estimates; a scaled or custom estimator may round the whole
  // messages a few tokens higher, so an overshoot is taken off the room and fitted again.
  let fitted = fitOnce(turn, room, estimator, recallToolName);
  for (let attempt = 0; attempt < 3 && fitted.turn.tokens > room; attempt++) {
    fitted = fitOnce(turn, room - (fitted.turn.tokens - room) * (attempt + 1), estimator, recallToolName);
  }
  return fitted;
}

/**
 * What the turn needs at least however its results are fitted: every message but
 * the results' text. A turn whose floor is over its room cannot fit by compacting
 * its results, so {@link fitCurrentTurn} is not even tried. A result whose text is
 * surely over `room` is not read (see {@link resultSize}).
 *
 * @example
 * ```ts
 * if (currentTurnFloor(current, estimator, room) > room) { ... } // only dropping exchanges helps
 * ```
 */
export function currentTurnFloor(turn: PreparedTurn, estimator: Estimator, room = Number.POSITIVE_INFINITY): number {
  let floor = 0;
  for (const message of turn.messages) {
    floor += ToolMessage.isInstance(message) ? resultSize(message, estimator, room).framing : estimator.estimateMessage(message);
  }
  return floor;
}

/**
 * A result's text tokens and its framing (the rest of its message's tokens). A text whose
 * least tokens (see `textTokensAtLeast`) are already over `room` is never read: its least
 * stands for it, and its framing is its message's without the text. Its share is then the
 * same as with its estimate, for it is over any share of the room; only the order in which
 * two such results take what the others leave (the larger first) goes by their least.
 */
function resultSize(message: ToolMessage, estimator: Estimator, room: number): { text: number; framing: number } {
  const content = message.content;
  if (typeof content === "string") {
    const least = textTokensAtLeast(estimator, content);
    if (least > room) return { text: least, framing: estimator.estimateMessage(copyMessage(message, "tool", { content: "" })) };
  }
  const text = estimator.estimateText(splitContent(content).text);
  return { text, framing: Math.max(0, estimator.estimateMessage(message) - text) };
}

/**
 * Whether the turn's results alone are surely over `room` by the least tokens of their texts
 * (see `textTokensAtLeast`): reads their lengths only, so a turn with a result of megabytes
 * is known to be over before it is estimated. False for an estimator whose count is not known.
 *
 * @example
 * ```ts
 * if (resultsSurelyOver(current, room, estimator)) { ... } // compacted, never estimated whole
 * ```
 */
export function resultsSurelyOver(turn: PreparedTurn, room: number, estimator: Estimator): boolean {
  let least = 0;
  for (const message of turn.messages) {
    if (ToolMessage.isInstance(message) && typeof message.content === "string") least += textTokensAtLeast(estimator, message.content);
    if (least > room) return true;
  }
  return false;
}

/**
 * Whether a bound below {@link currentTurnFloor} is already over `room`: every message but
 * the results, each result counted as what any message costs at least (see
 * {@link minMessageTokens}). Read from the newest message back, and only until it is over:
 * no result's text is read, so a long turn costs what fits the room, not what it holds.
 *
 * @example
 * ```ts
 * if (currentTurnOver(current, room, estimator)) { ... } // its floor is over too: only dropping exchanges helps
 * ```
 */
export function currentTurnOver(turn: PreparedTurn, room: number, estimator: Estimator): boolean {
  const result = minMessageTokens(estimator);
  let floor = 0;
  for (let i = turn.messages.length - 1; i >= 0; i--) {
    const message = turn.messages[i] as BaseMessage;
    floor += ToolMessage.isInstance(message) ? result : estimator.estimateMessage(message);
    if (floor > room) return true;
  }
  return false;
}

/**
 * Whether the turn, whole, is over `room`: bounds below its floor and below its results
 * first (see {@link currentTurnOver}, {@link resultsSurelyOver}), then its estimate, so a
 * turn over by either bound is never estimated whole.
 *
 * @example
 * ```ts
 * if (!wholeOver(current, room - reserve, estimator)) return pinned; // the pins fit beside the whole turn
 * ```
 */
export function wholeOver(turn: PreparedTurn, room: number, estimator: Estimator): boolean {
  return currentTurnOver(turn, room, estimator) || resultsSurelyOver(turn, room, estimator) || turn.tokens > room;
}

/**
 * The turn with every result at its smallest form (its totals or the notice to narrow
 * the query; a result no larger than that kept whole): the least {@link fitCurrentTurn}
 * can give it, in one pass.
 *
 * @example
 * ```ts
 * const least = smallestFit(turn, estimator).turn.tokens;
 * ```
 */
export function smallestFit(turn: PreparedTurn, estimator: Estimator, recallToolName?: string): CurrentTurnFit {
  return fitOnce(turn, 0, estimator, recallToolName);
}

/** Results up to this size are checked against their narrowing notice (see {@link fitOnce}). */
const SMALL_RESULT_TOKENS = 256;

/** Tokens of a result's smallest form: its totals or the notice to narrow the query. */
function narrowedTokens(message: ToolMessage, estimator: Estimator): number {
  return estimator.estimateText(splitContent(compactOrNarrow(message, 1, { estimator }).message.content).text);
}

function fitOnce(turn: PreparedTurn, room: number, estimator: Estimator, recallToolName: string | undefined): CurrentTurnFit {
  const positions: number[] = [];
  const sizes: number[] = [];
  let other = 0;
  let framing = 0;
  // A text surely over the whole room is over any share of it, and is never kept whole: it is not read (see resultSize).
  const unread = Math.max(room, SMALL_RESULT_TOKENS);
  turn.messages.forEach((message, index) => {
    if (!ToolMessage.isInstance(message)) {
      other += estimator.estimateMessage(message);
      return;
    }
    const size = resultSize(message, estimator, unread);
    positions.push(index);
    sizes.push(size.text);
    framing += size.framing;
  });
  const avail = room - other - framing;
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (positions.length === 0 || total <= avail) return { turn, compacted: 0, narrowed: 0 };

  // A result no larger than its own narrowing notice is kept whole: narrowing it saves
  // nothing and would make the model call the tool again. The others share the rest.
  const whole = positions.map((position, k) => sizes[k]! <= SMALL_RESULT_TOKENS && sizes[k]! <= narrowedTokens(turn.messages[position] as ToolMessage, estimator));
  const reserved = sizes.reduce((sum, size, k) => sum + (whole[k] ? size : 0), 0);
  const sharing = positions.map((_, k) => k).filter((k) => !whole[k]);
  const newestAt = lastAiIndex(turn.messages);
  const weightOf = (k: number) => (positions[k]! > newestAt ? NEWEST_RESULT_WEIGHT : 1);
  const sharedSizes = waterFill(sharing.map((k) => sizes[k]!), sharing.map(weightOf), avail - reserved);
  const shares: number[] = sizes.slice();
  sharing.forEach((k, i) => (shares[k] = sharedSizes[i]!));
  const messages: BaseMessage[] = [...turn.messages];
  const used: number[] = [];
  const outcomes: string[] = [];
  const fit = (k: number, limit: number) => {
    const result = compactOrNarrow(turn.messages[positions[k]!] as ToolMessage, limit, { estimator, recallToolName });
    messages[positions[k]!] = result.message;
    used[k] = estimator.estimateText(splitContent(result.message.content).text);
    outcomes[k] = result.outcome;
  };
  positions.forEach((_, k) => fit(k, shares[k]!));
  // A result that could only be narrowed at its share may use what the others left: the newest exchange's first, then biggest first.
  let slack = avail - used.reduce((sum, size) => sum + size, 0);
  const order = positions.map((_, k) => k).sort((a, b) => weightOf(b) - weightOf(a) || sizes[b]! - sizes[a]!);
  for (const k of order) {
    if (outcomes[k] !== "narrowed" || slack <= 0) continue;
    const before = used[k]!;
    fit(k, before + slack);
    slack -= used[k]! - before;
  }
  const changed = withMessages(turn, messages, estimator.estimateMessages(messages));
  return { turn: changed, compacted: outcomes.filter((o) => o === "compacted").length, narrowed: outcomes.filter((o) => o === "narrowed").length };
}

/** Index of the turn's last assistant message: the results after it are the newest exchange's. */
function lastAiIndex(messages: readonly BaseMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.type === "ai") return i;
  return -1;
}
