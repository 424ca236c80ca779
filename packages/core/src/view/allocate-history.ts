import type { Estimator } from "../estimate.js";
import { HISTORY_LABEL, labelMessage } from "./head.js";
import type { ClearedForm, OlderForms } from "./older-turns.js";
import { EVERY_TOOL_RESULT, type NoteOptions } from "./options.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { chooseKept, windowFloor } from "./select.js";
import { clearedBand, type ClearedBand } from "./cleared-band.js";
import type { ViewOptions } from "./types.js";

/** The options {@link allocateHistory} reads. */
export type AllocateOptions = Pick<Required<ViewOptions>, "excerptBudget" | "dropStep" | "recallBudget"> &
  Partial<Pick<Required<ViewOptions>, "keepRecentToolResults">> &
  NoteOptions & {
    /** A context manager summarizes the turns the view leaves out (see `ResolvedViewSettings.summarizes`): no cleared band. */
    summarizes?: boolean;
  };

/** What {@link allocateHistory} needs. */
export interface AllocateHistoryInput {
  /** The older turns in the forms the view weighs (see `OlderTurns.forms`). */
  older: OlderForms;
  /** Room for history: the limit less the charged fixed part (pins included) and the current turn. */
  room: number;
  /** Tokens of the summary head (label and summary), 0 when none is given. */
  summaryTokens: number;
  /** `recallBudget` 0 takes no relevance reserve (recall off, or a brief after tool turns). */
  options: AllocateOptions;
  /**
   * The head is durable evidence alone, no summary: it does not stand for the dropped
   * turns as a summary does, so the relevance reserve keeps the excerpts' room beside it.
   */
  evidenceOnly?: boolean | undefined;
  estimator: Estimator;
}

/**
 * The history's room split between its claims, each by name (see {@link allocateHistory}).
 * Tokens are what each claim may take; what it takes is in the view's report.
 */
export interface HistoryAllocation {
  /** Evidence: the summary head is shown (it fits the room). */
  summaryIncluded: boolean;
  /** Evidence: tokens of the summary head when it is shown, else 0. */
  headTokens: number;
  /**
   * Relevance: the most the recalled block takes on a later call of a turn (the first
   * takes all the room left); when older turns go, they leave it (see {@link dropped}).
   * 0 when recall takes no reserve.
   */
  relevance: number;
  /**
   * Excerpts: room the excerpts of dropped turns may take (with their label): at most
   * `excerptBudget` and its label, what the turns shown leave of the history's room; 0 when
   * none go or a summary is shown.
   */
  reserve: number;
  /** Recency: the newest older turns kept whole. */
  kept: number;
  /** Recency: every older turn is kept whole. */
  all: boolean;
  /**
   * Recency: the turns right before the kept ones, shown with their tool results cleared
   * (see {@link clearedBand}): `cleared.cleared` newest first, `cleared.results` results cleared.
   */
  cleared?: ClearedBand | undefined;
  /** Older turns go even with the whole room: a turn is left out before any reserve for relevance. */
  dropped: boolean;
}

/**
 * The allocation of the history's room, one decision over its claims in order of
 * value. What the fixed part, the pinned block and the current turn (the mandatory
 * part, charged first) leave is the history's room:
 *
 * 1. **evidence** — the summary head (the summary and durable evidence), when it fits;
 * 2. **relevance** — `recallBudget`, at most half of what the summary leaves and the
 *    excerpts' room (see {@link recallReserve}), which older turns leave when some must
 *    go; beside a summary the excerpts' room is 0 (the summary stands for the dropped
 *    turns), beside durable evidence alone it is kept (`evidenceOnly`: keyword excerpts
 *    bounded by `evidenceShare` stand for no turn in particular); it depends on the
 *    room, never on what recall finds, so the head moves in the same steps as without it;
 * 3. **excerpts** — without a summary and without a relevance reserve (recall off, or a
 *    brief), `excerptBudget` for excerpts of the dropped turns: the recalled block
 *    brings back dropped messages too, those the request asks for, in the same room.
 *    The excerpts take what they take of it (the older turns' excerpt form, see
 *    `OlderTurns.excerpts`); a turn that fits whole in the rest is shown whole;
 * 4. **recency** — the newest older turns that fit the rest, each in its best form that
 *    fits before it is left out: whole, then with its tool results cleared (see
 *    {@link clearedBand}); the oldest whole one and the oldest cleared one on stable
 *    anchors (see {@link chooseKept}), so the head of the view moves in steps for the
 *    prompt cache.
 *
 * What the anchors leave unused goes to the recalled block on a turn's first call
 * (see `allocateView`). A view asks it through a {@link HistoryRoom}, one for each
 * choice of the older turns' forms: the current turn's forms are weighed by the allocation
 * each leaves, and the view is placed by the allocation of the form chosen, decided once.
 *
 * @example
 * ```ts
 * const allocation = allocateHistory({ older, room: 6000, summaryTokens: 0, options, estimator });
 * allocation.kept;       // newest older turns shown whole
 * allocation.relevance;  // 3000 (half the room) and the excerpts' room, when some turns go (recallBudget 4000)
 * ```
 */
export function allocateHistory(input: AllocateHistoryInput): HistoryAllocation {
  const { older, room, summaryTokens, options, estimator } = input;
  // With a relevance reserve, the recalled block takes the excerpts' room when turns go: their excerpts are not made to weigh.
  const { excerptsRoom: room0 = 0, ...whole } = recencyIn(older, room, summaryTokens, options, estimator, options.recallBudget === 0);
  const dropped = older.exists(whole.kept + (whole.cleared?.cleared.length ?? 0));
  const excerpts = input.evidenceOnly === true && whole.summaryIncluded && !whole.all ? excerptsRoom(room - whole.headTokens, options, estimator) : room0;
  const relevance = recallReserve(room, whole.headTokens, options.recallBudget, excerpts);
  if (!dropped || relevance === 0) return { ...whole, relevance, dropped };
  // The recalled block takes the excerpts' room: no excerpts beside it.
  const { excerptsRoom: _none, ...beside } = recencyIn(older, room - relevance, summaryTokens, { ...options, excerptBudget: 0 }, estimator);
  return { ...beside, relevance, dropped };
}

/** The claims of a view's history that do not depend on its room: what {@link allocateHistory} reads besides `older` and `room`. */
export type HistoryClaims = Omit<AllocateHistoryInput, "older" | "room">;

/**
 * The history's room of one view with its older turns in one choice of forms, allocated
 * once for each room asked (see {@link allocateHistory}): the current turn's forms are
 * weighed by what each leaves the older turns, and the view is placed by the allocation
 * of the form chosen, the same object, not a second decision. Other forms of the older
 * turns are another `HistoryRoom` ({@link withOlder}).
 *
 * @example
 * ```ts
 * const history = new HistoryRoom(older.forms("whole"), { summaryTokens: 0, options, estimator });
 * history.at(6000).kept; // newest older turns shown whole in 6,000 tokens
 * history.at(6000) === history.at(6000); // true
 * ```
 */
export class HistoryRoom {
  private readonly allocations = new Map<number, HistoryAllocation>();

  constructor(
    readonly older: OlderForms,
    readonly claims: HistoryClaims,
  ) {}

  /** The same claims beside the older turns in `forms`. */
  withOlder(forms: OlderForms): HistoryRoom {
    return forms === this.older ? this : new HistoryRoom(forms, this.claims);
  }

  /** The allocation of `room` tokens (the limit less the charged fixed part and the current turn). */
  at(room: number): HistoryAllocation {
    let allocation = this.allocations.get(room);
    if (allocation === undefined) {
      allocation = allocateHistory({ ...this.claims, older: this.older, room });
      this.allocations.set(room, allocation);
    }
    return allocation;
  }
}

/**
 * Whether allocation `a` keeps more history than `b`: more older turns whole, then more
 * with their results cleared, then the summary. The current turn's forms are weighed by it.
 *
 * @example
 * ```ts
 * keepsMoreHistory(history.at(6000), history.at(4000)); // true when the larger room keeps another turn
 * ```
 */
export function keepsMoreHistory(a: HistoryAllocation, b: HistoryAllocation): boolean {
  const clearedA = a.cleared?.cleared.length ?? 0;
  const clearedB = b.cleared?.cleared.length ?? 0;
  if (a.kept !== b.kept) return a.kept > b.kept;
  return clearedA !== clearedB ? clearedA > clearedB : a.summaryIncluded && !b.summaryIncluded;
}

/**
 * The reserve older turns leave to recall when some must go: half the history room
 * beside the summary, and the room excerpts of dropped turns would take
 * (`excerpts`, 0 with a summary: recall replaces them), at most `recallBudget` and at
 * most that room — so the older turns keep what they kept beside the excerpts.
 *
 * @example
 * ```ts
 * recallReserve(6000, 0, 4000); // 3000
 * recallReserve(6000, 0, 4000, 628); // 3628
 * recallReserve(800, 0, 4000, 628); // 800: the older turns had nothing left beside the excerpts either
 * recallReserve(1200, 400, 1000); // 400
 * ```
 */
export function recallReserve(historyRoom: number, summaryTokens: number, recallBudget: number, excerpts = 0): number {
  const room = Math.max(0, historyRoom - summaryTokens);
  return Math.min(recallBudget, room, Math.floor(room / 2) + excerpts);
}

/** Evidence, excerpts and recency, and the excerpts' room before the turns kept took what they leave (for the relevance reserve). */
type Recency = Omit<HistoryAllocation, "relevance" | "dropped"> & { excerptsRoom?: number };

/**
 * Evidence, excerpts and recency in `room`: the summary when it fits, then the newest
 * older turns on stable anchors, with results cleared before they are left out
 * ({@link clearedBand}; with steps, not beside a history message: a summary stands for
 * the dropped turns); without such a band, the newest whole turns beside room for
 * excerpts of the turns left out — what those excerpts take of it when they are shown
 * (`excerptsShown`, see {@link besideExcerpts}; not when a relevance reserve takes their
 * room). The band takes that room: the oldest turns it holds are worth more cleared than
 * as excerpt lines.
 */
function recencyIn(older: OlderForms, room: number, summaryTokens: number, options: AllocateOptions, estimator: Estimator, excerptsShown = true): Recency {
  const summaryIncluded = summaryTokens > 0 && summaryTokens <= room;
  const headTokens = summaryIncluded ? summaryTokens : 0;
  const avail = room - headTokens;
  const fitted = older.fitting(avail);
  if (fitted.all) return { kept: fitted.fit, all: true, summaryIncluded, headTokens, reserve: 0 };
  // Turns shown with their results cleared before any is left out, unless a summary stands for the turns left out.
  const banding = !(summaryIncluded && options.dropStep !== 0) && options.keepRecentToolResults !== EVERY_TOOL_RESULT && options.summarizes !== true;
  const band = banding ? clearedBand(older, avail, options.dropStep) : undefined;
  if (band !== undefined) return { kept: band.whole, all: false, summaryIncluded, headTokens, reserve: 0, cleared: band };
  // Older turns must go. Without a summary, keep room for excerpts of them: what their excerpts take of it.
  const excerpts = summaryIncluded ? 0 : excerptsRoom(avail, options, estimator);
  const first = avail - excerpts;
  const keptFirst = chooseKept(older.reached, excerpts > 0 ? older.fitting(first).fit : fitted.fit, first, options.dropStep);
  const { kept, left } = excerptsShown ? besideExcerpts(older, keptFirst, avail, excerpts, options.dropStep) : { kept: keptFirst, left: first };
  const next = summaryIncluded && options.dropStep !== 0 ? undefined : clearedNextTurn(older, kept, left, options.dropStep);
  const shown = kept + (next === undefined ? 0 : 1);
  // The room the excerpts of the turns left out may take: what the turns shown leave, at most the excerpts' room.
  const reserve = excerpts === 0 ? 0 : Math.min(excerpts, avail - keptTokens(older, kept) - (next?.turn.tokens ?? 0));
  const cleared = next && { whole: kept, cleared: [next.turn], results: next.results, all: false };
  return { kept, all: false, summaryIncluded, headTokens, reserve: older.exists(shown) ? reserve : 0, excerptsRoom: excerpts, cleared };
}

/**
 * The newest older turns kept beside the excerpts of the ones left out, in `avail` tokens:
 * the excerpts take what they take of their room (`excerpts`, the label included), not all
 * of it, so a turn that fits whole in what they leave is shown whole rather than as its
 * excerpt (a whole turn is worth more than its two lines). `kept` turns fitted beside the
 * whole room first; each turn added leaves the excerpts fewer turns to quote, so this ends.
 * `left`: the room of the turns shown (`avail` less the excerpts of the turns left out).
 */
function besideExcerpts(older: OlderForms, kept: number, avail: number, excerpts: number, dropStep: number): { kept: number; left: number } {
  if (excerpts === 0) return { kept, left: avail };
  for (;;) {
    const used = older.excerpts(kept, Math.min(excerpts, avail - keptTokens(older, kept))).tokens;
    const left = avail - used;
    const fit = older.fitting(left).fit;
    const next = fit > kept ? chooseKept(older.reached, fit, left, dropStep) : kept;
    if (next <= kept) return { kept, left };
    kept = next;
  }
}

/** Tokens of the newest `kept` older turns in the forms of `older` (each reached). */
function keptTokens(older: OlderForms, kept: number): number {
  let tokens = 0;
  for (let j = 0; j < kept; j++) tokens += (older.turn(j) as PreparedTurn).tokens;
  return tokens;
}

/**
 * Room for excerpts of dropped turns with their label, within `avail`; 0 when `excerptBudget` is 0.
 *
 * @example
 * ```ts
 * excerptsRoom(Infinity, { excerptBudget: 600 }, estimator); // 600 and the label's tokens
 * ```
 */
export function excerptsRoom(avail: number, options: Pick<AllocateOptions, "excerptBudget">, estimator: Estimator): number {
  return options.excerptBudget === 0 ? 0 : Math.min(options.excerptBudget + estimator.estimateMessage(labelMessage(HISTORY_LABEL)), avail);
}

/**
 * The turn right before the kept ones with every tool result cleared (ids and pairing
 * kept), when it does not fit the room the kept turns leave whole but fits it so, and
 * the kept turns fill less than their window ({@link windowFloor}); undefined otherwise.
 * Within the window the room the kept turns leave belongs to the prompt cache (see
 * {@link chooseKept}): a cleared turn there would come and go between anchors and move
 * the head of the view each time. Below it — a turn of many tool calls that fits only
 * cleared, say — the view would otherwise stand nearly empty; with steps, not beside a
 * history message (the caller's check): a summary stands for the dropped turns, and beside
 * durable evidence alone the cleared turn cost a fact and cached share on `pnpm eval`.
 */
function clearedNextTurn(older: OlderForms, kept: number, room: number, dropStep: number): ClearedForm | undefined {
  // Only a turn these forms reached: reaching it here would read a turn no form of the view
  // shows. One the fitting skipped unread (`surelyOver`) cannot fit cleared either: every
  // message, cleared or not, costs at least the floor it was skipped by.
  const reached = older.reached;
  const next = reached[kept];
  if (next === undefined || next.toolResults === 0) return undefined;
  let left = room;
  for (let j = 0; j < kept; j++) left -= (reached[j] as PreparedTurn).tokens;
  if (next.tokens <= left || room - left >= windowFloor(room, dropStep)) return undefined;
  const form = older.cleared(kept) as ClearedForm;
  return form.results === 0 || form.turn.tokens > left ? undefined : form;
}
