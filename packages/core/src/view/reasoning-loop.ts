import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { holdsReasoning, withOutputMatchingContent } from "../provider-content.js";
import { toBaseMessage, type MessageInput } from "../messages.js";
import type { TurnWalk } from "./find-turns.js";
import { historyBesideShown } from "./history-evidence.js";
import { prepareTurn, type PreparedTurn } from "./prepare-turn.js";
import type { TurnCounts } from "./turn-counts.js";
import { frontLayout, leftParts, withoutFront, type FrontInputs, type FrontLayout, type FrontPart } from "./loop-front.js";
import type { BuildContextInput, ContextReport, ContextView, HistoryReport } from "./types.js";

// Anthropic binds each thinking block to everything sent before it: a later call of the
// same tool loop that sends another prefix (a recall brief gone, older turns moved at an
// anchor, an older result cleared) is refused; leaving whole messages out from the front
// is allowed. So a loop whose replies carry reasoning is sent as its first call's view
// with the loop appended; once the loop outgrows that room, whole parts of the first view
// leave from its front (see loop-front.ts), never an edit.

/** The tool loop of a current turn: its messages after the request, `[start, walk.n)`. */
export interface ReasoningLoop {
  /** Index of the loop's first message (the first reply to the request). */
  start: number;
}

/**
 * The tool loop whose replies carry provider reasoning (Anthropic thinking or redacted
 * thinking, OpenAI and v1 reasoning), if the current turn is one: a request followed by
 * assistant messages and tool results only, not opened by a provider compaction.
 * Undefined otherwise, and when a turn summary is given (a long turn already narrowed).
 *
 * @example
 * ```ts
 * const loop = reasoningLoop(walk, input.turnSummary !== undefined);
 * if (loop !== undefined) view = loopAppended(…);
 * ```
 */
export function reasoningLoop(walk: TurnWalk, turnSummaryGiven: boolean): ReasoningLoop | undefined {
  const { currentStart, n } = walk;
  if (turnSummaryGiven || currentStart >= n || walk.kind(currentStart) !== "human") return undefined;
  if (walk.providerHead !== undefined && walk.providerHead.start >= currentStart) return undefined;
  let start = currentStart + 1;
  while (start < n && walk.kind(start) === "human") start++;
  if (start >= n) return undefined;
  let reasoning = false;
  for (let i = start; i < n; i++) {
    const kind = walk.kind(i);
    if (kind !== "ai" && kind !== "tool") return undefined;
    if (!reasoning && kind === "ai") reasoning = holdsReasoning(toBaseMessage(walk.source[i] as MessageInput, i));
  }
  return reasoning ? { start } : undefined;
}

/** The input of a loop's first call, and the evidence excerpts it left out because the loop's messages are shown. */
export interface FirstCallInput {
  input: BuildContextInput;
  /** Excerpts of the history message that quote a message of the loop. */
  evidenceShown: number;
}

/**
 * The input of the loop's first call: the messages up to its first reply, and the
 * history message without evidence quoting a message of the loop (the first call could
 * not quote it, and the loop's messages are shown).
 *
 * @example
 * ```ts
 * const { input: firstInput } = firstCallInput(input, loop);
 * ```
 */
export function firstCallInput(input: BuildContextInput, loop: ReasoningLoop): FirstCallInput {
  const prefix: BuildContextInput = { ...input, messages: input.messages.slice(0, loop.start) };
  const given = input.historyMessage;
  if (given === undefined || given === null) return { input: prefix, evidenceShown: 0 };
  const { message, evidenceShown } = historyBesideShown(given, input.messages, loop.start, input.priorMessages?.length ?? 0);
  return { input: { ...prefix, historyMessage: message }, evidenceShown };
}

/** The loop's turn as {@link loopAppended} appends it, prepared once (see {@link loopParts}). */
export interface LoopParts {
  /** The request: the turn's messages before the loop. */
  request: PreparedTurn;
  /** The whole turn, the loop included, its messages as they are. */
  turn: PreparedTurn;
}

/**
 * The loop's turn prepared as {@link loopAppended} appends it, before any view is built;
 * undefined when no view could go on from its first call: the loop holds what a view
 * leaves out (orphan results, unfinished calls, a misplaced system message, a label), or
 * the request and the loop alone exceed `limit`. The view is then built once, as any
 * other, not first as the loop's first call's.
 *
 * @example
 * ```ts
 * const parts = loopParts(walk, loop, estimator, imageInputs, budget.promptLimit);
 * if (parts !== undefined) view = loopAppended({ parts, first, evidenceShown, dropStep, started });
 * ```
 */
export function loopParts(walk: TurnWalk, loop: ReasoningLoop, estimator: Estimator, imageInputs: boolean, limit: number): LoopParts | undefined {
  const limits = { maxTextTokens: Infinity, maxProseTokens: Infinity };
  const request = prepareTurn({ walk, estimator, imageInputs, limits }, walk.currentStart, loop.start, true);
  const turn = prepareTurn({ walk, estimator, imageInputs, limits }, walk.currentStart, walk.n, true);
  if (!clean(turn.counts, request.counts) || turn.messages.length - request.messages.length !== walk.n - loop.start) return undefined;
  // The first view holds the request whole: with the loop appended it is over the limit whatever leaves its front.
  return turn.tokens > limit ? undefined : { request, turn };
}

/** What {@link loopAppended} goes on from. */
export interface LoopInputs {
  /** The loop's turn, prepared (see {@link loopParts}). */
  parts: LoopParts;
  /** The loop's first call's view (see {@link firstCallInput}) and what its allocation chose. */
  first: { view: ContextView; front: FrontInputs };
  /** Evidence excerpts {@link firstCallInput} left out. */
  evidenceShown: number;
  /** The view's `dropStep`: parts leave in steps of this share of their tokens. */
  dropStep: number;
  started: number;
}

/**
 * The loop's first call's view with the loop appended, its messages as they are (copies,
 * reasoning kept). When that is over the limit, whole parts of the first view leave from
 * its front (see {@link FrontPart}), oldest first, until the loop fits: each later call
 * leaves as many or more, so the view changes only where the loop outgrows its room,
 * and never by editing a message. Undefined when not even every part leaving frees enough,
 * or when the view after them would not open with a user message (the view is then built
 * as any other); {@link loopParts} says beforehand when no first view is worth building.
 * The report is the first view's, with
 * the loop's messages, exchanges and tokens added and the parts that left taken out.
 *
 * @example
 * ```ts
 * const parts = loopParts(walk, loop, estimator, imageInputs, limit);
 * const { input: firstInput, evidenceShown } = firstCallInput(input, loop);
 * const view = parts && loopAppended({ parts, first: allocatedView(firstInput, …), evidenceShown, dropStep, started });
 * ```
 */
export function loopAppended(inputs: LoopInputs): ContextView | undefined {
  const view = appendedView(inputs);
  if (view !== undefined) firstReports.set(view, inputs.first.view.report);
  return view;
}

/** The first call's report of each view {@link loopAppended} made. */
const firstReports = new WeakMap<ContextView, ContextReport>();

/**
 * The report the context manager decides on: for a view that goes on from its
 * reasoning loop's first call (see {@link loopAppended}), that call's report, so each
 * later call decides as the first did — a summary, the form of older results, the held
 * evidence — and the prefix the loop is bound to holds; for any other view, its own.
 *
 * @example
 * ```ts
 * if (wantsSummary(decidingReport(view), { summarizer, summarize, harder, trigger })) …
 * ```
 */
export function decidingReport(view: ContextView): ContextReport {
  return firstReports.get(view) ?? view.report;
}

function appendedView(inputs: LoopInputs): ContextView | undefined {
  const { first, parts } = inputs;
  const { request, turn } = parts;
  const added = turn.tokens - request.tokens;
  const { view } = first;
  // Parts leave from the front until the loop fits, in steps (see leftParts), and the view after them opens with a user message.
  const over = view.report.tokens.total + added - view.report.limit;
  const layout: FrontLayout = over > 0 ? frontLayout(first.front) : { before: first.front.afterHead, parts: [] };
  const left = leftParts(over, layout.parts.map((part) => part.tokens), inputs.dropStep);
  if (left === undefined) return undefined;
  let at = layout.before;
  for (let i = 0; i < left; i++) at += (layout.parts[i] as FrontPart).messages;
  if (left > 0 && left < layout.parts.length && view.messages[at]?.type !== "human") return undefined;
  const appended = turn.messages.slice(request.messages.length).map(withOutputMatchingContent);
  const shown = [...view.messages.slice(0, layout.before), ...view.messages.slice(at)];
  const dropped = { parts: layout.parts.slice(0, left), messages: view.messages.slice(layout.before, at) };
  const report = withoutFront(view.report, dropped);
  const exchanges = turn.exchanges - request.exchanges;
  const count = appended.length;
  const m = report.messages;
  const history = inputs.evidenceShown === 0 ? report.history : historyBeside(report.history, inputs.evidenceShown);
  return {
    messages: [...shown, ...appended] as BaseMessage[],
    report: {
      ...report,
      tokens: { ...report.tokens, current: report.tokens.current + added, total: report.tokens.total + added },
      messages: { ...m, inCheckpoint: m.inCheckpoint + count, read: m.read + count, kept: m.kept + count },
      exchanges: { ...report.exchanges, read: report.exchanges.read + exchanges, kept: report.exchanges.kept + exchanges },
      currentTurn: { ...report.currentTurn, exchanges: report.currentTurn.exchanges + exchanges, kept: report.currentTurn.kept + exchanges },
      history,
      imagesReplaced: report.imagesReplaced + turn.counts.imagesReplaced - request.counts.imagesReplaced,
      elapsedMs: performance.now() - inputs.started,
    },
  };
}

/** The history report of a view whose evidence quoted the loop's messages (left out, as any view leaves out excerpts of messages it shows). */
function historyBeside(history: HistoryReport, evidenceShown: number): HistoryReport {
  const shown = history.evidenceShown + evidenceShown;
  // Evidence that quoted only the loop's messages leaves nothing to show: given, and left out as shown.
  return history.given ? { ...history, evidenceShown: shown } : { ...history, given: true, included: false, reason: "shown", evidenceShown: shown };
}

/** The loop adds nothing a view would leave out or label: no orphan, no unfinished call, no misplaced system message, no label. */
function clean(turn: TurnCounts, request: TurnCounts): boolean {
  const a = turn.segments;
  const b = request.segments;
  return (
    a.orphanResults === b.orphanResults &&
    a.unfinishedCalls === b.unfinishedCalls &&
    a.unfinishedExchanges === b.unfinishedExchanges &&
    a.misplacedSystem === b.misplacedSystem &&
    turn.labels === request.labels
  );
}
