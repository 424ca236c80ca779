import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { copyMessage, textOf, type MessageKind } from "../messages.js";
import { groupExchanges, segmentCounts } from "./exchanges.js";
import type { TurnWalk } from "./find-turns.js";
import { withoutImages } from "./images.js";
import { boundOlderMessage, type OlderCounts } from "./older.js";
import { orderTurn } from "./order.js";
import { withoutReasoning } from "../provider-content.js";
import type { TurnCounts } from "./turn-counts.js";

/** A turn ready for the view: its messages (copies), their estimate, its exchanges. */
export interface PreparedTurn {
  messages: BaseMessage[];
  exchanges: number;
  /** Input messages represented (labels excluded). */
  inputMessages: number;
  toolResults: number;
  /** The estimate of `messages`; the current turn's is made when first read (see {@link prepareTurn}). */
  tokens: number;
  /** Stable key of the turn, for the cut anchors. */
  key: string;
  /** What preparing the turn left out of it and changed in it; every form of the turn carries the same. */
  counts: TurnCounts;
}

/**
 * What any message costs at least: an empty user message. Bounding and compaction
 * only shorten messages, so a turn's kept messages times this is a lower bound of it.
 */
const floors = new WeakMap<Estimator, number>();
export function minMessageTokens(estimator: Estimator): number {
  let floor = floors.get(estimator);
  if (floor === undefined) {
    floor = estimator.estimateMessage(new HumanMessage(""));
    floors.set(estimator, floor);
  }
  return floor;
}

/** What {@link prepareTurn} needs besides the turn's bounds. */
export interface PrepareContext {
  walk: TurnWalk;
  estimator: Estimator;
  /** Bounds of older messages: text and the prose of tool-calling AI messages. */
  limits: { maxTextTokens: number; maxProseTokens: number };
  /** False when the model takes no image input: every image becomes a placeholder. */
  imageInputs: boolean;
  /** Where a turn opens right after tool results (the provider head's, see `providerHead`): it may open with the assistant's next step. */
  afterResultsAt?: number | undefined;
}

/**
 * Prepare the turn `[from, to)` for the view: group it into exchanges (dropping
 * orphan results and unfinished calls), copy its messages — an older turn's reasoning
 * cleared, its long text bounded and its images replaced — and insert the labels provider ordering
 * rules need. The current turn (`isCurrent`) is copied whole. What it left out and changed
 * is in the turn's `counts`.
 *
 * @example
 * ```ts
 * const current = prepareTurn(ctx, walk.currentStart, walk.n, true);
 * ```
 */
export function prepareTurn(ctx: PrepareContext, from: number, to: number, isCurrent: boolean): PreparedTurn {
  const { walk, estimator, limits } = ctx;
  for (let i = from; i < to; i++) walk.kind(i);
  const grouped = groupExchanges(walk.source, walk.kinds, from, to);
  const bounded: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  let reasoningCleared = 0;
  const messages: BaseMessage[] = [];
  let toolResults = 0;
  for (const exchange of grouped.exchanges) {
    for (const message of exchange.messages) {
      const role = message.type as MessageKind;
      if (role === "tool") toolResults++;
      // Older turns' reasoning is neither sent nor charged; the current turn's goes back unmodified.
      const older = isCurrent ? undefined : withoutReasoning(message, role);
      if (older !== undefined) reasoningCleared += older.cleared;
      const copy = older === undefined ? copyMessage(message, role) : boundOlderMessage(older.message, role, limits, estimator, bounded);
      messages.push(ctx.imageInputs ? copy : withoutImages(copy, role, bounded));
    }
  }
  const inputMessages = messages.length;
  const labels = orderTurn(messages, from === ctx.afterResultsAt && grouped.exchanges[0]?.start === from);
  const first = grouped.exchanges[0]?.messages[0];
  const segments = segmentCounts(grouped);
  const exchanges = grouped.exchanges.length;
  const key = first ? (first.id ?? `${from}:${textOf(first.content).slice(0, 64)}`) : String(from);
  const counts = { segments, excerpted: bounded.excerpted, imagesReplaced: bounded.imagesReplaced, labels, reasoningCleared };
  if (!isCurrent) return { messages, exchanges, inputMessages, toolResults, tokens: estimator.estimateMessages(messages), key, counts };
  // The current turn is estimated when its tokens are first read: a long turn whose floor is over
  // its room shows only its newest exchanges (see chooseCurrentTurn), and is never estimated whole.
  let tokens: number | undefined;
  return {
    messages,
    exchanges,
    inputMessages,
    toolResults,
    get tokens() {
      return (tokens ??= estimator.estimateMessages(messages));
    },
    key,
    counts,
  };
}

/**
 * `turn` showing `messages` (`tokens` of them) instead of its own, its other fields kept:
 * how every other form of a turn is made (compacted, cleared, fitted, long), each with the
 * fields in one order. Never reads `turn.tokens`: the current turn's is estimated only when
 * read (see {@link prepareTurn}).
 *
 * @example
 * ```ts
 * const mandatory = withMessages(current, [...head, ...newest], estimator.estimateMessages([...head, ...newest]));
 * ```
 */
export function withMessages(turn: PreparedTurn, messages: BaseMessage[], tokens: number): PreparedTurn {
  const { exchanges, inputMessages, toolResults, key, counts } = turn;
  return { messages, exchanges, inputMessages, toolResults, tokens, key, counts };
}
