import type { BaseMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import type { Estimator } from "../estimate.js";
import type { TurnWalk } from "./find-turns.js";
import { dropTurnExcerpts, HISTORY_LABEL, labelMessage } from "./head.js";
import type { OlderFit, OlderTurns } from "./older-turns.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { chooseKept } from "./select.js";
import { derivedTurn } from "./tool-result-compactor.js";
import type { ViewOptions } from "./types.js";
import type { NoteOptions } from "./options.js";

/** What {@link chooseOlderTurns} needs. */
export interface ChooseOlderInput {
  walk: TurnWalk;
  older: OlderTurns;
  /** Older turns that fit `room` before compaction (reused when nothing was compacted); measured again when absent. */
  fit?: OlderFit;
  /** Room for history: the limit less the fixed part and the current turn. */
  room: number;
  /** The summary head (label and summary), empty when no summary was given. */
  summaryHead: BaseMessage[];
  options: Pick<Required<ViewOptions>, "excerptBudget" | "dropStep"> & Partial<Pick<Required<ViewOptions>, "maxToolResultTokens">> & NoteOptions;
  /** Messages of the thread before `walk.source`'s (a summarized prefix), for the indices recall reads by. @default 0 */
  shift?: number;
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
  /**
   * The oldest kept turn as shown, when it is kept with its tool results cleared
   * (whole, it would not have fit the room the newer turns leave); absent otherwise.
   */
  oldestCleared?: PreparedTurn;
  /** Tool results cleared in {@link oldestCleared}. */
  clearedInOldest: number;
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
  const summaryTokens = input.summaryHead.length > 0 ? estimator.estimateMessages(input.summaryHead) : 0;
  const count = countKept(older, input.room, summaryTokens, options, estimator, input.fit);
  const { summaryIncluded } = count;
  // The first turn that does not fit whole may still fit with its results cleared to their
  // markers (ids and pairing kept): kept so, it stays in the view instead of going whole
  // (with dropStep 0; see clearedNextTurn).
  const cleared = count.all ? undefined : clearedNextTurn(older, count, input.room, options, estimator);
  const kept = count.kept + (cleared === undefined ? 0 : 1);
  let head = summaryIncluded ? input.summaryHead : [];
  let headTokens = count.headTokens;
  let excerptCount = 0;
  if (count.reserve > 0) {
    const dropped = (k: number) => {
      const start = walk.olderTurnStart(kept + k);
      return start === undefined ? undefined : { start, end: walk.olderTurnEnd(kept + k) };
    };
    const labelTokens = estimator.estimateMessage(labelMessage(HISTORY_LABEL));
    const recall = options.recallToolName === undefined ? undefined : { toolName: options.recallToolName, shift: input.shift ?? 0 };
    const excerpts = dropTurnExcerpts(walk.source, (i) => walk.kind(i), dropped, count.reserve - labelTokens, estimator, recall);
    if (excerpts.message) {
      head = [labelMessage(HISTORY_LABEL), excerpts.message];
      headTokens = estimator.estimateMessages(head);
      excerptCount = excerpts.count;
    }
  }
  return { kept, head, headTokens, summaryIncluded, excerptCount, clearedInOldest: cleared?.results ?? 0, ...(cleared === undefined ? {} : { oldestCleared: cleared.turn }) };
}

/**
 * With `dropStep` 0, the turn right before the kept ones with every tool result cleared
 * (ids and pairing kept), when it does not fit the room the kept turns leave whole but
 * fits it so; undefined otherwise. With steps (the default), the room the kept turns
 * leave belongs to the prompt cache (see {@link chooseKept}): a cleared turn there would
 * come and go between anchors and move the head of the view each time (measured:
 * about 10 points of cached share on the finance and pinned fixtures).
 */
function clearedNextTurn(older: OlderTurns, count: KeptCount, room: number, options: ChooseOlderInput["options"], estimator: Estimator): { turn: PreparedTurn; results: number } | undefined {
  if (options.dropStep !== 0) return undefined;
  const next = older.prepared[count.kept];
  if (next === undefined || next.toolResults === 0 || options.maxToolResultTokens === undefined) return undefined;
  let left = room - count.headTokens - count.reserve;
  for (let j = 0; j < count.kept; j++) left -= (older.prepared[j] as PreparedTurn).tokens;
  if (next.tokens <= left) return undefined;
  const result = microCompact(next.messages, { keepRecentToolResults: 0, maxToolResultTokens: options.maxToolResultTokens, estimator, recallToolName: options.recallToolName });
  if (result.cleared === 0) return undefined;
  const tokens = estimator.estimateMessages(result.messages);
  if (tokens > left) return undefined;
  return { turn: derivedTurn(next, { ...next, messages: result.messages, tokens }), results: result.cleared };
}

/** How many older turns {@link chooseOlderTurns} keeps, and the room it sets aside. */
export interface KeptCount {
  /** Newest older turns kept. */
  kept: number;
  /** Every older turn is kept. */
  all: boolean;
  summaryIncluded: boolean;
  /** Tokens of the summary head when it is included, else 0. */
  headTokens: number;
  /** Room kept for excerpts of dropped turns (with their label); 0 when none go or a summary is shown. */
  reserve: number;
}

/**
 * The count of {@link chooseOlderTurns} without building the head: the summary when
 * it fits `room`, then the newest whole turns on a stable anchor, beside room for
 * excerpts when turns must go and no summary is shown. `fit` (older turns that fit
 * before compaction) is used only while nothing is compacted.
 *
 * @example
 * ```ts
 * const { kept } = countKept(older, limit - fixed.tokens - current.tokens, summaryTokens, options, estimator);
 * ```
 */
export function countKept(older: OlderTurns, room: number, summaryTokens: number, options: ChooseOlderInput["options"], estimator: Estimator, fit?: OlderFit): KeptCount {
  const summaryIncluded = summaryTokens > 0 && summaryTokens <= room;
  const headTokens = summaryIncluded ? summaryTokens : 0;
  const avail = room - headTokens;
  const fitted = older.compacting || fit === undefined ? older.fitting(avail) : fit;
  if (fitted.all) return { kept: fitted.fit, all: true, summaryIncluded, headTokens, reserve: 0 };
  // Older turns must go. Without a summary, keep room for excerpts of them.
  const labelTokens = estimator.estimateMessage(labelMessage(HISTORY_LABEL));
  const reserve = summaryIncluded || options.excerptBudget === 0 ? 0 : Math.min(options.excerptBudget + labelTokens, avail);
  const left = avail - reserve;
  return { kept: chooseKept(older.prepared, reserve > 0 ? older.fitting(left).fit : fitted.fit, left, options.dropStep), all: false, summaryIncluded, headTokens, reserve };
}
