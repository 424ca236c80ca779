import type { ResolvedBudget } from "../budget.js";
import type { AssembledView } from "./assemble-view.js";
import { shownOlderTurn, type ViewAllocation, type ViewSources } from "./allocate-view.js";
import { historyHolds } from "../summarize/summary-message.js";
import { shownResultCounts } from "./tool-result-compactor.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { sumCounts, type TurnCounts } from "./turn-counts.js";
import type { ContextReport, HistoryReport } from "./types.js";

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
  const { sources, allocation, assembled, budget } = input;
  const { walk, fixed, providerHead: head } = sources;
  const { turn, chosen, block: pinned, cut } = allocation;
  const { current } = turn;
  const recall = allocation.recalled.report;
  const olderRead = allocation.older.read;
  const summarized = sources.prior.length;
  const { read, changed } = leftOutAndChanged(input);
  const counts = read.segments;
  let exchangesRead = current.exchanges + counts.unfinishedExchanges;
  for (const older of olderRead) exchangesRead += older.exchanges;
  const unread = Math.max(0, walk.oldestRead - walk.lead);
  const summaryTokens = chosen.summaryIncluded ? chosen.headTokens : 0;
  const hasCurrent = walk.currentStart < walk.n ? 1 : 0;
  const n = walk.n;
  const { outside: pinnedOutside, unread: keptUnread } = pinnedCounts(pinned.inputStarts, cut, walk.oldestRead);
  const kept = assembled.keptMessages + pinnedOutside;
  const readMessages = n - unread - head.compacted;
  const evidence = evidenceOf(input);
  const history = input.given.given
    ? chosen.summaryIncluded
      ? { given: true, included: true }
      : { given: true, included: false, reason: historyLeftOut(evidence) }
    : { given: false, included: false };
  const shown = chosen.summaryIncluded ? evidence.holds : { summary: false, evidence: false };
  // Results of the older turns shown (as assembleView shows them), each once; the current turn's as its fit left them.
  const olderShown: PreparedTurn[] = [];
  for (let j = 0; j < chosen.kept; j++) olderShown.push(shownOlderTurn(chosen, turn.older.reached, j));
  const older = shownResultCounts(olderShown, olderRead);
  // The current turn's results, as its form shows them.
  const shownNow = turn.results;
  return {
    limit: budget.promptLimit,
    budget,
    tokens: {
      system: fixed.systemTokens,
      memories: fixed.memoryTokens,
      tools: fixed.toolTokens,
      pinned: pinned.tokens,
      summary: summaryTokens,
      history: head.tokens + assembled.historyTokens - summaryTokens,
      current: current.tokens,
      recall: recall.tokens,
      total: fixed.tokens + pinned.tokens + head.tokens + assembled.historyTokens + recall.tokens + current.tokens,
    },
    messages: {
      inCheckpoint: summarized + n,
      summarized,
      providerCompacted: head.compacted,
      read: readMessages,
      unread,
      kept,
      dropped: readMessages - (kept - keptUnread),
    },
    exchanges: { read: exchangesRead, kept: assembled.keptExchanges, dropped: exchangesRead - assembled.keptExchanges },
    turns: { read: olderRead.length + hasCurrent, kept: chosen.kept + hasCurrent, dropped: olderRead.length - chosen.kept },
    currentTurn: turn.currentTurn,
    recall,
    allHistoryRead: unread === 0,
    orphanResults: counts.orphanResults,
    unfinishedCalls: counts.unfinishedCalls,
    misplacedSystemMessages: counts.misplacedSystem,
    excerpted: changed.excerpted,
    imagesReplaced: changed.imagesReplaced,
    memories: { in: input.memoriesIn, kept: fixed.memoriesKept },
    history: { ...history, ...shown, evidenceOmitted: evidence.omitted, evidenceShown: evidence.shown },
    droppedTurnExcerpts: chosen.excerptCount,
    toolResults: { cleared: shownNow.cleared + older.cleared, compacted: shownNow.compacted + older.compacted, narrowed: shownNow.narrowed },
    labelsInserted: changed.labels,
    reasoningCleared: read.reasoningCleared,
    cut,
    pinned: pinned.report,
    elapsedMs: performance.now() - input.started,
  };
}

/**
 * The pinned messages before the cut (`outside`) and before the oldest message the walk read
 * (`unread`). A pinned copy of a message whose turn is kept (its text excerpted there) is the
 * same message twice: counted once. Pins from the part the walk never reached are kept, not read.
 */
function pinnedCounts(inputStarts: readonly number[], cut: number, oldestRead: number): { outside: number; unread: number } {
  let outside = 0;
  let unread = 0;
  for (const start of inputStarts) {
    if (start < cut) outside++;
    if (start < oldestRead) unread++;
  }
  return { outside, unread };
}

/** The evidence as shown: what the history message shown holds, and the excerpts left out for their share and beside what the view shows. */
function evidenceOf({ allocation, given }: ReportInput): { holds: { summary: boolean; evidence: boolean }; omitted: number; shown: number } {
  return {
    holds: allocation.history !== null ? historyHolds(allocation.history) : given.holds,
    omitted: allocation.evidenceOmitted ?? given.evidenceOmitted,
    shown: allocation.evidenceShown + given.besideRequest,
  };
}

/**
 * What preparing left out of the turns the view read (`read`: the head, the current turn,
 * every older turn read), and what the view changed in the parts it shows (`changed`: the
 * current turn in its form, the older turns kept — every form of a turn carries its counts —
 * the pinned block, the recalled block's label).
 */
function leftOutAndChanged({ sources, allocation }: ReportInput): { read: TurnCounts; changed: Pick<TurnCounts, "excerpted" | "imagesReplaced" | "labels"> } {
  const { turn, chosen, block: pinned } = allocation;
  const olderRead = allocation.older.read;
  const read = sumCounts([sources.providerHead.counts, turn.current.counts, ...olderRead.map((older) => older.counts)]);
  const shown = sumCounts([turn.current.counts, ...olderRead.slice(0, chosen.kept).map((older) => older.counts)]);
  return {
    read,
    changed: {
      excerpted: shown.excerpted + turn.excerpted,
      imagesReplaced: shown.imagesReplaced + pinned.imagesReplaced,
      labels: shown.labels + turn.labels + pinned.labels + (allocation.recalled.messages.length > 0 ? 1 : 0),
    },
  };
}

/** Why a history message given is not in the view (see `HistoryReport.reason`). */
function historyLeftOut(evidence: ReturnType<typeof evidenceOf>): NonNullable<HistoryReport["reason"]> {
  if (evidence.shown > 0 && !evidence.holds.summary) return "shown";
  return evidence.omitted > 0 && !evidence.holds.evidence && !evidence.holds.summary ? "evidence-share" : "does-not-fit";
}
