import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { compactOrNarrow } from "../compact/compact-tool-result.js";
import type { Estimator } from "../estimate.js";
import { splitContent } from "../compact/compact-tool-result.js";
import type { PreparedTurn } from "./prepare-turn.js";

/** What fitting the current turn's results did. */
export interface CurrentTurnFit {
  turn: PreparedTurn;
  /** Results compacted (projected rows, references or identifiers of the rest). */
  compacted: number;
  /** Results too large even for identifiers: shown as their totals, with a notice to narrow the query. */
  narrowed: number;
}

/**
 * Shares of `room` for results of `sizes` tokens, in proportion to their size, so
 * one big search beside two small results gets most of it. Shares add up to at
 * most `room`; each is at least 1.
 *
 * @example
 * ```ts
 * proportionalShares([6000, 600, 400], 3500); // [3000, 300, 200]
 * ```
 */
export function proportionalShares(sizes: readonly number[], room: number): number[] {
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (total <= 0) return sizes.map(() => Math.max(1, room));
  return sizes.map((size) => Math.max(1, Math.floor((Math.max(0, room) * size) / total)));
}

/**
 * Room for the current turn: its tool results share all the room left after the
 * fixed part, the request and the calls (`room` is the limit less the fixed part),
 * in proportion to their size — not evenly, not by a fixed per-result cap. A
 * result whose share is below what it needs first takes the room others left
 * unused. Results are never cleared: the smallest form is their totals with a
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
 * its results, so {@link fitCurrentTurn} is not even tried.
 *
 * @example
 * ```ts
 * if (currentTurnFloor(current, estimator) > room) { ... } // only dropping exchanges helps
 * ```
 */
export function currentTurnFloor(turn: PreparedTurn, estimator: Estimator): number {
  let floor = 0;
  for (const message of turn.messages) {
    const tokens = estimator.estimateMessage(message);
    floor += ToolMessage.isInstance(message) ? Math.max(0, tokens - estimator.estimateText(splitContent(message.content).text)) : tokens;
  }
  return floor;
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
  turn.messages.forEach((message, index) => {
    if (!ToolMessage.isInstance(message)) {
      other += estimator.estimateMessage(message);
      return;
    }
    const text = estimator.estimateText(splitContent(message.content).text);
    positions.push(index);
    sizes.push(text);
    framing += Math.max(0, estimator.estimateMessage(message) - text);
  });
  const avail = room - other - framing;
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (positions.length === 0 || total <= avail) return { turn, compacted: 0, narrowed: 0 };

  // A result no larger than its own narrowing notice is kept whole: narrowing it saves
  // nothing and would make the model call the tool again. The others share the rest.
  const whole = positions.map((position, k) => sizes[k]! <= SMALL_RESULT_TOKENS && sizes[k]! <= narrowedTokens(turn.messages[position] as ToolMessage, estimator));
  const reserved = sizes.reduce((sum, size, k) => sum + (whole[k] ? size : 0), 0);
  const sharing = positions.map((_, k) => k).filter((k) => !whole[k]);
  const sharedSizes = proportionalShares(sharing.map((k) => sizes[k]!), avail - reserved);
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
  // A result that could only be narrowed at its share may use what the others left, biggest first.
  let slack = avail - used.reduce((sum, size) => sum + size, 0);
  const order = positions.map((_, k) => k).sort((a, b) => sizes[b]! - sizes[a]!);
  for (const k of order) {
    if (outcomes[k] !== "narrowed" || slack <= 0) continue;
    const before = used[k]!;
    fit(k, before + slack);
    slack -= used[k]! - before;
  }
  const changed = { ...turn, messages, tokens: estimator.estimateMessages(messages) };
  return { turn: changed, compacted: outcomes.filter((o) => o === "compacted").length, narrowed: outcomes.filter((o) => o === "narrowed").length };
}
