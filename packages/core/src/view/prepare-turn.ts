import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { copyMessage, textOf, type MessageKind } from "../messages.js";
import { addCounts, groupExchanges, type SegmentCounts } from "./exchanges.js";
import type { TurnWalk } from "./find-turns.js";
import { withoutImages } from "./images.js";
import { boundOlderMessage, type OlderCounts } from "./older.js";
import { orderTurn } from "./order.js";
import { withoutReasoning } from "../provider-content.js";

/** A turn ready for the view: its messages (copies), their estimate, its exchanges. */
export interface PreparedTurn {
  messages: BaseMessage[];
  exchanges: number;
  /** Input messages represented (labels excluded). */
  inputMessages: number;
  toolResults: number;
  tokens: number;
  /** Stable key of the turn, for the cut anchors. */
  key: string;
}

/** What preparing turns left out or changed, summed over every turn prepared. */
export interface PrepareTally {
  segments: SegmentCounts;
  older: OlderCounts;
  /** User-role labels inserted for provider ordering rules. */
  labels: number;
  /** Reasoning blocks and items cleared from older turns (see `withoutReasoning`). */
  reasoningCleared: number;
}

/** A tally with every count at zero. */
export function emptyPrepareTally(): PrepareTally {
  return {
    segments: { orphanResults: 0, unfinishedCalls: 0, unfinishedExchanges: 0, misplacedSystem: 0 },
    older: { excerpted: 0, imagesReplaced: 0 },
    labels: 0,
    reasoningCleared: 0,
  };
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
  tally: PrepareTally;
  /** False when the model takes no image input: every image becomes a placeholder. */
  imageInputs: boolean;
  /** Where a turn opens right after tool results (the provider head's, see `providerHead`): it may open with the assistant's next step. */
  afterResultsAt?: number | undefined;
}

/**
 * Prepare the turn `[from, to)` for the view: group it into exchanges (dropping
 * orphan results and unfinished calls), copy its messages — an older turn's reasoning
 * cleared, its long text bounded and its images replaced — and insert the labels provider ordering
 * rules need. The current turn (`isCurrent`) is copied whole. Counts go to `ctx.tally`.
 *
 * @example
 * ```ts
 * const current = prepareTurn(ctx, walk.currentStart, walk.n, true);
 * ```
 */
export function prepareTurn(ctx: PrepareContext, from: number, to: number, isCurrent: boolean): PreparedTurn {
  const { walk, estimator, limits, tally } = ctx;
  for (let i = from; i < to; i++) walk.kind(i);
  const grouped = groupExchanges(walk.source, walk.kinds, from, to);
  addCounts(tally.segments, grouped);
  const messages: BaseMessage[] = [];
  let toolResults = 0;
  for (const exchange of grouped.exchanges) {
    for (const message of exchange.messages) {
      const role = message.type as MessageKind;
      if (role === "tool") toolResults++;
      // Older turns' reasoning is neither sent nor charged; the current turn's goes back unmodified.
      const older = isCurrent ? undefined : withoutReasoning(message, role);
      if (older !== undefined) tally.reasoningCleared += older.cleared;
      const bounded = older === undefined ? copyMessage(message, role) : boundOlderMessage(older.message, role, limits, estimator, tally.older);
      messages.push(ctx.imageInputs ? bounded : withoutImages(bounded, role, tally.older));
    }
  }
  const inputMessages = messages.length;
  tally.labels += orderTurn(messages, from === ctx.afterResultsAt && grouped.exchanges[0]?.start === from);
  const first = grouped.exchanges[0]?.messages[0];
  return {
    messages,
    exchanges: grouped.exchanges.length,
    inputMessages,
    toolResults,
    tokens: estimator.estimateMessages(messages),
    key: first ? (first.id ?? `${from}:${textOf(first.content).slice(0, 64)}`) : String(from),
  };
}
