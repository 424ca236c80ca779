import type { ResolvedBudget } from "../budget.js";
import type { AssembledView } from "./assemble-view.js";
import type { FixedPart } from "./charge-fixed-part.js";
import { shownOlderTurn, type ChosenOlderTurns, type ViewAllocation, type ViewSources } from "./allocate-view.js";
import { historyHolds } from "../summarize/summary-message.js";
import { shownResultCounts } from "./tool-result-compactor.js";
import type { CurrentResults } from "./current-forms.js";
import type { TurnWalk } from "./find-turns.js";
import type { PinnedBlock } from "./pinned-block.js";
import type { ProviderHead } from "./provider-head.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { sumCounts, type TurnCounts } from "./turn-counts.js";
import type { RecallReport } from "./recall.js";
import type { ContextReport, CurrentTurnReport, HistoryReport } from "./types.js";

/**
 * What {@link reportView} reads: the view's sources and their allocation, the view as
 * assembled, and what only the input knows — the history message as given (`given`: one
 * was given, what it holds, the evidence its share left out, the excerpts of the current
 * turn's mandatory messages left out of it), the memories given, when the build started.
 */
export interface ReportInput {
  budget: ResolvedBudget;
  sources: ViewSources;
  allocation: ViewAllocation;
  assembled: AssembledView;
  given: { given: boolean; holds: { summary: boolean; evidence: boolean }; evidenceOmitted: number; besideRequest: number };
  memoriesIn: number;
  started: number;
}

/** The facts the report is read off (see {@link factsOf}). */
interface ViewFacts {
  budget: ResolvedBudget;
  walk: TurnWalk;
  fixed: FixedPart;
  /** Memories given. */
  memoriesIn: number;
  summaryGiven: boolean;
  /** What the history message shown holds (see `historyHolds`). */
  holds: { summary: boolean; evidence: boolean };
  /** Evidence excerpts left out to keep the evidence within `evidenceShare` (see `historyWithin`). */
  evidenceOmitted: number;
  /** Evidence excerpts left out because the view shows the message they quote. */
  evidenceShown: number;
  /** Messages before `messages` that the summary stands for (`priorMessages`). */
  summarized: number;
  /** The current turn's results as its form shows them. */
  currentResults: CurrentResults;
  /** What the current turn's form changed beyond its preparing (see `CompactedToFit`): labels gained (or lost), prose excerpted. */
  currentChanged: { labels: number; excerpted: number };
  /** The older turns the view read, as prepared, newest first. */
  olderRead: readonly PreparedTurn[];
  /** The older turns in the forms the view chose, newest first, as far as it reached them (see `OlderForms.reached`). */
  olderShown: readonly PreparedTurn[];
  current: PreparedTurn;
  currentTurn: CurrentTurnReport;
  chosen: ChosenOlderTurns;
  /** What the recall stage brought back. */
  recall: RecallReport;
  /** The recalled block is in the view (its label counted). */
  recalledShown: boolean;
  assembled: AssembledView;
  /** The pinned block placed after the system message. */
  pinned: PinnedBlock;
  /** The provider head sent after the system message (see `providerHead`). */
  providerHead: ProviderHead;
  /** `performance.now()` when the build started. */
  started: number;
}

/**
 * Report the view, read off its allocation (see `allocateView`). Every estimate, count and
 * omission the stages recorded; never message content. What preparing left out (orphan
 * results, unfinished calls, misplaced system messages, cleared reasoning) is summed over
 * the turns the view read; what it changed (excerpts, images, labels) over the parts the
 * view shows: the current turn, the older turns kept, the pinned and recalled blocks.
 *
 * @example
 * ```ts
 * const report = reportView({ budget, sources, allocation, assembled, given, memoriesIn: memories.length, started });
 * ```
 */
export function reportView(input: ReportInput): ContextReport {
  const facts = factsOf(input);
  const { walk, fixed, current, chosen, assembled } = facts;
  const { read, changed } = leftOutAndChanged(facts);
  const counts = read.segments;
  let exchangesRead = current.exchanges + counts.unfinishedExchanges;
  for (const turn of facts.olderRead) exchangesRead += turn.exchanges;
  const unread = Math.max(0, walk.oldestRead - walk.lead);
  const head = facts.providerHead;
  const summaryTokens = chosen.summaryIncluded ? chosen.headTokens : 0;
  const hasCurrent = walk.currentStart < walk.n ? 1 : 0;
  const olderRead = facts.olderRead.length;
  const n = walk.n;
  const cut = chosen.kept > 0 ? (walk.starts[chosen.kept - 1] as number) : walk.currentStart;
  // A pinned copy of a message whose turn is kept (its text excerpted there) is the same
  // message twice: counted once. Pins from the part the walk never reached are kept, not read.
  let pinnedOutside = 0;
  let keptUnread = 0;
  for (const start of facts.pinned.inputStarts) {
    if (start < cut) pinnedOutside++;
    if (start < walk.oldestRead) keptUnread++;
  }
  const kept = assembled.keptMessages + pinnedOutside;
  const readMessages = n - unread - head.compacted;
  const history = facts.summaryGiven
    ? chosen.summaryIncluded
      ? { given: true, included: true }
      : { given: true, included: false, reason: historyLeftOut(facts) }
    : { given: false, included: false };
  const shown = chosen.summaryIncluded ? facts.holds : { summary: false, evidence: false };
  // Results of the older turns shown (as assembleView shows them), each once; the current turn's as its fit left them.
  const olderShown: PreparedTurn[] = [];
  for (let j = 0; j < chosen.kept; j++) olderShown.push(shownOlderTurn(chosen, facts.olderShown, j));
  const older = shownResultCounts(olderShown, facts.olderRead);
  // The current turn's results, as its form shows them.
  const shownNow = facts.currentResults;
  return {
    limit: facts.budget.promptLimit,
    budget: facts.budget,
    tokens: {
      system: fixed.systemTokens,
      memories: fixed.memoryTokens,
      tools: fixed.toolTokens,
      pinned: facts.pinned.tokens,
      summary: summaryTokens,
      history: head.tokens + assembled.historyTokens - summaryTokens,
      current: current.tokens,
      recall: facts.recall.tokens,
      total: fixed.tokens + facts.pinned.tokens + head.tokens + assembled.historyTokens + facts.recall.tokens + current.tokens,
    },
    messages: {
      inCheckpoint: facts.summarized + n,
      summarized: facts.summarized,
      providerCompacted: head.compacted,
      read: readMessages,
      unread,
      kept,
      dropped: readMessages - (kept - keptUnread),
    },
    exchanges: { read: exchangesRead, kept: assembled.keptExchanges, dropped: exchangesRead - assembled.keptExchanges },
    turns: { read: olderRead + hasCurrent, kept: chosen.kept + hasCurrent, dropped: olderRead - chosen.kept },
    currentTurn: facts.currentTurn,
    recall: facts.recall,
    allHistoryRead: unread === 0,
    orphanResults: counts.orphanResults,
    unfinishedCalls: counts.unfinishedCalls,
    misplacedSystemMessages: counts.misplacedSystem,
    excerpted: changed.excerpted,
    imagesReplaced: changed.imagesReplaced,
    memories: { in: facts.memoriesIn, kept: fixed.memoriesKept },
    history: { ...history, ...shown, evidenceOmitted: facts.evidenceOmitted, evidenceShown: facts.evidenceShown },
    droppedTurnExcerpts: chosen.excerptCount,
    toolResults: { cleared: shownNow.cleared + older.cleared, compacted: shownNow.compacted + older.compacted, narrowed: shownNow.narrowed },
    labelsInserted: changed.labels,
    reasoningCleared: read.reasoningCleared,
    cut,
    pinned: facts.pinned.report,
    elapsedMs: performance.now() - facts.started,
  };
}

/** The facts of a view, each read off its sources, its allocation or the history message as given. */
function factsOf(input: ReportInput): ViewFacts {
  const { sources, allocation, given } = input;
  const { turn, recalled } = allocation;
  return {
    budget: input.budget,
    walk: sources.walk,
    fixed: sources.fixed,
    memoriesIn: input.memoriesIn,
    summaryGiven: given.given,
    holds: allocation.history !== null ? historyHolds(allocation.history) : given.holds,
    evidenceOmitted: allocation.evidenceOmitted ?? given.evidenceOmitted,
    evidenceShown: allocation.evidenceShown + given.besideRequest,
    summarized: sources.prior.length,
    currentResults: turn.results,
    currentChanged: { labels: turn.labels, excerpted: turn.excerpted },
    olderRead: allocation.older.read,
    olderShown: turn.older.reached,
    current: turn.current,
    currentTurn: turn.currentTurn,
    chosen: allocation.chosen,
    recall: recalled.report,
    recalledShown: recalled.messages.length > 0,
    assembled: input.assembled,
    pinned: allocation.block,
    providerHead: sources.providerHead,
    started: input.started,
  };
}

/**
 * What preparing left out of the turns the view read (`read`: the head, the current turn,
 * every older turn read), and what the view changed in the parts it shows (`changed`: the
 * current turn in its form, the older turns kept — every form of a turn carries its counts —
 * the pinned block, the recalled block's label).
 */
function leftOutAndChanged(facts: ViewFacts): { read: TurnCounts; changed: Pick<TurnCounts, "excerpted" | "imagesReplaced" | "labels"> } {
  const { current, olderRead, chosen, currentChanged, pinned } = facts;
  const read = sumCounts([facts.providerHead.counts, current.counts, ...olderRead.map((turn) => turn.counts)]);
  const shown = sumCounts([current.counts, ...olderRead.slice(0, chosen.kept).map((turn) => turn.counts)]);
  return {
    read,
    changed: {
      excerpted: shown.excerpted + currentChanged.excerpted,
      imagesReplaced: shown.imagesReplaced + pinned.imagesReplaced,
      labels: shown.labels + currentChanged.labels + pinned.labels + (facts.recalledShown ? 1 : 0),
    },
  };
}

/** Why a history message given is not in the view (see `HistoryReport.reason`). */
function historyLeftOut(facts: ViewFacts): NonNullable<HistoryReport["reason"]> {
  if (facts.evidenceShown > 0 && !facts.holds.summary) return "shown";
  return facts.evidenceOmitted > 0 && !facts.holds.evidence && !facts.holds.summary ? "evidence-share" : "does-not-fit";
}
