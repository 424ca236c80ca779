// The forms of a long current turn's older exchanges (whole, compacted, compacted small,
// cleared), the fullest that fit newest first, and the anchor that holds the oldest one
// shown from call to call (see fitLongTurn).
import type { BaseMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import type { Estimator } from "../estimate.js";
import { textOf, type MessageKind } from "../messages.js";
import { boundOlderMessage, type OlderCounts } from "./older.js";
import { chooseKept, type CutCandidate } from "./select.js";
import type { CurrentTurnReport, TurnSummary } from "./types.js";
import type { PreparedTurn } from "./prepare-turn.js";

/** A kept result of an older exchange of the current turn is compacted to this size before its exchange is cleared. */
const SMALL_RESULT_TOKENS = 256;

/** What {@link fitLongTurn} needs. */
export interface LongTurnInput {
  /** The prepared current turn, results whole. */
  current: PreparedTurn;
  /** Room for the current turn: the limit less the fixed part. */
  room: number;
  options: {
    maxToolResultTokens: number;
    excerptBudget: number;
    maxOlderMessageTokens: number;
    maxToolCallProseTokens: number;
    recallToolName?: string | undefined;
    /** The oldest exchange shown is a stable anchor in steps of this share of the room (see {@link chooseKept}); 0 or absent: exactly what fits. */
    dropStep?: number | undefined;
  };
  estimator: Estimator;
  /** The manager's summary of the turn's first exchanges (see `BuildContextInput.turnSummary`). */
  summary?: TurnSummary | undefined;
}

export interface ChosenForms {
  /** Index (in the older exchanges) of the oldest shown; those before it are excerpted. */
  firstShown: number;
  forms: BaseMessage[][];
  /** Tokens of each shown exchange in its form, by index. */
  sizes: number[];
  tokens: number;
  cleared: number;
  compacted: number;
  /** Messages of the shown exchanges whose text became an excerpt or whose prose was bounded (counted in `report.excerpted`). */
  excerpted: number;
  report(exchanges: number): Omit<CurrentTurnReport, "form">;
}

/**
 * The older exchanges newest first, each in the fullest form that fits `room` and is
 * no fuller than the one after it; `firstShownAtLeast` excerpts at least that many of the oldest.
 */
export function chooseForms(older: readonly BaseMessage[][], room: number, input: LongTurnInput, firstShownAtLeast: number): ChosenForms {
  const forms: BaseMessage[][] = new Array(older.length);
  const sizes: number[] = new Array(older.length).fill(0);
  // How each shown exchange is reported: by what its form did to its results (a result too large
  // for the compacted forms' size is cleared there: that exchange is cleared, not compacted).
  const shownAs: Array<"kept" | "compacted" | "cleared" | undefined> = new Array(older.length);
  let used = 0;
  let level = 0;
  let cleared = 0;
  let compacted = 0;
  let excerpted = 0;
  let firstShown = older.length;
  for (let j = older.length - 1; j >= firstShownAtLeast && room > 0; j--) {
    let placed = false;
    for (let l = level; l < 4 && !placed; l++) {
      const form = formOf(older[j] as BaseMessage[], l, input);
      const { tokens } = form;
      if (used + tokens > room) continue;
      forms[j] = form.messages;
      sizes[j] = tokens;
      shownAs[j] = l === 0 ? "kept" : l === 3 || (form.cleared > 0 && form.compacted === 0) ? "cleared" : "compacted";
      used += tokens;
      level = l;
      cleared += form.cleared;
      compacted += form.compacted;
      excerpted += form.excerpted;
      placed = true;
    }
    if (!placed) break;
    firstShown = j;
  }
  const count = (as: "kept" | "compacted" | "cleared") => shownAs.filter((x) => x === as).length;
  return {
    firstShown,
    forms,
    sizes,
    tokens: used,
    cleared,
    compacted,
    excerpted,
    report: (exchanges) => ({
      exchanges,
      kept: 1 + count("kept"),
      compacted: count("compacted"),
      cleared: count("cleared"),
      excerpted: firstShown,
      summarized: 0,
    }),
  };
}

/**
 * With steps, the most the excerpt of a long turn's oldest exchanges takes: the larger of
 * `excerptBudget` and this share of the turn's room. It holds from anchor to anchor (see
 * {@link anchoredFirstShown}), so a larger one lists more of the calls before the anchor
 * — their arguments are what the next calls reuse.
 */
export const LONG_TURN_EXCERPT_SHARE = 0.3;

/**
 * Room for the excerpt of the exchanges a long turn does not show (see {@link LONG_TURN_EXCERPT_SHARE});
 * `excerptBudget` 0 keeps it off, and `dropStep` 0 at `excerptBudget`.
 */
export function excerptRoomOf(input: LongTurnInput): number {
  const { excerptBudget, dropStep = 0 } = input.options;
  return excerptBudget === 0 || dropStep === 0 ? excerptBudget : Math.max(excerptBudget, Math.floor(LONG_TURN_EXCERPT_SHARE * input.room));
}

/**
 * The oldest exchange to show when some must go: among those that keep the shown ones
 * filling at least `1 − 3 × dropStep` of `room`, the strongest anchor ({@link chooseKept}
 * over the exchanges, keyed by their first message), so the excerpt of the exchanges
 * before it stays the same while the turn grows. `chosen.firstShown` with `dropStep` 0.
 */
export function anchoredFirstShown(older: readonly BaseMessage[][], chosen: ChosenForms, room: number, input: LongTurnInput, offset: number): number {
  const dropStep = input.options.dropStep ?? 0;
  const shown = older.length - chosen.firstShown;
  if (chosen.firstShown === 0 || shown < 2 || dropStep === 0) return chosen.firstShown;
  const newestFirst: CutCandidate[] = [];
  for (let j = older.length - 1; j >= chosen.firstShown; j--) {
    newestFirst.push({ tokens: chosen.sizes[j] as number, key: stepKey(older[j] as BaseMessage[], offset + j) });
  }
  return older.length - chooseKept(newestFirst, shown, room, dropStep);
}

/** A stable key of an exchange: the id of its first message that has one, else its place in the turn and the start of its text. */
function stepKey(step: readonly BaseMessage[], at: number): string {
  const id = step.find((m) => m.id !== undefined)?.id;
  return id ?? `${at}:${step[0] === undefined ? "" : textOf(step[0].content).slice(0, 64)}`;
}

/** An exchange in one form, with its tokens. */
interface StepForm {
  messages: BaseMessage[];
  cleared: number;
  compacted: number;
  /** Its messages whose text became an excerpt or whose prose was bounded. */
  excerpted: number;
  tokens: number;
}

/**
 * The forms made of each exchange, by level. An exchange is an array {@link fitLongTurn}
 * makes for one fit, whose passes (with and without the excerpt's room, at the anchor,
 * one exchange fewer) ask for the same forms: each is made once.
 */
const formsMade = new WeakMap<readonly BaseMessage[], StepForm[]>();

/** An older exchange in form `level`: 0 as it is, 1 results compacted, 2 compacted small, 3 results cleared. */
function formOf(step: BaseMessage[], level: number, input: LongTurnInput): StepForm {
  let made = formsMade.get(step);
  if (made === undefined) formsMade.set(step, (made = []));
  return (made[level] ??= makeForm(step, level, input));
}

function makeForm(step: BaseMessage[], level: number, input: LongTurnInput): StepForm {
  const { estimator, options } = input;
  if (level === 0) return { messages: step, cleared: 0, compacted: 0, excerpted: 0, tokens: estimator.estimateMessages(step) };
  const counts: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  const limits = { maxTextTokens: options.maxOlderMessageTokens, maxProseTokens: options.maxToolCallProseTokens };
  const bounded = step.map((m) => (m.type === "ai" ? boundOlderMessage(m, "ai" as MessageKind, limits, estimator, counts) : m));
  const results = step.filter((m) => m.type === "tool").length;
  const max = level === 1 ? options.maxToolResultTokens : Math.min(options.maxToolResultTokens, SMALL_RESULT_TOKENS);
  const keepRecentToolResults = level === 3 ? 0 : results;
  const result = microCompact(bounded, { keepRecentToolResults, maxToolResultTokens: max, estimator, recallToolName: options.recallToolName });
  const { cleared, compacted } = result;
  return { messages: result.messages, cleared, compacted, excerpted: counts.excerpted, tokens: estimator.estimateMessages(result.messages) };
}
