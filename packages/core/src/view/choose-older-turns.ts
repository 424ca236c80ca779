import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import type { TurnWalk } from "./find-turns.js";
import { dropTurnExcerpts, HISTORY_LABEL, labelMessage } from "./head.js";
import type { OlderFit, OlderTurns } from "./older-turns.js";
import { chooseKept } from "./select.js";
import type { ViewOptions } from "./types.js";

/** What {@link chooseOlderTurns} needs. */
export interface ChooseOlderInput {
  walk: TurnWalk;
  older: OlderTurns;
  /** Older turns that fit before compaction (reused when nothing was compacted). */
  fit: OlderFit;
  /** Room for history: the limit less the fixed part and the current turn. */
  room: number;
  /** The summary head (label and summary), empty when no summary was given. */
  summaryHead: BaseMessage[];
  options: Pick<Required<ViewOptions>, "excerptBudget" | "dropStep">;
  estimator: Estimator;
}

/** The older part of the view. */
export interface ChosenOlderTurns {
  /** How many of the newest older turns are kept. */
  kept: number;
  /** Messages before the kept turns: the summary, or excerpts of dropped turns, with their label. */
  head: BaseMessage[];
  headTokens: number;
  summaryIncluded: boolean;
  /** Excerpt lines of dropped turns in `head`. */
  excerptCount: number;
}

/**
 * Choose older turns: stage 5 of {@link buildContext}. The summary goes first when
 * it fits beside the current turn; then the newest whole turns that fit the room
 * left, the oldest kept one on a stable anchor (see {@link chooseKept}). When older
 * turns must go and no summary is shown, room is kept for excerpts of them.
 *
 * @example
 * ```ts
 * const chosen = chooseOlderTurns({ walk, older, fit, room: limit - fixed.tokens - current.tokens, summaryHead, options, estimator });
 * ```
 */
export function chooseOlderTurns(input: ChooseOlderInput): ChosenOlderTurns {
  const { walk, older, options, estimator } = input;
  let head = input.summaryHead;
  let headTokens = estimator.estimateMessages(head);
  const summaryIncluded = head.length > 0 && headTokens <= input.room;
  if (!summaryIncluded) {
    head = [];
    headTokens = 0;
  }
  const avail = input.room - headTokens;
  const fit = older.compacting ? older.fitting(avail) : input.fit;
  if (fit.all) return { kept: fit.fit, head, headTokens, summaryIncluded, excerptCount: 0 };

  // Older turns must go. Without a summary, keep room for excerpts of them.
  const labelTokens = estimator.estimateMessage(labelMessage(HISTORY_LABEL));
  const reserve = summaryIncluded || options.excerptBudget === 0 ? 0 : Math.min(options.excerptBudget + labelTokens, avail);
  const room = avail - reserve;
  const kept = chooseKept(older.prepared, reserve > 0 ? older.fitting(room).fit : fit.fit, room, options.dropStep);
  let excerptCount = 0;
  if (reserve > 0) {
    const dropped = (k: number) => {
      const start = walk.olderTurnStart(kept + k);
      return start === undefined ? undefined : { start, end: walk.olderTurnEnd(kept + k) };
    };
    const excerpts = dropTurnExcerpts(walk.source, (i) => walk.kind(i), dropped, reserve - labelTokens, estimator);
    if (excerpts.message) {
      head = [labelMessage(HISTORY_LABEL), excerpts.message];
      headTokens = estimator.estimateMessages(head);
      excerptCount = excerpts.count;
    }
  }
  return { kept, head, headTokens, summaryIncluded, excerptCount };
}
