import type { BaseMessage } from "@langchain/core/messages";
import { ContextBudgetError } from "../errors.js";
import { copyMessage } from "../messages.js";
import type { Estimator } from "../estimate.js";
import type { FixedPart } from "./charge-fixed-part.js";
import { excerptsRoom, HistoryRoom, keepsMoreHistory, type HistoryAllocation, type HistoryClaims } from "./allocate-history.js";
import { currentTurnFloor, currentTurnOver, fitCurrentTurn, resultsSurelyOver, type CurrentTurnFit } from "./current-turn-room.js";
import { fitLongTurn, type LongTurnFit } from "./long-turn.js";
import { keepOlderTurnsInPlace } from "./older-form.js";
import type { OlderForms, OlderTurns } from "./older-turns.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { CurrentTurnForm, CurrentTurnReport, TurnSummary } from "./types.js";

/** Most of the current turn's room the turn before it may keep when the current results would take it all. */
const PREVIOUS_TURN_SHARE = 0.15;
/** Most of the current turn's room a summary (durable evidence) may keep when the current results would take it all. */
const SUMMARY_SHARE = 0.25;
/** Most of the room the history (summary and older turns) keeps beside large current results. */
const HISTORY_SHARE = 0.5;

import type { CompactOptions } from "./tool-result-compactor.js";

/** What {@link chooseCurrentTurn} needs. */
export interface CurrentTurnInput {
  fixed: FixedPart;
  limit: number;
  /** The prepared current turn, not yet compacted. */
  current: PreparedTurn;
  /** The older turns, whose forms the history's room is allocated with (see {@link HistoryRoom}). */
  older: OlderTurns;
  /** The history's claims beside the older turns: the summary head's tokens (`summaryTokens`), the recall reserve's options. */
  claims: HistoryClaims;
  options: CompactOptions;
  estimator: Estimator;
  /** The manager's summary of the current turn's first exchanges, used when the turn is long. */
  turnSummary?: TurnSummary | undefined;
}

/** The current turn as it enters the view, and the history's allocation beside it. */
export interface CurrentTurnChoice {
  current: PreparedTurn;
  /** The older turns in the forms chosen beside `current`: as prepared while all fits, else compacted (the newest maybe smaller: `besideHistory`). */
  older: OlderForms;
  /** The history's room beside `current`, allocated with `older` (see {@link HistoryRoom}): the view is placed by it. */
  allocation: HistoryAllocation;
  /** The current turn's tool results the form chosen compacted, narrowed to their totals, or cleared. */
  results: CurrentResults;
  /** How the current turn's exchanges entered the view. */
  currentTurn: CurrentTurnReport;
  /** Labels the current turn gained (or, negative, lost with excerpted exchanges) after it was prepared. */
  labels: number;
  /** Messages of the current turn shown as marked excerpts (the newest assistant message's prose, bounded to fit). */
  excerpted: number;
}

/**
 * The current turn's form, and the history's allocation beside it: the first decision of
 * {@link allocateView}, for the two are weighed together. Nothing is compacted while the
 * whole history fits: the older turns' forms are `"whole"`. Otherwise they are
 * `"compacted"` (see {@link OlderTurns.forms}; each made once, as the allocation reaches
 * it), and the current turn takes one of its forms (see {@link chooseCurrentForm}): its
 * results sharing the room by size and never cleared ({@link fitCurrentTurn}), beside
 * the history the next call shows, in the form they keep once the turn ends, or — a
 * long turn — with its older exchanges degraded in steps ({@link fitLongTurn}). The
 * counts are read off the form chosen. Nothing here changes the older turns: the forms
 * chosen are returned (`older`), with their allocation. Throws a {@link ContextBudgetError} when the
 * fixed part and the current turn do not fit the limit in any form.
 *
 * @example
 * ```ts
 * const { current, older, allocation } = chooseCurrentTurn({ fixed, limit, current: prepared, older: olderTurns, claims, options, estimator });
 * ```
 */
export function chooseCurrentTurn(input: CurrentTurnInput): CurrentTurnChoice {
  const { fixed, limit, claims } = input;
  const headTokens = claims.summaryTokens;
  const exchanges = countExchanges(input.current);
  const room = limit - fixed.tokens;
  const whole = new HistoryRoom(input.older.forms("whole"), claims);
  // A turn whose messages alone are surely over the room is long: compacting its results cannot fit it, and it is never estimated whole.
  const surelyLong = exchanges > 1 && currentTurnOver(input.current, room, input.estimator);
  // Nor is a turn whose results' texts alone are surely over the room (a result of megabytes): they are compacted.
  const surelyOver = surelyLong || resultsSurelyOver(input.current, room, input.estimator);
  if (surelyOver || fixed.tokens + input.current.tokens > limit) refuseEarly(input);
  const fit = surelyOver ? undefined : whole.older.fitting(room - input.current.tokens - headTokens);
  if (fit?.all === true && fixed.tokens + input.current.tokens + headTokens <= limit) {
    const allocation = whole.at(room - input.current.tokens);
    const currentTurn = everyExchangeKept(exchanges, "whole");
    return { current: input.current, older: whole.older, allocation, results: NO_RESULTS, currentTurn, labels: 0, excerpted: 0 };
  }
  // Older results compacted across the turns, counted after the current turn's: the newest take the first places kept whole.
  const { form, beside, allocation } = chooseCurrentForm(input, whole.withOlder(input.older.forms("compacted")), exchanges, surelyLong);
  const results = { compacted: form.fit.compacted, narrowed: form.fit.narrowed, cleared: form.cleared };
  const { report: currentTurn, labels, excerpted } = form;
  return { current: form.fit.turn, older: beside.older, allocation, results, currentTurn, labels, excerpted };
}

/** The current turn's tool results as its form shows them (`report.toolResults` adds the older turns'). */
export interface CurrentResults {
  compacted: number;
  narrowed: number;
  /** Cleared to markers: results of a long turn's older exchanges. */
  cleared: number;
}

const NO_RESULTS: CurrentResults = Object.freeze({ compacted: 0, narrowed: 0, cleared: 0 });

/** The current turn in one of its forms, and what that form did. */
interface CurrentForm {
  fit: CurrentTurnFit;
  /** Results cleared to markers (older exchanges of a long turn). */
  cleared: number;
  /** What the form did, its name (`report.form`) included. */
  report: CurrentTurnReport;
  labels: number;
  excerpted: number;
  /** The newest older turn in the smaller form it takes beside this one (see {@link besideHistory}); as compacted when undefined. */
  newest?: PreparedTurn | undefined;
}

/** The form chosen, the history's room beside it (the older turns in their forms) and its allocation. */
interface ChosenForm {
  form: CurrentForm;
  beside: HistoryRoom;
  allocation: HistoryAllocation;
}

/**
 * The current turn's form, chosen once among its candidates by one rule. The candidates,
 * each fitted once, each proposed only when it could win:
 *
 * 1. **whole** or **shared** — its results share the room left after the fixed part
 *    ({@link fitCurrentTurn}); not proposed for a turn whose messages alone exceed the room;
 * 2. **besideHistory** — when that compacts results and leaves no older turn room, the
 *    results fitted beside the history the next call shows ({@link besideHistory});
 * 3. **olderForm** — when it compacts nothing but pushes older turns out, the form its
 *    results keep once the turn ends ({@link keepOlderTurnsInPlace});
 * 4. **long** — when the form so far is over the limit, or narrows results of a turn of
 *    several exchanges: its older exchanges degraded in steps ({@link fitLongTurn}).
 *
 * The rule: a form that fits beats one that does not; then fewer results narrowed to their
 * totals (such a result loses every row the model would read); then the one whose history
 * allocation (see {@link HistoryRoom}) keeps more history beside it ({@link keepsMoreHistory});
 * then the earlier candidate. Each form is weighed by the allocation the view would be
 * placed by, so a reserve the allocation would not fill wins nothing. The long form, which
 * gives up the turn's older exchanges, wins only by the first two: it is never weighed for
 * history (nor are older turns read to weigh it). Throws the budget error when no form fits.
 * A turn whose messages alone, results' text aside, are over the room has only the long
 * form; when that is sure before the turn is estimated (`surelyLong`, see
 * {@link currentTurnOver}), it is fitted without being estimated whole.
 */
function chooseCurrentForm(input: CurrentTurnInput, history: HistoryRoom, exchanges: number, surelyLong: boolean): ChosenForm {
  const { fixed, limit, estimator, options } = input;
  const room = limit - fixed.tokens;
  const fits = (form: CurrentForm) => fixed.tokens + form.fit.turn.tokens <= limit;
  // The history beside a form: the older turns in the forms it shows them in, allocated what it leaves.
  const weighed = new Map<CurrentForm, ChosenForm>();
  const weigh = (form: CurrentForm): ChosenForm => {
    let chosen = weighed.get(form);
    if (chosen === undefined) {
      const beside = form.newest === undefined ? history : history.withOlder(history.older.withNewest(form.newest));
      weighed.set(form, (chosen = { form, beside, allocation: beside.at(room - form.fit.turn.tokens) }));
    }
    return chosen;
  };
  // Fitting, then fewer results narrowed: what decides first, and whether the long form is tried.
  const ahead = (form: CurrentForm, than: CurrentForm) => fits(form) && (!fits(than) || form.fit.narrowed < than.fit.narrowed);
  const shown = (name: CurrentTurnForm, fit: CurrentTurnFit, newest?: PreparedTurn): CurrentForm =>
    ({ fit, cleared: 0, report: everyExchangeKept(exchanges, name), labels: 0, excerpted: 0, newest });
  const long = () => fitLongTurn({ current: input.current, room, options, estimator, summary: input.turnSummary });
  // A turn whose messages alone exceed the room (surely, see chooseCurrentTurn, or by its floor): only the long form can fit it.
  if (surelyLong || (exchanges > 1 && currentTurnFloor(input.current, estimator, room) > room)) {
    const fitted = long();
    if (!("fit" in fitted)) throw mandatoryPartError(fixed, limit, fitted.request, fitted.newestExchange);
    return weigh(asLong(fitted));
  }
  const shared = fitCurrentTurn(input.current, room, estimator, options.recallToolName);
  const compacts = shared.compacted + shared.narrowed > 0;
  const olderForm = compacts ? undefined : keepOlderTurnsInPlace({ ...input, history, room }, shared);
  const others = compacts
    ? besideHistory(input, history, room, shared).map((form) => shown("besideHistory", form.fit, form.newest))
    : olderForm === undefined ? [] : [shown("olderForm", olderForm)];
  const candidates = [shown(compacts ? "shared" : "whole", shared), ...others];
  // The candidates ahead of the rest by the first two; among them, the history each keeps decides (weighed only if the long form does not win).
  const lead = candidates.reduce((best, form) => (ahead(form, best) ? form : best));
  const tied = candidates.filter((form) => !ahead(lead, form));
  const byHistory = () => tied.reduce((best, form) => (keepsMoreHistory(weigh(form).allocation, weigh(best).allocation) ? form : best));
  // A long turn: only the request and the newest exchange are mandatory; older exchanges
  // degrade in steps. Also when sharing the room narrowed results to their totals: the
  // newest exchange then keeps its results, which the next call is decided from.
  if (fits(lead) && !(exchanges > 1 && lead.fit.narrowed > 0)) return weigh(byHistory());
  const fitted = long();
  if (!("fit" in fitted)) {
    if (fits(lead)) return weigh(byHistory());
    throw mandatoryPartError(fixed, limit, fitted.request, fitted.newestExchange);
  }
  // The long form gives up the turn's older exchanges: it wins by fitting or by narrowing fewer, never for history.
  const form = asLong(fitted);
  return weigh(ahead(form, lead) ? form : byHistory());
}

/** The current turn in its long form (see {@link fitLongTurn}). */
function asLong(long: LongTurnFit): CurrentForm {
  return { fit: long.fit, cleared: long.cleared, report: { ...long.report, form: "long" }, labels: long.labels, excerpted: long.excerpted };
}

/**
 * Throws the {@link ContextBudgetError} at once when even the least the mandatory part
 * can take does not fit: the request, and the newest exchange with its assistant
 * message's text gone and its results' text gone (the call and its arguments, every
 * result's framing). Fitting ten thousand parallel results one by one first would take
 * seconds to reach the same error.
 */
function refuseEarly({ fixed, limit, current, estimator }: CurrentTurnInput): void {
  const messages = current.messages;
  let first = messages.findIndex((m) => m.type === "ai");
  if (first < 0) first = messages.length;
  let newest = messages.length - 1;
  while (newest >= first && messages[newest]?.type !== "ai") newest--;
  const head = messages.slice(0, first);
  // The newest exchange as small as any form of it can be, estimated as one list (whatever the estimator sums).
  const emptied = (m: BaseMessage): BaseMessage => (m.type === "tool" ? copyMessage(m, "tool", { content: "" }) : m);
  const exchange = newest < first ? [] : [copyMessage(messages[newest] as BaseMessage, "ai", { content: "" }), ...messages.slice(newest + 1).map(emptied)];
  const request = estimator.estimateMessages(head);
  const floor = estimator.estimateMessages([...head, ...exchange]);
  if (fixed.tokens + floor > limit) throw mandatoryPartError(fixed, limit, request, floor - request);
}

/** The budget error for a mandatory part (the request and the newest exchange, at their least) that does not fit beside the fixed part. */
function mandatoryPartError(fixed: FixedPart, limit: number, request: number, newestExchange: number): ContextBudgetError {
  const current = request + newestExchange;
  return new ContextBudgetError({
    limit,
    required: fixed.tokens + current,
    parts: { system: fixed.systemTokens, memories: fixed.memoryTokens, tools: fixed.toolTokens, current, request, newestExchange },
  });
}

/** Exchanges after the request: assistant messages (a tool-call message brings all its results). */
function countExchanges(turn: PreparedTurn): number {
  let exchanges = 0;
  for (const message of turn.messages) if (message.type === "ai") exchanges++;
  return exchanges;
}

/** How a current turn of `exchanges` shown in form `form` (not a long turn's) entered the view: every exchange kept. */
function everyExchangeKept(exchanges: number, form: CurrentTurnForm): CurrentTurnReport {
  return { form, exchanges, kept: exchanges, compacted: 0, cleared: 0, excerpted: 0, summarized: 0 };
}


/** A candidate of {@link besideHistory}: the results fitted, and the form of the turn before them when it is shown smaller. */
type BesideHistory = Pick<CurrentForm, "fit" | "newest">;

/**
 * The current results fitted beside the history, when they take the whole room and no
 * older turn fits beside them: the candidates, none when no older turn or summary could
 * be kept beside them. Each fits the results in the room a reserve leaves:
 *
 * 1. beside the history the next call will show: the summary and the older turns
 *    (already compacted) when all of them fit {@link HISTORY_SHARE} of the room. The
 *    history then stays where it was on the previous call and stays on the next: the
 *    prompt's prefix, and a provider's cache of it, hold;
 * 2. beside the summary (when at most {@link SUMMARY_SHARE} of the room), the turn
 *    before them (kept in its compacted form when at most {@link PREVIOUS_TURN_SHARE}
 *    of the room, compacted further to that otherwise: `newest`) and, without a summary,
 *    the excerpts of the turns before it: the model keeps the thread of the conversation
 *    and still answers from every row's reference.
 *
 * Nothing is changed here: the view shows `newest` only when that candidate is chosen.
 */
function besideHistory(input: CurrentTurnInput, history: HistoryRoom, room: number, fitted: CurrentTurnFit): BesideHistory[] {
  const { estimator } = input;
  const { older } = history;
  const { compactor } = input.older;
  const headTokens = history.claims.summaryTokens;
  if (older.fitting(room - fitted.turn.tokens - headTokens).fit > 0) return [];
  const besides = (reserve: number) => fitCurrentTurn(input.current, room - reserve, estimator, input.options.recallToolName);
  const candidates: BesideHistory[] = [];
  const historyRoom = Math.floor(room * HISTORY_SHARE) - headTokens;
  const whole = historyRoom > 0 ? older.fitting(historyRoom) : undefined;
  if (whole !== undefined && whole.fit > 0 && whole.all) {
    let reserve = headTokens;
    for (let j = 0; j < whole.fit; j++) reserve += older.turn(j)!.tokens;
    const all = besides(reserve);
    candidates.push({ fit: all });
    // Nothing beats a candidate that fits and narrows no result, the whole history beside it.
    if (all.narrowed === 0 && input.fixed.tokens + all.turn.tokens <= input.limit) return candidates;
  }
  const head = headTokens <= Math.floor(room * SUMMARY_SHARE) ? headTokens : 0;
  // The turn before, in the form it takes beside them: shown so only when these results are.
  const newest = older.newest === undefined ? undefined : compactor.shrink(older.newest, Math.floor(room * PREVIOUS_TURN_SHARE));
  // Older turns beyond the newest go: without a summary, their excerpts keep room too (see allocateView).
  const excerpts = newest !== undefined && headTokens === 0 && older.hasMoreThanNewest() ? excerptsRoom(Infinity, input.options, estimator) : 0;
  const reserve = head + (newest?.tokens ?? 0) + excerpts;
  if (reserve > 0) candidates.push({ fit: besides(reserve), newest });
  return candidates;
}
