import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { toolCallsOf, type MessageKind } from "../messages.js";
import { fitCurrentTurn, smallestFit, type CurrentTurnFit } from "./current-turn-room.js";
import { CONTINUATION_LABEL, labelMessage } from "./head.js";
import { anchoredFirstShown, chooseForms, excerptRoomOf, type ChosenForms, type LongTurnInput } from "./long-turn-forms.js";
import { boundOlderMessage, type OlderCounts } from "./older.js";
import { orderTurn } from "./order.js";
import { isStepsExcerpt, standInFor, stepsExcerpt, TURN_SUMMARY_HEADER } from "./turn-stand-in.js";
import { withMessages, type PreparedTurn } from "./prepare-turn.js";
import type { CurrentTurnReport, TurnSummary } from "./types.js";

/** A long current turn fitted to its room. */
export interface LongTurnFit {
  fit: CurrentTurnFit;
  /** Results cleared to a marker (ids and pairing kept). */
  cleared: number;
  /** Labels inserted less labels left out with the excerpted exchanges. */
  labels: number;
  report: Omit<CurrentTurnReport, "form">;
  /**
   * Messages shown as marked excerpts: the newest assistant message when its prose was
   * bounded to fit, and the older exchanges' messages bounded in their forms.
   */
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
 * excerpt may take `LONG_TURN_EXCERPT_SHARE` of the room: as the loop goes on, the
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
  const mandatoryOf = (exchange: BaseMessage[]) => {
    const messages = [...head, ...exchange];
    return fitCurrentTurn(withMessages(current, messages, estimator.estimateMessages(messages)), room, estimator, input.options.recallToolName);
  };
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
  // Estimated only when no result is fitted (the turn is then returned as it is): a result of megabytes is not read whole for it.
  const least = withMessages(current, messages, 0);
  const fitted = smallestFit(least, estimator, input.options.recallToolName).turn;
  return fitted === least ? estimator.estimateMessages(messages) : fitted.tokens;
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
  const turn = { ...withMessages(current, messages, tokens), inputMessages, exchanges: shownExchanges };
  return {
    fit: { turn, compacted: mandatory.compacted + chosen.compacted, narrowed: mandatory.narrowed },
    cleared: chosen.cleared,
    labels: countLabels(messages) - countLabels(current.messages),
    report: { ...chosen.report(exchanges), summarized: summary?.steps ?? 0, ...(excerptedAll === undefined ? {} : { excerpted: excerptedAll }) },
    excerpted: excerpted + chosen.excerpted,
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

