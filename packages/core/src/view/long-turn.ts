import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import type { Estimator } from "../estimate.js";
import { textOf, toolCallsOf, type MessageKind } from "../messages.js";
import { fitCurrentTurn, smallestFit, type CurrentTurnFit } from "./current-turn-room.js";
import { CONTINUATION_LABEL, labelMessage } from "./head.js";
import { boundOlderMessage, type OlderCounts } from "./older.js";
import { orderTurn } from "./order.js";
import { chooseKept, type CutCandidate } from "./select.js";
import { isStepsExcerpt, standInFor, stepsExcerpt, TURN_SUMMARY_HEADER } from "./turn-stand-in.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { CurrentTurnReport, TurnSummary } from "./types.js";

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

/** A long current turn fitted to its room. */
export interface LongTurnFit {
  fit: CurrentTurnFit;
  /** Results cleared to a marker (ids and pairing kept). */
  cleared: number;
  /** Labels inserted less labels left out with the excerpted exchanges. */
  labels: number;
  report: CurrentTurnReport;
  /** Messages shown as marked excerpts: the newest assistant message, when its prose was bounded to fit. */
  excerpted: number;
}

/** The mandatory part that does not fit: the request (and what precedes the first exchange) and the newest exchange. */
export interface LongTurnShortfall {
  request: number;
  newestExchange: number;
}

/**
 * Fit a current turn of several exchanges that does not fit its room whole. Only the
 * request and the newest exchange are mandatory (the call with its intact arguments
 * and all its results, compacted to fit as a one-exchange turn is). The older
 * exchanges, newest first, take the room left in the first form that fits, and never
 * a fuller form than a newer one: whole; results compacted to `maxToolResultTokens`;
 * compacted to a few hundred tokens; cleared to markers that keep ids and pairing
 * (long prose is bounded from the second form on). The oldest ones that fit in no
 * form are replaced by one marked excerpt — each call's name and arguments and the
 * start of its results — bounded by `excerptBudget`. With steps (`dropStep` above 0)
 * the oldest exchange shown is a stable anchor, as the oldest kept older turn is, and the
 * excerpt may take {@link LONG_TURN_EXCERPT_SHARE} of the room: as the loop goes on, the
 * request, the excerpt and the exchanges from the anchor on are sent again as they were
 * until the anchor moves, instead of an excerpt made again on every call. A call is never
 * split from its results; labels keep provider ordering. Returns the shortfall when even
 * the mandatory part does not fit.
 *
 * @example
 * ```ts
 * const long = fitLongTurn({ current, room: limit - fixed.tokens, options, estimator });
 * if ("fit" in long) current = long.fit.turn;
 * ```
 */
export function fitLongTurn(input: LongTurnInput): LongTurnFit | LongTurnShortfall {
  const { current, room, estimator } = input;
  const { head, steps } = splitSteps(current.messages);
  const mandatoryOf = (exchange: BaseMessage[]) =>
    fitCurrentTurn(
      { ...current, messages: [...head, ...exchange], tokens: estimator.estimateMessages([...head, ...exchange]) },
      room,
      estimator,
      input.options.recallToolName,
    );
  let newest = steps.at(-1) ?? [];
  let mandatory = mandatoryOf(newest);
  // Prose is bounded like an older exchange's before the view gives up (the call's arguments stay whole).
  const bounded = mandatory.turn.tokens > room ? boundProse(newest, input) : undefined;
  if (bounded !== undefined) [newest, mandatory] = [bounded.exchange, mandatoryOf(bounded.exchange)];
  const excerpted = bounded?.excerpted ?? 0;
  const headTokens = estimator.estimateMessages(head);
  if (mandatory.turn.tokens > room || (steps.length < 2 && excerpted === 0)) return { request: headTokens, newestExchange: mandatory.turn.tokens - headTokens };
  if (steps.length < 2) return longTurnFit(current, mandatory.turn.messages, mandatory.turn.tokens, mandatory, chooseForms([], 0, input, 0), 1, excerpted);
  // A summary of the oldest exchanges stands for them, when it takes at most half the room they leave.
  const summary = usableSummary(input.summary, steps.length - 1, room - mandatory.turn.tokens, estimator);
  const older = steps.slice(summary?.steps ?? 0, -1);
  const left = room - mandatory.turn.tokens - (summary?.tokens ?? 0);
  const label = estimator.estimateMessage(labelMessage(CONTINUATION_LABEL));
  // First without room for an excerpt; when some exchanges must go, again with it.
  let chosen = chooseForms(older, left, input, 0);
  const budget = excerptRoomOf(input);
  const reserve = chosen.firstShown > 0 ? Math.min(budget + label, Math.floor(left / 2)) : 0;
  if (reserve > 0) chosen = chooseForms(older, left - reserve, input, 0);
  // The oldest exchange shown is a stable anchor, as the oldest kept older turn is: the excerpt before it, and the prefix up to it, hold from call to call.
  const anchored = anchoredFirstShown(older, chosen, left - reserve, input, summary?.steps ?? 0);
  if (anchored > chosen.firstShown) chosen = chooseForms(older, left - reserve, input, anchored);
  const newestShown = mandatory.turn.messages.slice(head.length);
  // Estimates of parts and of the whole may differ by a few tokens: show one exchange fewer until it fits.
  while (chosen.firstShown < older.length) {
    const messages = assemble(head, older, chosen, newestShown, summary, Math.min(left - chosen.tokens, budget + label) - label, estimator);
    orderTurn(messages);
    const tokens = estimator.estimateMessages(messages);
    if (tokens <= room) return longTurnFit(current, messages, tokens, mandatory, chosen, steps.length, excerpted, summary);
    chosen = chooseForms(older, left - reserve, input, chosen.firstShown + 1);
  }
  const messages = assemble(head, older, chosen, newestShown, summary, Math.min(left, budget + label) - label, estimator);
  orderTurn(messages);
  const tokens = estimator.estimateMessages(messages);
  if (tokens <= room) return longTurnFit(current, messages, tokens, mandatory, chosen, steps.length, excerpted, summary);
  // The mandatory part alone fits by construction.
  const bare = chooseForms(older, 0, input, older.length);
  const stepsOutside = (summary?.steps ?? 0) + older.length;
  return longTurnFit(current, mandatory.turn.messages, mandatory.turn.tokens, mandatory, bare, steps.length, excerpted, undefined, stepsOutside);
}

/**
 * The least the current turn takes in any form {@link fitLongTurn} and the compaction
 * stage can give it: the request and the newest exchange — its assistant message's prose
 * bounded, its results at their smallest (totals or a notice to narrow the query). A room
 * of at least this fits the turn; a smaller one raises the budget error. Known before the
 * turn is fitted, so what else claims the room (the pinned block) gives way first.
 *
 * @example
 * ```ts
 * const least = currentTurnMinimum({ current, options, estimator });
 * const pinned = fitPinned(candidates, limit - fixed.tokens - least, estimator);
 * ```
 */
export function currentTurnMinimum(input: Omit<LongTurnInput, "room" | "summary">): number {
  const { current, estimator } = input;
  const { head, steps } = splitSteps(current.messages);
  const newest = steps.at(-1) ?? [];
  const exchange = boundProse(newest, { ...input, room: 0 })?.exchange ?? newest;
  const messages = [...head, ...exchange];
  return smallestFit({ ...current, messages, tokens: estimator.estimateMessages(messages) }, estimator, input.options.recallToolName).turn.tokens;
}

/** The newest exchange with its assistant message's prose bounded as an older exchange's is; undefined when that changes nothing. */
function boundProse(exchange: BaseMessage[], input: LongTurnInput): { exchange: BaseMessage[]; excerpted: number } | undefined {
  const counts: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  const limits = { maxTextTokens: input.options.maxOlderMessageTokens, maxProseTokens: input.options.maxToolCallProseTokens };
  const bounded = exchange.map((m) => (m.type === "ai" ? boundOlderMessage(m, "ai" as MessageKind, limits, input.estimator, counts) : m));
  return counts.excerpted > 0 ? { exchange: bounded, excerpted: counts.excerpted } : undefined;
}

/** The turn summary with its tokens, when it covers some older exchanges (not the newest) and takes at most half of `left`. */
function usableSummary(summary: TurnSummary | undefined, olderExchanges: number, left: number, estimator: Estimator): (TurnSummary & { tokens: number }) | undefined {
  if (summary === undefined || summary.steps < 1 || summary.steps > olderExchanges || summary.text.trim() === "") return undefined;
  const tokens = estimator.estimateMessage(new AIMessage(`${TURN_SUMMARY_HEADER}\n${summary.text}`));
  return tokens <= Math.floor(left / 2) ? { ...summary, tokens } : undefined;
}

function longTurnFit(
  current: PreparedTurn,
  messages: BaseMessage[],
  tokens: number,
  mandatory: CurrentTurnFit,
  chosen: ChosenForms,
  exchanges: number,
  excerpted: number,
  summary?: TurnSummary,
  excerptedAll?: number,
): LongTurnFit {
  // What the turn represents: the request and the shown exchanges' messages; labels and the excerpt are not input messages.
  let inputMessages = 0;
  let shownExchanges = 0;
  for (const message of messages) {
    if (message.type === "human" ? isLabel(message) : isStepsExcerpt(message)) continue;
    inputMessages++;
    if (message.type !== "tool") shownExchanges++;
  }
  return {
    fit: { turn: { ...current, messages, tokens, inputMessages, exchanges: shownExchanges }, compacted: mandatory.compacted + chosen.compacted, narrowed: mandatory.narrowed },
    cleared: chosen.cleared,
    labels: countLabels(messages) - countLabels(current.messages),
    report: { ...chosen.report(exchanges), summarized: summary?.steps ?? 0, ...(excerptedAll === undefined ? {} : { excerpted: excerptedAll }) },
    excerpted,
  };
}

/** The turn's messages before its first exchange (the request), and its exchanges, each with any label before it. */
function splitSteps(messages: readonly BaseMessage[]): { head: BaseMessage[]; steps: BaseMessage[][] } {
  const first = messages.findIndex((m) => m.type === "ai");
  if (first < 0) return { head: [...messages], steps: [] };
  const head = messages.slice(0, first);
  const steps: BaseMessage[][] = [];
  let step: BaseMessage[] | undefined;
  for (let i = first; i < messages.length; i++) {
    const message = messages[i] as BaseMessage;
    if (message.type === "human") {
      step = [message];
      steps.push(step);
    } else if (message.type === "ai") {
      if (step !== undefined && step.length === 1 && step[0]?.type === "human") step.push(message);
      else steps.push((step = [message]));
    } else (step as BaseMessage[]).push(message);
  }
  return { head, steps };
}

function isLabel(message: BaseMessage): boolean {
  return message.type === "human" && message.content === CONTINUATION_LABEL;
}

/** User-role labels in a turn. */
function countLabels(messages: readonly BaseMessage[]): number {
  let labels = 0;
  for (const message of messages) if (isLabel(message)) labels++;
  return labels;
}

interface ChosenForms {
  /** Index (in the older exchanges) of the oldest shown; those before it are excerpted. */
  firstShown: number;
  forms: BaseMessage[][];
  tokens: number;
  cleared: number;
  compacted: number;
  report(exchanges: number): CurrentTurnReport;
}

/**
 * The older exchanges newest first, each in the fullest form that fits `room` and is
 * no fuller than the one after it; `firstShownAtLeast` excerpts at least that many of the oldest.
 */
function chooseForms(older: readonly BaseMessage[][], room: number, input: LongTurnInput, firstShownAtLeast: number): ChosenForms {
  const { estimator } = input;
  const forms: BaseMessage[][] = new Array(older.length);
  const levels: number[] = new Array(older.length).fill(-1);
  // How each shown exchange is reported: by what its form did to its results (a result too large
  // for the compacted forms' size is cleared there: that exchange is cleared, not compacted).
  const shownAs: Array<"kept" | "compacted" | "cleared" | undefined> = new Array(older.length);
  let used = 0;
  let level = 0;
  let cleared = 0;
  let compacted = 0;
  let firstShown = older.length;
  for (let j = older.length - 1; j >= firstShownAtLeast && room > 0; j--) {
    let placed = false;
    for (let l = level; l < 4 && !placed; l++) {
      const form = formOf(older[j] as BaseMessage[], l, input);
      const tokens = estimator.estimateMessages(form.messages);
      if (used + tokens > room) continue;
      forms[j] = form.messages;
      levels[j] = l;
      shownAs[j] = l === 0 ? "kept" : l === 3 || (form.cleared > 0 && form.compacted === 0) ? "cleared" : "compacted";
      used += tokens;
      level = l;
      cleared += form.cleared;
      compacted += form.compacted;
      placed = true;
    }
    if (!placed) break;
    firstShown = j;
  }
  const count = (as: "kept" | "compacted" | "cleared") => shownAs.filter((x) => x === as).length;
  return {
    firstShown,
    forms,
    tokens: used,
    cleared,
    compacted,
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

/** Room for the excerpt of the exchanges a long turn does not show (see {@link LONG_TURN_EXCERPT_SHARE}); `excerptBudget` 0 keeps it off, and `dropStep` 0 at `excerptBudget`. */
function excerptRoomOf(input: LongTurnInput): number {
  const { excerptBudget, dropStep = 0 } = input.options;
  return excerptBudget === 0 || dropStep === 0 ? excerptBudget : Math.max(excerptBudget, Math.floor(LONG_TURN_EXCERPT_SHARE * input.room));
}

/**
 * The oldest exchange to show when some must go: among those that keep the shown ones
 * filling at least `1 − 3 × dropStep` of `room`, the strongest anchor ({@link chooseKept}
 * over the exchanges, keyed by their first message), so the excerpt of the exchanges
 * before it stays the same while the turn grows. `chosen.firstShown` with `dropStep` 0.
 */
function anchoredFirstShown(older: readonly BaseMessage[][], chosen: ChosenForms, room: number, input: LongTurnInput, offset: number): number {
  const dropStep = input.options.dropStep ?? 0;
  const shown = older.length - chosen.firstShown;
  if (chosen.firstShown === 0 || shown < 2 || dropStep === 0) return chosen.firstShown;
  const newestFirst: CutCandidate[] = [];
  for (let j = older.length - 1; j >= chosen.firstShown; j--) newestFirst.push({ tokens: input.estimator.estimateMessages(chosen.forms[j] as BaseMessage[]), key: stepKey(older[j] as BaseMessage[], offset + j) });
  return older.length - chooseKept(newestFirst, shown, room, dropStep);
}

/** A stable key of an exchange: the id of its first message that has one, else its place in the turn and the start of its text. */
function stepKey(step: readonly BaseMessage[], at: number): string {
  const id = step.find((m) => m.id !== undefined)?.id;
  return id ?? `${at}:${step[0] === undefined ? "" : textOf(step[0].content).slice(0, 64)}`;
}

/** An older exchange in form `level`: 0 as it is, 1 results compacted, 2 compacted small, 3 results cleared. */
function formOf(step: BaseMessage[], level: number, input: LongTurnInput): { messages: BaseMessage[]; cleared: number; compacted: number } {
  if (level === 0) return { messages: step, cleared: 0, compacted: 0 };
  const { estimator, options } = input;
  const counts: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  const limits = { maxTextTokens: options.maxOlderMessageTokens, maxProseTokens: options.maxToolCallProseTokens };
  const bounded = step.map((m) => (m.type === "ai" ? boundOlderMessage(m, "ai" as MessageKind, limits, estimator, counts) : m));
  const results = step.filter((m) => m.type === "tool").length;
  const max = level === 1 ? options.maxToolResultTokens : Math.min(options.maxToolResultTokens, SMALL_RESULT_TOKENS);
  const result = microCompact(bounded, { keepRecentToolResults: level === 3 ? 0 : results, maxToolResultTokens: max, estimator, recallToolName: options.recallToolName });
  return { messages: result.messages, cleared: result.cleared, compacted: result.compacted };
}

/** The turn: head, the excerpt of the oldest exchanges (when any go, within `excerptRoom`), the shown older exchanges, the newest. */
function assemble(head: BaseMessage[], older: readonly BaseMessage[][], chosen: ChosenForms, newest: BaseMessage[], summary: TurnSummary | undefined, excerptRoom: number, estimator: Estimator): BaseMessage[] {
  const messages = [...head];
  const lines = chosen.firstShown > 0 ? stepsExcerpt(older.slice(0, chosen.firstShown), excerptRoom, estimator) : null;
  // The summary and the excerpt of the exchanges after it stand for them in one assistant-role message.
  const excerpt = standInFor(summary, lines);
  if (excerpt !== null) messages.push(excerpt);
  for (let j = chosen.firstShown; j < older.length; j++) messages.push(...(chosen.forms[j] as BaseMessage[]));
  messages.push(...newest);
  // Gemini refuses two model turns in a row: an answer right after the (assistant-role) excerpt gets a label
  // between them, as orderTurn gives a tool call; the excerpt's room holds one label.
  const next = messages[head.length + 1];
  if (excerpt !== null && next?.type === "ai" && toolCallsOf(next).length === 0) messages.splice(head.length + 1, 0, labelMessage(CONTINUATION_LABEL));
  return messages;
}

