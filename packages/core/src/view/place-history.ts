import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { quotedMessageIds } from "../evidence/held-evidence.js";
import type { MessageInput } from "../messages.js";
import { assembleView, type AssembledView } from "./assemble-view.js";
import type { FixedPart } from "./charge-fixed-part.js";
import { allocateHistory } from "./allocate-history.js";
import { chooseOlderTurns, type ChosenOlderTurns } from "./choose-older-turns.js";
import type { TurnWalk } from "./find-turns.js";
import type { OlderFit, OlderTurns } from "./older-turns.js";
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
  older: OlderTurns;
  fit: OlderFit;
  /** Room for history: the limit less the charged fixed part and the current turn. */
  room: number;
  summaryHead: BaseMessage[];
  /** Tokens of `summaryHead`, as the compaction stage counted them (0 when empty). */
  summaryTokens: number;
  /** `summaryHead` is durable evidence alone, no summary (see `AllocateHistoryInput.evidenceOnly`). */
  evidenceOnly: boolean;
  fixed: FixedPart;
  current: PreparedTurn;
  leadKept: number;
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

/** The history of the view: the older turns kept, the view assembled, the pinned block and the recalled block. */
export interface PlacedHistory {
  chosen: ChosenOlderTurns;
  assembled: AssembledView;
  /** Index in `walk.source` of the oldest message kept from history. */
  cut: number;
  block: PinnedBlock;
  recalled: RecalledBlock;
}

/**
 * Place the history: stage 6 of {@link buildContext}. The room left beside the
 * current turn is allocated once between its claims (see {@link allocateHistory}):
 * the summary head, then — when older turns must go and `recallBudget` is above 0 —
 * a reserve of up to `recallBudget` (at most half the room) for the messages outside
 * the view that best match the request (see {@link recallBlock}), then excerpts of
 * dropped turns, then the newest whole older turns (see {@link chooseOlderTurns}).
 * The recalled block also takes whatever the turns' stable anchors leave unused. The
 * reserve depends on the room, never on what recall finds, so the head of the view
 * moves in the same steps as without it.
 * The view is then assembled with the pinned block; the recalled block goes right
 * before the current turn, so the prefix before it stays where it was. After an
 * agent's tool turns (`recallAt: "brief"`) older turns leave no reserve, and only the
 * first call of the turn gets a brief: lines for the request's words the view does not
 * hold, in what room is left, at most {@link briefBudget} (250 tokens, a quarter of a smaller `recallBudget`).
 * The next call drops it, which costs the cache the request alone; the calls after
 * keep their prefix, and so does the next turn.
 *
 * @example
 * ```ts
 * const { chosen, assembled, block, recalled } = placeHistory({ walk, older, fit, room, summaryHead, summaryTokens, fixed, current, leadKept, pinned, prior, longTurn: false, recallAt: "block", options, estimator });
 * ```
 */
export function placeHistory(input: PlaceHistoryInput): PlacedHistory {
  const { walk, older, room, estimator, prior } = input;
  const shift = prior.length;
  const brief = input.recallAt === "brief";
  const firstCall = !input.current.messages.some((m) => m.type === "ai");
  // Off, or on a later call after tool turns, recall reads nothing more of the conversation than the view does.
  const recalls = input.options.recallBudget > 0 && !(brief && !firstCall);
  // A brief takes no reserve: the older turns stay exactly as without recall.
  const allocation = allocateHistory({ older, room, summaryTokens: input.summaryTokens, evidenceOnly: input.evidenceOnly, fit: input.fit, options: brief ? { ...input.options, recallBudget: 0 } : input.options, estimator });
  const chosen = chooseOlderTurns({ walk, allocation, summaryHead: input.summaryHead, options: input.options, shift, estimator });
  const assembled = assembleView(input.fixed, chosen, older.prepared, input.current, input.leadKept);
  const cut = chosen.kept > 0 ? (walk.starts[chosen.kept - 1] as number) : walk.currentStart;
  const placed = { chosen, assembled, cut, block: pinnedBlock(input.pinned, cut, assembled.messages, estimator) };
  if (input.options.recallBudget === 0) return { ...placed, recalled: noRecall("off") };
  if (!allocation.dropped && shift === 0) return { ...placed, recalled: noRecall("nothing-left-out") };
  if (!recalls) return { ...placed, recalled: noRecall("later-call") };

  const conversation = shift > 0 ? [...walk.source.slice(0, walk.lead), ...prior, ...walk.source.slice(walk.lead)] : walk.source;
  const request = walk.currentStart < walk.n && walk.kind(walk.currentStart) === "human" ? walk.currentStart + shift : -1;
  // The first call of a turn may fill all the room left; the later calls of an agent's
  // tool loop keep to the reserve, so the block (and the prefix up to the newest step)
  // stays the same from call to call while the turn grows.
  const left = room - assembled.historyTokens;
  const shownIds = new Set<string>();
  for (const message of placed.block.messages) if (message.id !== undefined) shownIds.add(message.id);
  // Nor what the evidence at the head quotes: leaving it out of the evidence instead would
  // change the head of the view, and so the whole cached prefix, whenever recall changes.
  const history = chosen.summaryIncluded ? input.summaryHead[1] : undefined;
  if (history !== undefined) for (const id of quotedMessageIds(history)) shownIds.add(id);
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
