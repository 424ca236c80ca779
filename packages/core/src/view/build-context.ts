import { type BaseMessage } from "@langchain/core/messages";
import { checkTurnSummary } from "./turn-stand-in.js";
import { ContextViewError, describeValue, refuseRenamed } from "../errors.js";
import { checkEstimator, createEstimator, type Estimator } from "../estimate.js";
import { checkMessageArray } from "../messages.js";
import { breakpointEnds, markCacheBreakpoints } from "./cache-breakpoints.js";
import { chargeFixedPart } from "./charge-fixed-part.js";
import { findTurns, type TurnWalk } from "./find-turns.js";
import { historyHead } from "./head.js";
import { historyHolds } from "../summarize/summary-message.js";
import { historyBesideShown, historyWithin, historyWithout, type HistoryWithout } from "./history-evidence.js";
import { OlderTurns } from "./older-turns.js";
import { budgetOf, resolveViewOptions } from "./options.js";
import { recallToolNameIn } from "../recall/bound-tool.js";
import { prepareTurn, type PrepareContext } from "./prepare-turn.js";
import { collectPinned } from "./pinned.js";
import { allocateView, type ViewSources } from "./allocate-view.js";
import { assembleView } from "./assemble-view.js";
import { checkMessageDate } from "./recall-date.js";
import { recallRuns } from "./recall-gate.js";
import { recallQuery } from "./recall.js";
import { reportView } from "./report-view.js";
import { withOutputMatchingContent } from "../provider-content.js";
import { providerHead } from "./provider-head.js";
import type { FrontInputs } from "./loop-front.js";
import { firstCallInput, loopAppended, loopParts, reasoningLoop } from "./reasoning-loop.js";
import type { BuildContextInput, ContextView, MessageDate, ViewOptions } from "./types.js";
import type { ResolvedBudget } from "../budget.js";

const defaultEstimator = createEstimator();

/**
 * Build a bounded model view of a conversation: a copy that fits the prompt limit,
 * keeps the current request whole, keeps every tool call with all its results, and
 * reports every estimate, count and omission (never message content).
 *
 * It walks from the newest message back and stops once the budget is spent, so it
 * costs what the view keeps, not what the history holds: messages older than the
 * walk are neither read nor validated, and are counted in `report.messages.unread`.
 * Synchronous and deterministic; the input is never mutated. Throws a
 * {@link ContextBudgetError} (a LangChain `ContextOverflowError`) when the mandatory
 * part does not fit, and `ContextViewError` (`INVALID_MESSAGES`/`INVALID_OPTION`)
 * for bad input.
 *
 * @example
 * ```ts
 * const { messages, report } = buildContext({
 *   messages: state.messages,
 *   systemPrompt: "You are a careful finance assistant.",
 *   tools,
 *   budget: { promptBudget: 8000 },
 * });
 * const reply = await model.invoke(messages);
 * console.log(report.tokens.total, "/", report.limit);
 * ```
 *
 * One call reads top to bottom: {@link findTurns} → the sources, each proposing its candidates
 * ({@link chargeFixedPart}, {@link collectPinned}, {@link prepareTurn} for the current turn,
 * {@link OlderTurns}, the history message) → {@link allocateView}, which chooses every
 * candidate's form once → {@link assembleView} → {@link reportView}, read off the allocation.
 * A tool loop whose replies carry provider reasoning is sent as its first call's view with the loop appended,
 * while that fits ({@link reasoningLoop}, {@link loopAppended}).
 */
export function buildContext(input: BuildContextInput): ContextView {
  return checkedView(input, false);
}

/**
 * {@link buildContext}, every input checked as it checks them, with what only a context
 * manager knows: whether it summarizes the turns the view leaves out (see
 * {@link ResolvedViewSettings.summarizes}). For rebuilding a recorded view.
 *
 * @example
 * ```ts
 * const view = checkedView(input, record.options.summarizes === true);
 * ```
 */
export function checkedView(input: BuildContextInput, summarizes: boolean): ContextView {
  const started = performance.now();
  if (input === null || typeof input !== "object") {
    throw new ContextViewError("INVALID_MESSAGES", `Expected the input of buildContext to be an object with \`messages\`, got ${describeValue(input)}`);
  }
  checkMessageArray(input.messages);
  refuseRenamed(input, { summaryMessage: "historyMessage" });
  checkTurnSummary(input.turnSummary);
  const resolved: ResolvedViewSettings = {
    budget: budgetOf(input.budget),
    estimator: checkEstimator(input.estimator, "estimator") ?? defaultEstimator,
    options: resolveViewOptions(input),
    messageDate: checkMessageDate(input.messageDate, "messageDate"),
    summarizes,
  };
  return viewWithin(input, resolved, started);
}

/**
 * What {@link buildContext} resolves from its input before it builds: the budget, the
 * estimator, every view setting with its default, and `messageDate`. The context manager
 * resolves them once per request, from settings it validated, and builds each view of the
 * request with {@link buildResolvedView}.
 */
export interface ResolvedViewSettings {
  readonly budget: ResolvedBudget;
  readonly estimator: Estimator;
  readonly options: Readonly<Required<ViewOptions>>;
  readonly messageDate: MessageDate | undefined;
  /**
   * A context manager summarizes the turns the view leaves out: older turns are not kept
   * with their results cleared instead (see `clearedBand`), or they would come back once
   * their summary no longer fits. @default false
   */
  readonly summarizes?: boolean | undefined;
}

/**
 * {@link buildContext} for input whose settings are already resolved (see
 * {@link ResolvedViewSettings}): nothing is validated again; the view settings in
 * `input` are not read. The messages are read as buildContext reads them.
 *
 * @example
 * ```ts
 * const resolved = { budget: resolveBudget({ promptBudget: 8000 }), estimator, options: Object.freeze(resolveViewOptions(settings)), messageDate: undefined };
 * const view = buildResolvedView({ messages, historyMessage }, resolved);
 * ```
 */
export function buildResolvedView(input: BuildContextInput, resolved: ResolvedViewSettings): ContextView {
  return viewWithin(input, resolved, performance.now());
}

function viewWithin(input: BuildContextInput, resolved: ResolvedViewSettings, started: number): ContextView {
  const walk = findTurns(input.messages);
  // A tool loop whose replies carry reasoning goes on from its first call's view while it fits (see reasoningLoop).
  const loop = reasoningLoop(walk, input.turnSummary !== undefined);
  const { estimator, options, budget } = resolved;
  // Prepared before any view is built: when no view could go on from the first call's, the view is built once.
  const parts = loop === undefined ? undefined : loopParts(walk, loop, estimator, options.imageInputs, budget.promptLimit);
  if (loop !== undefined && parts !== undefined) {
    const { input: firstInput, evidenceShown } = firstCallInput(input, loop);
    const first = allocatedView(firstInput, findTurns(firstInput.messages), resolved, started);
    const appended = loopAppended({ parts, first, evidenceShown, dropStep: options.dropStep, started });
    if (appended !== undefined) return appended;
  }
  return allocatedView(input, walk, resolved, started).view;
}

/**
 * The view of `input` for any current turn (a reasoning loop's included), and what its allocation
 * chose, from which a reasoning loop finds the parts that may leave its front (see {@link frontLayout}).
 */
function allocatedView(input: BuildContextInput, walk: TurnWalk, resolved: ResolvedViewSettings, started: number): { view: ContextView; front: FrontInputs } {
  const { budget, options } = resolved;
  const { sources, history } = viewSources(input, walk, resolved);
  const allocated = allocateView(sources);
  const { fixed, providerHead: head } = sources;
  const { chosen, block, recalled, turn } = allocated;
  const { current } = turn;
  const leadKept = input.systemPrompt === undefined && fixed.systemText !== "" ? walk.systemLead : 0;
  const parts = { fixed, providerHead: head, pinned: block.messages, head: chosen, kept: allocated.kept, recalled: recalled.messages, current, leadKept };
  const assembled = assembleView(parts);
  const { afterHead } = assembled;

  const report = reportView({ budget, sources, allocation: allocated, assembled, given: history, memoriesIn: (input.memories ?? []).length, started });
  // Anthropic breakpoints at the end of the head and of the older turns: both move in steps.
  // The head is everything before the older turns: the system message, the provider head,
  // the pinned block (right after them) and the summary or excerpts.
  const headEnd = afterHead + block.messages.length + chosen.head.length - 1;
  const olderEnd = assembled.messages.length - current.messages.length - recalled.messages.length - 1;
  const ends = breakpointEnds(headEnd, olderEnd, chosen.cleared, fixed.tokens + head.tokens + block.tokens + chosen.headTokens);
  const marked = options.cacheBreakpoints ? markCacheBreakpoints(assembled.messages, ends) : assembled.messages;
  // LangChain's OpenAI converter sends `response_metadata.output` instead of content: it must say what the view charged.
  const messages = marked.map(withOutputMatchingContent);
  const recalledPart = { messages: recalled.messages.length, tokens: recalled.report.tokens };
  const front = { afterHead, head, block, chosen, older: turn.older.reached, walk, recalled: recalledPart };
  return { view: { messages, report }, front };
}

/**
 * The sources of a view (see {@link ViewSources}): the fixed part charged, the provider head,
 * the pinned candidates, the current turn prepared, what the older-turns source is made of, the history
 * message within its share, and how recall runs; with what the report needs of the history
 * message as given (`history`). Nothing here chooses a form.
 */
function viewSources(input: BuildContextInput, walk: TurnWalk, resolved: ResolvedViewSettings) {
  const { budget, estimator, messageDate } = resolved;
  const limit = budget.promptLimit;
  const fixed = chargeFixedPart(input, walk.source, walk.systemLead, budget.memoryBudget, estimator);
  // A recall tool among the charged tools: the notes name its calls instead of a re-call of the source tool.
  const options = { ...resolved.options, recallToolName: recallToolNameIn(input.tools), summarizes: resolved.summarizes === true };
  const prior = input.priorMessages ?? [];

  const { source, lead, currentStart } = walk;
  const pinnedAll = collectPinned({ ...options, messages: source, lead, currentStart, prior: input.priorMessages, pin: input.pin, estimator });

  // The recalled block goes before the current turn only when the turns before the request
  // called no tool (see recallRuns): the same answer on every call of a turn, so the reserve
  // older turns leave does not flip. After an agent's tool turns, recall is a brief instead.
  const recallAt = recallRuns(walk.source, walk.lead, walk.currentStart, prior) ? "block" : "brief";

  // A provider's compaction goes first, as it is while its tool loop goes on; nothing before it is sent (see providerHead).
  const inLoop = walk.currentStart >= walk.n || walk.kind(walk.currentStart) !== "human";
  const head = providerHead(walk.source, walk.providerHead, walk.systemLead, inLoop, estimator);
  // Durable evidence takes at most its share of the limit (the oldest excerpts of its largest bucket leave first).
  const evidenceRoom = Math.floor(options.evidenceShare * limit);
  const { summaryGiven, given, besideRequest, within } = historySlot(input, walk, evidenceRoom, estimator);
  const historyShown = within.message;
  const holds = historyShown !== null ? historyHolds(historyShown) : { summary: false, evidence: false };
  const summaryHead: BaseMessage[] = historyShown !== null ? historyHead(historyShown, options.recallToolName) : [];
  // Counted once, for the allocation; 0 without a summary, whatever a custom estimator says of no messages.
  const headTokens = historyShown !== null ? estimator.estimateMessages(summaryHead) : 0;
  // Evidence alone does not stand for the dropped turns as a summary does: recall keeps the excerpts' room beside it.
  const evidenceOnly = holds.evidence && !holds.summary;
  const limits = { maxTextTokens: options.maxOlderMessageTokens, maxProseTokens: options.maxToolCallProseTokens };
  // The turn right after a provider head that ends with its calls' results may open with the assistant's next step.
  const afterResultsAt = head.messages.at(-1)?.type === "tool" ? walk.lead : undefined;
  const ctx: PrepareContext = { walk, estimator, imageInputs: options.imageInputs, limits, afterResultsAt };
  const current = prepareTurn(ctx, walk.currentStart, walk.n, true);
  // A brief takes no reserve: the older turns are allocated as without recall.
  // A request without a search term ("ok", "please do") matches nothing on any call of its turn: no reserve either
  // (a long turn's later calls would search by its newest steps too; such a turn keeps no reserve for them).
  const wordless = recallAt === "block" && options.recallBudget > 0 && wordlessRequest(walk);
  const compaction = recallAt === "brief" || wordless ? { ...options, recallBudget: 0 } : options;
  // Older turns prepared as the view reaches them; compacted (when they are) after the current turn's results, the newest.
  const older = { prepare: ctx, compaction: { options: compaction, newestResults: current.toolResults, shift: prior.length } };
  const claims = { summaryTokens: headTokens, evidenceOnly, options: compaction, estimator };
  const sources: ViewSources = {
    walk, limit, fixed, providerHead: head, pinned: pinnedAll, current, older,
    history: { head: summaryHead, shown: historyShown, given, evidenceTokens: evidenceRoom },
    claims, recallAt, prior, messageDate, turnSummary: input.turnSummary, options, compaction, estimator,
  };
  const history = { given: summaryGiven, holds, evidenceOmitted: within.evidenceOmitted, besideRequest };
  return { sources, history };
}

/**
 * The history message as the view starts from it: the one given, without the evidence of
 * messages before a provider compaction, and without the excerpts of the current turn's
 * mandatory messages (`besideRequest` of them, see {@link besideCurrentTurn}); then `within`, its
 * evidence within `evidenceRoom` (see {@link historyWithin}).
 */
function historySlot(input: BuildContextInput, walk: TurnWalk, evidenceRoom: number, estimator: Estimator) {
  const compacted = withoutCompactedEvidence(input.historyMessage, walk.providerHead?.start);
  const summaryGiven = compacted !== undefined && compacted !== null;
  const none = { message: null, evidenceOmitted: 0 };
  if (!summaryGiven) return { summaryGiven, given: null, besideRequest: 0, within: none };
  const beside = besideCurrentTurn(compacted, walk, (input.priorMessages ?? []).length);
  const within = beside.message === null ? none : historyWithin(beside.message, evidenceRoom, estimator);
  return { summaryGiven, given: beside.message, besideRequest: beside.evidenceShown, within };
}

/**
 * The history message given without the evidence excerpts of the mandatory part's messages:
 * the request and the current turn's newest exchange (positions `[currentStart, firstAi)`
 * and `[lastAi, n)` of `walk`, `shift` the summarized prefix before them in the conversation's
 * positions the evidence quotes by). Whatever form the turn takes they are shown, so an excerpt
 * of one is never chosen beside it: left out before the room is split, the room it held goes
 * to the view's own choices in the same pass. Excerpts of messages the view keeps by choice
 * (older exchanges and turns, pinned messages) leave once it has chosen them (see `allocateView`).
 */
function besideCurrentTurn(given: BaseMessage, walk: TurnWalk, shift: number): HistoryWithout {
  const { currentStart, n } = walk;
  let firstAi = currentStart;
  while (firstAi < n && walk.kind(firstAi) !== "ai") firstAi++;
  let lastAi = n - 1;
  while (lastAi >= firstAi && walk.kind(lastAi) !== "ai") lastAi--;
  const mandatory = (i: number) => i < firstAi || i >= Math.max(lastAi, firstAi);
  return historyBesideShown(checkHistoryMessage(given), walk.source, currentStart, shift, mandatory);
}

/**
 * The history message given without the evidence of messages before a provider
 * compaction (`compactedBefore`, its index): the provider stands for them. Evidence
 * quotes by position in the conversation; the messages before the compaction are never
 * part of a summarized prefix, so the positions are those of `messages`.
 */
function withoutCompactedEvidence(given: BaseMessage | null | undefined, compactedBefore: number | undefined): BaseMessage | null | undefined {
  if (compactedBefore === undefined || given === undefined || given === null) return given;
  return historyWithout(checkHistoryMessage(given), (quoted) => quoted.index < compactedBefore).message;
}

function checkHistoryMessage(history: unknown): BaseMessage {
  const field = "historyMessage";
  if (history === null || typeof history !== "object" || !("content" in history) || typeof (history as BaseMessage).type !== "string") {
    throw new ContextViewError("INVALID_OPTION", `Expected \`${field}\` to be a chat message (an AIMessage), got ${describeValue(history)}`, { field });
  }
  return history as BaseMessage;
}

/** Whether the current turn opens with a request that holds no search term (see {@link recallQuery}). */
function wordlessRequest(walk: TurnWalk): boolean {
  return walk.currentStart < walk.n && walk.kind(walk.currentStart) === "human" && recallQuery(walk.source, walk.currentStart, false).length === 0;
}
