import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { quotedMessageIds } from "../evidence/held-evidence.js";
import type { MessageInput } from "../messages.js";
import type { HistoryAllocation, HistoryClaims } from "./allocate-history.js";
import type { FixedPart } from "./charge-fixed-part.js";
import { chooseCurrentTurn, type CurrentTurnChoice } from "./current-forms.js";
import type { TurnWalk } from "./find-turns.js";
import { historyHead } from "./head.js";
import { historyBeside, quotedIn } from "./history-evidence.js";
import type { NoteOptions } from "./options.js";
import { OlderTurns, type OlderCompaction, type OlderForms } from "./older-turns.js";
import { pinnedBeside, pinnedBlock, type PinnedBlock } from "./pinned-block.js";
import type { PinnedCandidates } from "./pinned.js";
import type { PrepareContext, PreparedTurn } from "./prepare-turn.js";
import type { ProviderHead } from "./provider-head.js";
import { briefBudget, noRecall, recallBlock, type RecalledBlock } from "./recall.js";
import type { CompactOptions } from "./tool-result-compactor.js";
import type { MessageDate, TurnSummary, ViewOptions } from "./types.js";

/**
 * What every source of a view proposes, prepared or charged before anything is chosen:
 * the fixed part and the provider head (mandatory), the pinned candidates, the current
 * turn as prepared, the older-turns source (each turn's forms made when first asked), the
 * history message (summary and evidence) and how recall runs.
 */
export interface ViewSources {
  walk: TurnWalk;
  limit: number;
  /** The fixed part: system message, tools, memories. */
  fixed: FixedPart;
  /** The provider head, sent right after the system message (see `providerHead`); charged with the fixed part. */
  providerHead: ProviderHead;
  /** The pinned candidates, every item whole (see `collectPinned`): the allocation fits them beside the current turn. */
  pinned: PinnedCandidates;
  /** The current turn as prepared, in no form yet. */
  current: PreparedTurn;
  /**
   * What the older-turns source is made of: how a turn is prepared, and how older results are
   * compacted (see {@link OlderTurns}). Made once the pinned block's reserve is known: the older
   * turns' headroom is what the mandatory part leaves.
   */
  older: { prepare: PrepareContext; compaction: OlderCompaction };
  /** The history message: its head (label and summary or evidence) as the view would show it, and as given. */
  /**
   * The history message: `shown` (after `evidenceShare` was applied, or null) with its head
   * messages (`head`, empty when none), `given` (before it), and `evidenceTokens`, the most
   * the evidence may take (`evidenceShare` of the limit).
   */
  history: { head: BaseMessage[]; shown: BaseMessage | null; given: BaseMessage | null; evidenceTokens: number };
  /** The claims on the history's room beside the older turns (the head's tokens, the recall reserve's options). */
  claims: HistoryClaims;
  /** How recall runs: in a reserve older turns leave (`"block"`), or as a brief after an agent's tool turns (see `recallRuns`). */
  recallAt: "block" | "brief";
  /** The summarized prefix, not in `walk.source` (see `priorMessages`). */
  prior: readonly MessageInput[];
  /** The application's message dates, for the recalled lines. */
  messageDate?: MessageDate | undefined;
  /** The manager's summary of the current turn's first exchanges, used when the turn is long. */
  turnSummary?: TurnSummary | undefined;
  /** The view's options; `compaction` is them as the current turn and the older turns are compacted and allocated by. */
  options: Pick<Required<ViewOptions>, "excerptBudget" | "dropStep" | "recallBudget" | "maxToolResultTokens"> & NoteOptions;
  compaction: CompactOptions;
  estimator: Estimator;
}

/** The older part a view keeps: the head before the older turns, the turns, and where they start. */
export interface ChosenOlderTurns {
  /** How many of the newest older turns are kept. */
  kept: number;
  /** Messages before the kept turns: the summary, or excerpts of dropped turns, with their label. */
  head: BaseMessage[];
  headTokens: number;
  summaryIncluded: boolean;
  /** Excerpt lines of dropped turns in `head`. */
  excerptCount: number;
  /** The last `cleared.length` of the `kept` turns, newest first, shown with their results cleared (see `clearedBand`, {@link shownOlderTurn}). */
  cleared: readonly PreparedTurn[];
}

/** The older turns a view keeps, in their forms: their messages oldest first, and what they hold. */
export interface KeptOlderTurns {
  messages: BaseMessage[];
  tokens: number;
  /** Input messages they represent. */
  inputMessages: number;
  exchanges: number;
}

/**
 * The form chosen for every candidate of a view (see {@link allocateView}): what the view
 * is assembled from and its report read off. Nothing in it is chosen again.
 */
export interface ViewAllocation {
  /** The older-turns source as the allocation left it: `older.read`, the turns it read. */
  older: OlderTurns;
  /** The current turn in its form (`turn.current`), with the older turns' forms beside it and the history's room as it was split. */
  turn: CurrentTurnChoice;
  /** The older part kept: the head (summary or excerpts) and the turns (see {@link shownOlderTurn}). */
  chosen: ChosenOlderTurns;
  /** The older turns `chosen` keeps, in their forms. */
  kept: KeptOlderTurns;
  /** Index in `walk.source` of the oldest message kept from history. */
  cut: number;
  /** The pinned block: the pinned items the kept turns do not show. */
  block: PinnedBlock;
  recalled: RecalledBlock;
  /** The history message shown, without the evidence excerpts of messages the view shows (null when none is). */
  history: BaseMessage | null;
  /** Evidence excerpts left out because the view shows the message they quote. */
  evidenceShown: number;
  /** Evidence excerpts left out for its room, when the view made its evidence again; absent when as `evidenceShare` left them. */
  evidenceOmitted?: number;
}

/**
 * Allocate the view's room among its sources' candidates, once, in order of value:
 *
 * 1. the mandatory part — the fixed part and the provider head are charged first, then the
 *    pinned block's reserve: every pinned item whole, unless the current turn in its least
 *    form would not fit beside them (then the oldest pins give way first, see `pinnedBeside`);
 * 2. the current turn's form and the history's room beside it, weighed together (see
 *    `chooseCurrentTurn`): the turn's forms by the history each leaves; the history's room
 *    split between the summary head, a relevance reserve for recall, excerpts of dropped
 *    turns and the newest older turns in their best forms (see `allocateHistory`);
 * 3. what the older part covers is worth nothing twice: the pinned block holds the pinned
 *    items the kept turns do not show, and an evidence excerpt that quotes a message the
 *    view shows leaves (the head is made again from the evidence left, in at most its room;
 *    what it frees goes to recall);
 * 4. recall — when older turns go and `recallBudget` is above 0 — takes the reserve (a
 *    turn's first call: all the room left, the anchors' slack included) for the messages
 *    outside the view that best match the request. The reserve depends on the room, never
 *    on what recall finds, so the head of the view moves in the same steps as without it.
 *    After an agent's tool turns (`recallAt: "brief"`) older turns leave no reserve, and
 *    only the first call of the turn gets a brief: lines for the request's words the view
 *    does not hold, at most {@link briefBudget}. The next call drops it, which costs the
 *    cache the request alone; the calls after keep their prefix.
 *
 * Nothing is assembled here (see `assembleView`): the recalled block goes right before the
 * current turn, so the prefix before it stays where it was. Throws a `ContextBudgetError`
 * when the mandatory part does not fit in any form.
 *
 * @example
 * ```ts
 * const allocation = allocateView(sources); // what each source proposes (see ViewSources), gathered by buildContext
 * allocation.turn.current.tokens; // the current turn in its form
 * assembleView({ ...parts, head: allocation.chosen, kept: allocation.kept, current: allocation.turn.current });
 * ```
 */
export function allocateView(sources: ViewSources): ViewAllocation {
  const { walk, limit, fixed, estimator } = sources;
  const mandatory = fixed.tokens + sources.providerHead.tokens;
  const pinned = pinnedBeside(sources.pinned, sources.current, limit - mandatory, sources.compaction, estimator);
  const charged = { ...fixed, tokens: mandatory + pinned.reserve };
  const olderTurns = new OlderTurns(walk, sources.older.prepare, sources.older.compaction, limit - charged.tokens);
  const turn = chooseCurrentTurn({
    fixed: charged, limit, current: sources.current, older: olderTurns, claims: sources.claims, options: sources.compaction, estimator,
    turnSummary: sources.turnSummary,
  });
  const { current, older, allocation } = turn;
  const chosen0 = olderPart(allocation, older, sources.history.head);
  const kept = keptOlderTurns(chosen0, older.reached);
  const cut = chosen0.kept > 0 ? (walk.starts[chosen0.kept - 1] as number) : walk.currentStart;
  // A pinned item it looks up lies at or past the cut and before the current turn: in the kept turns.
  const block = pinnedBlock(pinned, cut, kept.messages, estimator);
  // An evidence excerpt is never shown beside the message it quotes: the room it held goes to recall.
  const { chosen, history, ...beside } = withoutShownEvidence(sources, current, chosen0, kept.messages, block, cut);
  const room = limit - charged.tokens - current.tokens;
  const longTurn = turn.currentTurn.excerpted + turn.currentTurn.summarized > 0;
  const recalled = recallIn(sources, { allocation, chosen, history, block, cut, left: room - chosen.headTokens - kept.tokens, longTurn, current });
  return { older: olderTurns, turn, chosen, kept, cut, block, recalled, history, ...beside };
}

/** What {@link recallIn} reads of the allocation so far: `left`, the history's room the older part left; `longTurn`, some exchanges excerpted. */
interface BeforeRecall {
  allocation: HistoryAllocation;
  chosen: ChosenOlderTurns;
  history: BaseMessage | null;
  block: PinnedBlock;
  cut: number;
  left: number;
  longTurn: boolean;
  current: PreparedTurn;
}

/** The recalled block in the room the older part left (see {@link allocateView}, 4), or why there is none. */
function recallIn(sources: ViewSources, before: BeforeRecall): RecalledBlock {
  const { walk, prior, options } = sources;
  const { allocation, chosen, history, cut } = before;
  const shift = prior.length;
  const brief = sources.recallAt === "brief";
  const firstCall = !before.current.messages.some((m) => m.type === "ai");
  if (options.recallBudget === 0) return noRecall("off");
  if (!allocation.dropped && shift === 0) return noRecall("nothing-left-out");
  // On a later call after tool turns, recall reads nothing more of the conversation than the view does.
  if (brief && !firstCall) return noRecall("later-call");
  const conversation = shift > 0 ? [...walk.source.slice(0, walk.lead), ...prior, ...walk.source.slice(walk.lead)] : walk.source;
  const request = walk.currentStart < walk.n && walk.kind(walk.currentStart) === "human" ? walk.currentStart + shift : -1;
  const shownIds = new Set<string>();
  for (const message of before.block.messages) if (message.id !== undefined) shownIds.add(message.id);
  // Nor what the evidence at the head quotes: leaving it out of the evidence instead would
  // change the head of the view, and so the whole cached prefix, whenever recall changes.
  if (chosen.summaryIncluded && history !== null) for (const id of quotedMessageIds(history)) shownIds.add(id);
  // The first call of a turn may fill all the room left; the later calls of an agent's
  // tool loop keep to the reserve, so the block (and the prefix up to the newest step)
  // stays the same from call to call while the turn grows.
  const { left } = before;
  return recallBlock({
    conversation, lead: walk.lead, end: cut + shift, request, shownIds, estimator: sources.estimator,
    budget: brief ? Math.min(left, briefBudget(options.recallBudget)) : firstCall ? left : Math.min(left, allocation.relevance),
    queryFromTurn: before.longTurn,
    brief,
    messageDate: sources.messageDate,
    recent: firstCall,
  });
}

/**
 * The older part from the history's allocation (see `allocateHistory`): the summary when
 * it was allotted room; the newest older turns it keeps (the oldest maybe with their
 * results cleared); when older turns go and no summary is shown, excerpts of them in the
 * room kept for them (the excerpt form the allocation weighed).
 */
function olderPart(allocation: HistoryAllocation, older: Pick<OlderForms, "excerpts">, summaryHead: BaseMessage[]): ChosenOlderTurns {
  const { summaryIncluded, cleared } = allocation;
  const kept = allocation.kept + (cleared?.cleared.length ?? 0);
  let head = summaryIncluded ? summaryHead : [];
  let headTokens = allocation.headTokens;
  let excerptCount = 0;
  if (allocation.reserve > 0) {
    const excerpts = older.excerpts(kept, allocation.reserve);
    if (excerpts.count > 0) [head, headTokens, excerptCount] = [[...excerpts.head], excerpts.tokens, excerpts.count];
  }
  return { kept, head, headTokens, summaryIncluded, excerptCount, cleared: cleared?.cleared ?? [] };
}

/**
 * Older turn `j` (0 = the newest) as the view shows it: its form with results cleared
 * when it is one of {@link ChosenOlderTurns.cleared}, else as prepared.
 *
 * @example
 * ```ts
 * for (let j = chosen.kept - 1; j >= 0; j--) messages.push(...shownOlderTurn(chosen, older.reached, j).messages);
 * ```
 */
export function shownOlderTurn(chosen: Pick<ChosenOlderTurns, "kept" | "cleared">, olderNewestFirst: readonly PreparedTurn[], j: number): PreparedTurn {
  const firstCleared = chosen.kept - chosen.cleared.length;
  return j >= firstCleared ? (chosen.cleared[j - firstCleared] as PreparedTurn) : (olderNewestFirst[j] as PreparedTurn);
}

/** The older turns `chosen` keeps, oldest first, each in the form it shows it (see {@link shownOlderTurn}), with their estimate and counts. */
function keptOlderTurns(chosen: Pick<ChosenOlderTurns, "kept" | "cleared">, olderNewestFirst: readonly PreparedTurn[]): KeptOlderTurns {
  const messages: BaseMessage[] = [];
  let tokens = 0;
  let inputMessages = 0;
  let exchanges = 0;
  for (let j = chosen.kept - 1; j >= 0; j--) {
    const turn = shownOlderTurn(chosen, olderNewestFirst, j);
    for (const message of turn.messages) messages.push(message);
    tokens += turn.tokens;
    inputMessages += turn.inputMessages;
    exchanges += turn.exchanges;
  }
  return { messages, tokens, inputMessages, exchanges };
}

/**
 * The older part chosen without the evidence excerpts of messages the view shows (see
 * {@link historyBeside}): a message with an id the view holds (the older turns kept,
 * `keptMessages`, the current turn, the system message, the provider head and the pinned
 * block), or one without an id (quoted by its position) at or past the cut. The head is
 * made again from the evidence left, in at most the room it held; what it frees goes to
 * the recalled block.
 */
function withoutShownEvidence(
  sources: ViewSources,
  current: PreparedTurn,
  chosen: ChosenOlderTurns,
  keptMessages: readonly BaseMessage[],
  block: PinnedBlock,
  cut: number,
): { chosen: ChosenOlderTurns; history: BaseMessage | null; evidenceShown: number; evidenceOmitted?: number } {
  const { shown, given, evidenceTokens } = sources.history;
  const same = { chosen, history: chosen.summaryIncluded ? shown : null, evidenceShown: 0 };
  if (!chosen.summaryIncluded || shown === null || given === null) return same;
  const ids = new Set<string>();
  const system = sources.fixed.systemMessage;
  for (const part of [system ? [system] : [], sources.providerHead.messages, chosen.head, keptMessages, current.messages, block.messages]) {
    for (const message of part) if (message.id !== undefined) ids.add(message.id);
  }
  // Evidence quotes by position in the whole conversation: the summarized prefix comes before the walk's messages.
  const from = cut >= sources.walk.lead ? cut + sources.prior.length : cut;
  const beside = historyBeside(given, shown, quotedIn(ids, from), evidenceTokens, sources.estimator);
  if (beside === undefined) return same;
  const { message } = beside;
  const head = message === null ? [] : historyHead(message, sources.options.recallToolName);
  const headTokens = message === null ? 0 : sources.estimator.estimateMessages(head);
  return { ...beside, chosen: { ...chosen, head, headTokens, summaryIncluded: message !== null }, history: message };
}
