import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { quotedMessageIds } from "../evidence/held-evidence.js";
import { historyHead } from "./head.js";
import { historyBeside, quotedIn } from "./history-evidence.js";
import type { MessageInput } from "../messages.js";
import type { FixedPart } from "./charge-fixed-part.js";
import type { ProviderHead } from "./provider-head.js";
import type { HistoryAllocation } from "./allocate-history.js";
import { chooseOlderTurns, keptOlderTurns, type ChosenOlderTurns, type KeptOlderTurns } from "./choose-older-turns.js";
import type { TurnWalk } from "./find-turns.js";
import type { OlderForms } from "./older-turns.js";
import { pinnedBlock, type PinnedBlock } from "./pinned-block.js";
import type { PinnedCandidates } from "./pinned.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { noRecall, recallBlock, type RecalledBlock } from "./recall.js";
import type { MessageDate, ViewOptions } from "./types.js";
import type { NoteOptions } from "./options.js";

/**
 * The most a brief takes: {@link BRIEF_TOKENS}, and at most a quarter of `recallBudget`
 * — a few lines, on the first call of a turn only. A brief is gone on the next call,
 * which re-sends what followed it: a larger one (1,000 tokens) cost the agent fixtures'
 * cached share more than it gained.
 *
 * @example
 * ```ts
 * briefBudget(4000); // 250 (the default recallBudget)
 * briefBudget(1000); // 250
 * briefBudget(400);  // 100
 * ```
 */
export function briefBudget(recallBudget: number): number {
  return Math.min(BRIEF_TOKENS, Math.floor(recallBudget / 4));
}

/** The most a brief takes under any `recallBudget` (see {@link briefBudget}). */
export const BRIEF_TOKENS = 250;

/** What {@link placeHistory} needs: the stages' results before the history is placed. */
export interface PlaceHistoryInput {
  walk: TurnWalk;
  /** The older turns in the forms the view chose (see `compactToFit`). */
  older: OlderForms;
  /** The history's room beside the current turn, allocated with the current turn's form (see `compactToFit`). */
  allocation: HistoryAllocation;
  /** Room for history: the limit less the charged fixed part and the current turn. */
  room: number;
  summaryHead: BaseMessage[];
  /** The history message `summaryHead` shows (before its head form), or null. */
  history: BaseMessage | null;
  /** The history message as given, before `evidenceShare` was applied (null when none). */
  given: BaseMessage | null;
  /** Most tokens the evidence may take: `evidenceShare` of the limit. */
  evidenceTokens: number;
  fixed: FixedPart;
  current: PreparedTurn;
  /** The provider head, sent right after the system message (see `providerHead`). */
  head: ProviderHead;
  pinned: PinnedCandidates;
  /** The summarized prefix, not in `walk.source` (see `priorMessages`). */
  prior: readonly MessageInput[];
  /** True when the current turn is long (some of its exchanges excerpted): its newest steps join the query. */
  longTurn: boolean;
  /**
   * How recall runs: `"block"`, in a reserve older turns leave (a conversational
   * stretch); `"brief"`, after an agent's tool turns (see `recallRuns`): no reserve, on
   * the first call of the turn only, for the request's words the view does not hold.
   * Both go right before the current turn.
   */
  recallAt: "block" | "brief";
  /** The application's message dates, for the recalled lines. */
  messageDate?: MessageDate | undefined;
  options: Pick<Required<ViewOptions>, "excerptBudget" | "dropStep" | "recallBudget" | "maxToolResultTokens"> & NoteOptions;
  estimator: Estimator;
}

/**
 * The history of the view as chosen: the older turns kept (with the summary or excerpts
 * before them), the pinned block and the recalled block. Nothing is assembled here: the
 * view is assembled once from these (see {@link assembleView}).
 */
export interface PlacedHistory {
  chosen: ChosenOlderTurns;
  /** The older turns `chosen` keeps, in their forms. */
  kept: KeptOlderTurns;
  /** Index in `walk.source` of the oldest message kept from history. */
  cut: number;
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
 * Place the history: stage 6 of {@link buildContext}. The room left beside the
 * current turn was allocated between its claims with the current turn's form (the
 * `allocation`, see {@link allocateHistory}; placing it decides nothing again):
 * the summary head, then — when older turns must go and `recallBudget` is above 0 —
 * a reserve of up to `recallBudget` (at most half the room) for the messages outside
 * the view that best match the request (see {@link recallBlock}), then excerpts of
 * dropped turns, then the newest whole older turns (see {@link chooseOlderTurns}).
 * The recalled block also takes whatever the turns' stable anchors leave unused. The
 * reserve depends on the room, never on what recall finds, so the head of the view
 * moves in the same steps as without it.
 * The pinned block holds the pinned messages the kept turns do not show. Nothing is
 * assembled here: {@link assembleView} puts the recalled block right before the current
 * turn, so the prefix before it stays where it was. After an
 * agent's tool turns (`recallAt: "brief"`) older turns leave no reserve, and only the
 * first call of the turn gets a brief: lines for the request's words the view does not
 * hold, in what room is left, at most {@link briefBudget} (250 tokens, a quarter of a smaller `recallBudget`).
 * The next call drops it, which costs the cache the request alone; the calls after
 * keep their prefix, and so does the next turn.
 *
 * @example
 * ```ts
 * const { chosen, kept, block, recalled } = placeHistory({
 *   walk, older, allocation, room, summaryHead, history, given, evidenceTokens, fixed, current, head, pinned, prior,
 *   longTurn: false, recallAt: "block", options, estimator,
 * });
 * ```
 */
export function placeHistory(input: PlaceHistoryInput): PlacedHistory {
  const { walk, older, room, estimator, prior } = input;
  const shift = prior.length;
  const brief = input.recallAt === "brief";
  const firstCall = !input.current.messages.some((m) => m.type === "ai");
  // Off, or on a later call after tool turns, recall reads nothing more of the conversation than the view does.
  const recalls = input.options.recallBudget > 0 && !(brief && !firstCall);
  // Allocated with a brief's options when recall is a brief (no reserve: the older turns stay exactly as without recall).
  const { allocation } = input;
  const chosen0 = chooseOlderTurns({ allocation, older, summaryHead: input.summaryHead });
  const kept = keptOlderTurns(chosen0, older.reached);
  const cut = chosen0.kept > 0 ? (walk.starts[chosen0.kept - 1] as number) : walk.currentStart;
  // A pinned item it looks up lies at or past the cut and before the current turn: in the kept turns.
  const block = pinnedBlock(input.pinned, cut, kept.messages, estimator);
  // An evidence excerpt is never shown beside the message it quotes: the room it held goes to recall.
  const { chosen, history: shownHistory, ...beside } = withoutShownEvidence(input, chosen0, kept.messages, block, cut);
  const placed = { chosen, kept, cut, block, history: shownHistory, ...beside };
  if (input.options.recallBudget === 0) return { ...placed, recalled: noRecall("off") };
  if (!allocation.dropped && shift === 0) return { ...placed, recalled: noRecall("nothing-left-out") };
  if (!recalls) return { ...placed, recalled: noRecall("later-call") };

  const conversation = shift > 0 ? [...walk.source.slice(0, walk.lead), ...prior, ...walk.source.slice(walk.lead)] : walk.source;
  const request = walk.currentStart < walk.n && walk.kind(walk.currentStart) === "human" ? walk.currentStart + shift : -1;
  // The first call of a turn may fill all the room left; the later calls of an agent's
  // tool loop keep to the reserve, so the block (and the prefix up to the newest step)
  // stays the same from call to call while the turn grows.
  const left = room - chosen.headTokens - kept.tokens;
  const shownIds = new Set<string>();
  for (const message of placed.block.messages) if (message.id !== undefined) shownIds.add(message.id);
  // Nor what the evidence at the head quotes: leaving it out of the evidence instead would
  // change the head of the view, and so the whole cached prefix, whenever recall changes.
  if (chosen.summaryIncluded && shownHistory !== null) for (const id of quotedMessageIds(shownHistory)) shownIds.add(id);
  const recalled = recallBlock({
    conversation, lead: walk.lead, end: cut + shift, request, shownIds, estimator,
    budget: brief ? Math.min(left, briefBudget(input.options.recallBudget)) : firstCall ? left : Math.min(left, allocation.relevance),
    queryFromTurn: input.longTurn,
    brief,
    messageDate: input.messageDate,
    recent: firstCall,
  });
  return { ...placed, recalled };
}

/**
 * The older part chosen without the evidence excerpts of messages the view shows (see
 * {@link historyBeside}): a message with an id the view holds (the older turns kept,
 * `keptMessages`, the current turn, the system message, the provider head and the pinned
 * block), or one without an id (quoted by its position) at or past the cut. The head is
 * made again from the evidence left, in at most the room it held; what it frees goes to
 * the recalled block.
 */
function withoutShownEvidence(input: PlaceHistoryInput, chosen: ChosenOlderTurns, keptMessages: readonly BaseMessage[], block: PinnedBlock, cut: number) {
  const same = { chosen, history: chosen.summaryIncluded ? input.history : null, evidenceShown: 0 };
  if (!chosen.summaryIncluded || input.history === null || input.given === null) return same;
  const ids = new Set<string>();
  const system = input.fixed.systemMessage;
  for (const part of [system ? [system] : [], input.head.messages, chosen.head, keptMessages, input.current.messages, block.messages]) {
    for (const message of part) if (message.id !== undefined) ids.add(message.id);
  }
  // Evidence quotes by position in the whole conversation: the summarized prefix comes before the walk's messages.
  const from = cut >= input.walk.lead ? cut + input.prior.length : cut;
  const beside = historyBeside(input.given, input.history, quotedIn(ids, from), input.evidenceTokens, input.estimator);
  if (beside === undefined) return same;
  const { message } = beside;
  const head = message === null ? [] : historyHead(message, input.options.recallToolName);
  const headTokens = message === null ? 0 : input.estimator.estimateMessages(head);
  return { ...beside, chosen: { ...chosen, head, headTokens, summaryIncluded: message !== null }, history: message };
}
