// size: one factory whose stages are closures over its validated options (see createContextManager); its helpers live beside it
import { largeResultStep } from "../compact/large-result-floors.js";
import { cachedTurnSummary, summarizeTurn, turnSummarySpan, type TurnSummaryInputs, type TurnSummarySpan } from "./turn-summary.js";
import { resolveBudgetSources, type ModelLimits } from "../budget-sources.js";
import { invalidOption } from "../errors.js";
import { checkMessageDate } from "../view/recall-date.js";
import { checkEstimator, createEstimator } from "../estimate.js";
import { checkSettings, settingNames, settingOrDefault } from "../settings/check.js";
import { checkMessageArray } from "../messages.js";
import { conversationStart } from "../view/provider-head.js";
import { checkConversationKey } from "../store/keys.js";
import { InMemoryContextStore } from "../store/in-memory-store.js";
import type { CompactionState, ConversationKey } from "../store/contracts.js";
import type { TurnSummary } from "../view/types.js";
import type { Summarizer } from "../summarize/summarizer.js";
import { cachedSummary, memoizedPrefixHasher } from "./cached-summary.js";
import { nextCalibration } from "./calibration.js";
import { prefixFingerprint } from "../memo/conversation-memo.js";
import { compactionKind } from "./compaction-kind.js";
import { guardedCompactionStore } from "./guarded-store.js";
import { limitFor } from "./limit-for.js";
import { managedView } from "./managed-view.js";
import { isContextOverflow } from "./overflow.js";
import { retryOnOverflow } from "./overflow-retry.js";
import { heldEvidenceOutlived, ShownEvidence } from "./shown-evidence.js";
import { showSummary } from "./shown-summary.js";
import { stateAfterFailure, stateAfterSummary, summarizeAttempt, summaryCut, wantsSummary, type SummarizeAttemptInputs } from "./summarize-attempt.js";
import { SummarizerBreaker, SummaryFlights, type FlightIdentity } from "./summary-flights.js";
import { requestViews, viewSettingsIn } from "./view-builder.js";
import { EVERY_TOOL_RESULT, resolveViewOptions } from "../view/options.js";
import { decidingReport } from "../view/reasoning-loop.js";
import type { ContextView } from "../view/types.js";
import type { CompactionEvent, ContextManager, ContextManagerOptions, ContextRequest, ContextSettings, ManagedReport, ManagedView, ViewBuildInputs } from "./types.js";

/** What the summarize step did for one view. */
interface SummaryStep {
  summarized: boolean;
  /** The new summary, when one was made. */
  summary?: NonNullable<CompactionState["summary"]>;
  /** The new summary is a marked excerpt of a longer answer. */
  excerpted?: boolean;
  calls: number;
  inputChars: number;
  /** Consecutive failures after this step. */
  failures: number;
  failure?: ManagedReport["compaction"]["summarizerFailure"];
  storeError?: boolean;
  /** The summary came from an attempt another build of the conversation made and reported. */
  shared?: boolean;
}

/** What the turn summary step did for one view. */
interface TurnStep {
  /** The turn summary to show, when one was made. */
  summary?: TurnSummary;
  calls: number;
  inputChars: number;
  storeError: boolean;
  /** The consecutive failures after the attempt, and its failure if any (only the failure when this caller left it). */
  outcome?: Partial<Pick<SummaryStep, "failures" | "failure">>;
}

/** A turn step that did not try a summary. */
const NO_TURN_STEP: TurnStep = { calls: 0, inputChars: 0, storeError: false };

function checkProfile(profile: ModelLimits | undefined, field: string): ModelLimits | undefined {
  if (profile !== undefined && (profile === null || typeof profile !== "object")) throw invalidOption(field, "a model profile object (`model.profile`)", profile);
  return profile;
}

/** Settings a request may override, besides `budget` (which `resolveBudget` checks). */
const REQUEST_SETTINGS = settingNames((spec) => spec.scope === "request" && spec.group !== "budget");
/** View settings set once, on the factory: a request that sets one is refused (`trustPinField`: a client must not choose who may pin). */
const FACTORY_VIEW_SETTINGS = settingNames((spec) => spec.scope === "factory" && spec.group === "view");
/** What a request may not set: those, and `excludeTools` (a list of names, so not in SETTINGS_SPEC). */
const FACTORY_ONLY_VIEW_OPTIONS: readonly string[] = [...FACTORY_VIEW_SETTINGS, "excludeTools"];

/**
 * Create the context manager: the whole pipeline for one model call —
 * micro-compaction, a cached summary of older turns, drop-oldest when
 * summarizing is off or fails, calibration from reported usage, and one retry after
 * a provider overflow. Options are validated here, once; each request may override
 * the settings in {@link ContextSettings}.
 *
 * @example
 * ```ts
 * const manager = createContextManager({
 *   budget: { contextWindow: 128000, promptBudget: 24000 },
 *   summarizer: chatModelSummarizer(summaryModel),
 *   store: SqliteContextStore.nextTo(checkpointer),
 * });
 * const { result } = await manager.run({ messages, key: { userId, conversationId: threadId } }, (view) => model.invoke(view));
 * ```
 */
// size: a factory: validation of the options once, then the named stages as closures over them (prepare, build, summarizeStep, recordUsage, run), each short
export function createContextManager(options: ContextManagerOptions = {}): ContextManager {
  checkSettings(options, [...REQUEST_SETTINGS, ...FACTORY_VIEW_SETTINGS]);
  // The factory's view settings with their defaults, resolved here once; a request's overrides go on top (checked as it comes in).
  const factoryView = Object.freeze(resolveViewOptions(options));
  checkProfile(options.profile, "profile");
  // The budget option as it was checked: a later change to the caller's object is not read.
  const budgetOption = options.budget === undefined || options.budget === null ? undefined : Object.freeze({ ...options.budget });
  resolveBudgetSources({ profile: options.profile, option: budgetOption });
  const estimator = checkEstimator(options.estimator, "estimator") ?? createEstimator();
  const store = options.store ?? new InMemoryContextStore();
  const summarizer = options.summarizer ?? null;
  if (options.pin !== undefined && typeof options.pin !== "function") throw invalidOption("pin", "a function (message, index) => boolean", options.pin);
  const messageDate = checkMessageDate(options.messageDate, "messageDate");
  if (summarizer !== null && typeof summarizer !== "function") throw invalidOption("summarizer", "a function (transcript, context) => Promise<string | null>", summarizer);
  const precomputeLarge = largeResultStep(options.largeResults);
  const chunkTokens = settingOrDefault("summarizerInputTokens", options.summarizerInputTokens);
  const timeoutMs = settingOrDefault("summarizerTimeoutMs", options.summarizerTimeoutMs);
  const maxFailures = settingOrDefault("maxSummarizerFailures", options.maxSummarizerFailures);
  const cooldownMs = settingOrDefault("summarizerCooldownMs", options.summarizerCooldownMs);
  const isOverflow = options.isOverflow ?? isContextOverflow;
  const now = options.now ?? Date.now;
  /** Failures in a row across every conversation: a dead summarizer is skipped everywhere, not per conversation. */
  const breaker = new SummarizerBreaker(maxFailures, cooldownMs, now);
  /** True while the summarizer is skipped after too many failures in a row, in this conversation or across all. */
  const coolingDown = (state: CompactionState) => (state.skipUntil !== undefined && state.skipUntil > now()) || breaker.open();
  /** Summarize attempts in progress, one per conversation, shared by the builds that need them: of the conversation's older turns, and of a long turn's oldest exchanges. */
  const flights = new SummaryFlights<SummaryStep>();
  const turnFlights = new SummaryFlights<TurnStep>();
  const calibrate = settingOrDefault("calibrate", options.calibrate);

  const compaction = guardedCompactionStore(store, options.onStoreError);
  const emit = (event: CompactionEvent) => {
    try {
      options.onCompaction?.(event);
    } catch {
      // An observer must never fail the model call.
    }
  };
  const prefixHash = memoizedPrefixHasher();
  const turnPrefixHash = memoizedPrefixHasher();
  const shownEvidence = new ShownEvidence();

  /** The settings, budget and stored state of one request, and the summary it may reuse. */
  const prepare = async (request: ContextRequest) => {
    const key = checkConversationKey(request.key);
    if (request.overrides !== undefined) {
      checkSettings(request.overrides, REQUEST_SETTINGS, "context.");
      const fixed = FACTORY_ONLY_VIEW_OPTIONS.find((field) => (request.overrides as Record<string, unknown>)[field] !== undefined);
      if (fixed !== undefined) throw invalidOption(`context.${fixed}`, "left unset: it is set once, on the factory, never per request", (request.overrides as Record<string, unknown>)[fixed]);
    }
    const profile = checkProfile(request.profile, "request.profile") ?? options.profile;
    const { budget: baseBudget, sources } = resolveBudgetSources({ profile, option: budgetOption, request: request.overrides?.budget, optionChecked: true });
    const settings: ContextSettings = { ...options, ...request.overrides, budget: baseBudget };
    // A model that takes no image input gets placeholders, unless the caller said otherwise.
    if (settings.imageInputs === undefined && profile?.imageInputs === false) settings.imageInputs = false;
    const { state, failed } = await compaction.get(key);
    const ratio = calibrate && state.calibration ? state.calibration.ratio : 1;
    const { limit, budget, trigger } = limitFor(baseBudget, ratio, request.harder === true, settings.triggerRatio);
    const messages = request.messages;
    checkMessageArray(messages);
    await precomputeLarge(messages, estimator, limit, request.signal);
    // Where the summary may start: after the system messages and any provider compaction, which stands for what came before it.
    const lead = conversationStart(messages).floor;
    const { summary, cacheHit } = await cachedSummary(state, lead, messages.length, (n, like) => prefixHash(key, messages, n, request.signal, like));
    const turnSummary = summarizer === null ? undefined : await cachedTurnSummary(state, messages, (n) => turnPrefixHash(key, messages, n, request.signal));
    const imageInputs = settings.imageInputs === undefined ? {} : { imageInputs: settings.imageInputs };
    const viewOptions = Object.freeze({ ...factoryView, ...viewSettingsIn(request.overrides ?? {}), ...imageInputs });
    const summarizes = summarizer !== null && settings.summarize !== false;
    const views = requestViews({
      settings, options: viewOptions, messages, lead, budget, estimator, request, pin: options.pin, messageDate, turnSummary, summarizes,
    });
    // While summarizing, older results wait for their summary instead of being cleared in
    // steps — not while the summarizer cools down: no summary would come. Each clear step
    // would move the prompt's prefix once more; the summary step moves it anyway, and
    // takes the results with their turns.
    const waiting = settings.keepRecentToolResults === undefined && summarizer !== null && settings.summarize !== false && !coolingDown(state);
    const waitingViews = waiting ? views.with({ keepRecentToolResults: EVERY_TOOL_RESULT }) : views;
    return { key, settings, sources, state, storeError: failed, ratio, limit, trigger, messages, lead, summary, cacheHit, views, waitingViews };
  };

  const build = async (request: ContextRequest): Promise<ManagedView> => {
    const { key, settings, sources, state, ratio, limit, trigger, messages, lead, cacheHit, views, waitingViews, ...prepared } = await prepare(request);
    let { storeError, summary } = prepared;
    const fresh = request.evidence ?? null;
    const { evidence: shownFirst, held } = shownEvidence.choose(key, fresh, messages);
    // A summary of messages past the held evidence's cursor leaves them out of the view: the
    // fresh evidence takes its place before the view is built, not after.
    const outlivedBy = (made: { prefixN: number } | null | undefined) => held !== null && made !== null && made !== undefined && made.prefixN > held.cursor;
    let evidence = outlivedBy(summary) ? fresh : shownFirst;
    let builder = waitingViews;
    // The view with the whole summary decides whether to summarize: one that was given
    // and still left out is not summarized again on every call.
    let whole: ContextView | undefined = builder.build(summary ? summary.prefixN : lead, summary?.text ?? null, evidence);
    let outcome: SummaryStep = { summarized: false, calls: 0, inputChars: 0, failures: state.failures };

    // A reasoning loop's later calls go on from its first call's view, and decide as that call did (see decidingReport).
    if (wantsSummary(decidingReport(whole), { summarizer, summarize: settings.summarize, harder: request.harder === true, trigger })) {
      const offset = summary ? summary.prefixN : lead;
      outcome = await summarizeStep(key, state, { summarizer: summarizer as Summarizer, messages, offset, limit, keep: settings, estimator, previous: summary?.text ?? null, chunkTokens, timeoutMs, signal: request.signal });
      storeError = outcome.storeError === true || storeError;
      if (outcome.summary) {
        summary = outcome.summary;
        whole = undefined;
        if (outlivedBy(summary)) evidence = fresh;
      }
    }
    const show = () => showSummary(builder, summary, lead, evidence, estimator);
    let shown = showSummary(builder, summary, lead, evidence, estimator, whole);
    // Results wait only for a summary that comes: a view that still drops turns (no summary
    // due, no safe cut, a summarizer that failed) clears them in steps instead.
    if (builder !== views && decidingReport(shown.view).turns.dropped > 0) {
      builder = views;
      shown = show();
    }
    if (outcome.summary && outcome.shared !== true && options.writeBack) await options.writeBack(key.conversationId, shown.view.messages, messages);
    // A long turn whose oldest exchanges are excerpted: a summary of them takes the excerpt's place.
    if (summarizer !== null && settings.summarize !== false && !coolingDown(state)) {
      const turn = await turnStep(key, { summarizer, messages, report: shown.view.report.currentTurn, given: builder.turnSummary, limit, keep: settings, estimator, chunkTokens, timeoutMs, signal: request.signal });
      outcome = { ...outcome, ...turn.outcome, calls: outcome.calls + turn.calls, inputChars: outcome.inputChars + turn.inputChars, storeError: outcome.storeError === true || turn.storeError };
      if (turn.summary !== undefined) {
        builder = builder.withTurnSummary(turn.summary);
        shown = show();
      }
    }
    // The held evidence covers the messages before its cursor; once the view leaves out a
    // message at or past it, the fresh evidence takes its place.
    if (held !== null && evidence !== fresh && heldEvidenceOutlived(held, decidingReport(shown.view).cut, shown.offset, lead)) {
      evidence = fresh;
      shown = show();
    }
    // Evidence never repeats what the view shows: the view leaves out the excerpts of the
    // messages it keeps, as it places them (see allocateView), and a record of the view keeps
    // only what the checkpoint cannot give back (see setAsideShown). The whole evidence is held for the next call.
    shownEvidence.remember(key, evidence);
    const { view, offset, text } = shown;
    const kind = compactionKind(outcome.summarized, view.report);
    if (kind !== "none") emit({ conversationId: key.conversationId, kind, before: { messages: messages.length }, after: { messages: view.messages.length, tokens: view.report.tokens.total } });

    const customEstimator = options.estimator !== undefined;
    const built: ViewBuildInputs = { lead, offset, summaryText: text, options: builder.options, customEstimator, evidence, summarizes: builder.summarizes };
    if (options.pin !== undefined) built.predicatePins = builder.predicatePins();
    if (messageDate !== undefined) built.messageDates = builder.messageDates();
    if (builder.turnSummary !== undefined) built.turnSummary = builder.turnSummary;
    return managedView(view, ratio, sources, built, {
      kind,
      trigger,
      summaryCacheHit: cacheHit && kind !== "summary",
      // The leading system messages come before the summarized prefix; the summary does not stand for them.
      summarizedMessages: text === null ? 0 : offset - lead,
      summaryExcerpted: shown.excerpted || (outcome.excerpted === true && text === outcome.summary?.text),
      summarizerCalls: outcome.calls,
      summarizerInputChars: outcome.inputChars,
      ...(outcome.failure === undefined ? {} : { summarizerFailure: outcome.failure }),
      consecutiveFailures: outcome.failures,
      storeError,
    });
  };

  /**
   * Try a summary (unless cooling down after failures) and store what came of it.
   * Concurrent builds of one conversation that need a summary of the same prefix share
   * one attempt (see {@link SummaryFlights}); the first to take its outcome reports
   * its calls, the others none.
   */
  const summarizeStep = async (key: ConversationKey, state: CompactionState, inputs: SummarizeAttemptInputs): Promise<SummaryStep> => {
    if (coolingDown(state)) return { summarized: false, calls: 0, inputChars: 0, failures: state.failures, failure: "cooldown" };
    const prefixN = summaryCut(inputs);
    if (prefixN === null) return { summarized: false, calls: 0, inputChars: 0, failures: state.failures };
    const identity: FlightIdentity = { offset: inputs.offset, prefixN, previous: inputs.previous, limit: inputs.limit, objects: prefixFingerprint(inputs.messages, prefixN) };
    const hashWith = (signal: AbortSignal | undefined) => prefixHash(key, inputs.messages, prefixN, signal);
    const taken = await flights.share(key, identity, hashWith, (signal, hash) => attemptAndStore(key, state, { ...inputs, signal }, prefixN, hash), inputs.signal);
    if (taken === "left") return { summarized: false, calls: 0, inputChars: 0, failures: state.failures, failure: "aborted" };
    return taken.shared ? { ...taken.outcome, calls: 0, inputChars: 0, shared: true } : taken.outcome;
  };

  /** One summarize attempt and what it leaves in the store and the breaker. */
  const attemptAndStore = async (key: ConversationKey, state: CompactionState, inputs: SummarizeAttemptInputs, prefixN: number, hash: () => Promise<string>): Promise<SummaryStep> => {
    const attempt = await summarizeAttempt(inputs, prefixN);
    if (attempt.status === "no-cut") return { summarized: false, calls: 0, inputChars: 0, failures: state.failures };
    breaker.record(attempt.status === "ok" ? "ok" : attempt.reason);
    if (attempt.status === "failed") {
      const next = stateAfterFailure(state, maxFailures, cooldownMs, now());
      const stored = await compaction.put(key, next);
      return { summarized: false, calls: attempt.calls, inputChars: attempt.inputChars, failures: next.failures, failure: attempt.reason, storeError: !stored };
    }
    const summary = { prefixN: attempt.prefixN, prefixHash: await hash(), text: attempt.text, createdAt: now() };
    const stored = await compaction.put(key, stateAfterSummary(state, summary));
    return { summarized: true, summary, excerpted: attempt.excerpted, calls: attempt.calls, inputChars: attempt.inputChars, failures: 0, storeError: !stored };
  };

  /**
   * Summarize a long turn's excerpted exchanges (see {@link turnSummarySpan}) and store
   * the summary, or the failure. Concurrent builds of one conversation that would
   * summarize the same span share one attempt, as for the conversation's summary (see
   * summarizeStep).
   */
  const turnStep = async (key: ConversationKey, inputs: TurnSummaryInputs): Promise<TurnStep> => {
    const span = turnSummarySpan(inputs);
    if (span === null) return NO_TURN_STEP;
    const { offset, prefixN, previous } = span;
    const identity: FlightIdentity = { offset, prefixN, previous, limit: inputs.limit, objects: prefixFingerprint(inputs.messages, prefixN) };
    const hashWith = (signal: AbortSignal | undefined) => turnPrefixHash(key, inputs.messages, prefixN, signal);
    const taken = await turnFlights.share(key, identity, hashWith, (signal, hash) => turnAttemptAndStore(key, { ...inputs, signal }, span, hash), inputs.signal);
    if (taken === "left") return { ...NO_TURN_STEP, outcome: { failure: "aborted" } };
    return taken.shared ? { ...taken.outcome, calls: 0, inputChars: 0 } : taken.outcome;
  };

  /** One turn summarize attempt and what it leaves in the store and the breaker. */
  const turnAttemptAndStore = async (key: ConversationKey, inputs: TurnSummaryInputs, span: TurnSummarySpan, hash: () => Promise<string>): Promise<TurnStep> => {
    const { attempt, next: made } = await summarizeTurn(inputs, span, hash);
    if (attempt.status === "no-cut") return NO_TURN_STEP;
    const { state } = await compaction.get(key);
    // A summary clears the failures and the cool-down, as the conversation's summary does.
    const next: CompactionState = made === undefined ? stateAfterFailure(state, maxFailures, cooldownMs, now()) : { ...state, turnSummary: { ...made, createdAt: now() }, failures: 0 };
    if (made !== undefined) delete next.skipUntil;
    breaker.record(attempt.status === "ok" ? "ok" : attempt.reason);
    const stored = await compaction.put(key, next);
    const outcome = { failures: next.failures, ...(attempt.status === "failed" ? { failure: attempt.reason } : {}) };
    return { ...(made === undefined ? {} : { summary: { steps: made.steps, text: made.text } }), calls: attempt.calls, inputChars: attempt.inputChars, storeError: !stored, outcome };
  };

  const recordUsage = async (key: ConversationKey, view: ManagedView, response: unknown): Promise<void> => {
    if (!calibrate) return;
    const usage = (response as { usage_metadata?: { input_tokens?: unknown } } | null)?.usage_metadata;
    const actual = usage?.input_tokens;
    // Provider input tokens cover everything we estimated: system, tools, messages.
    const estimated = view.report.tokens.total;
    if (typeof actual !== "number" || !(actual > 0) || !(estimated > 0)) return;
    checkConversationKey(key);
    const { state, failed } = await compaction.get(key);
    if (failed) return;
    await compaction.put(key, { ...state, calibration: nextCalibration(state.calibration, estimated, actual) });
  };

  const run: ContextManager["run"] = async (request, call) => {
    let view = await build(request);
    const first = view;
    const { result, recovered } = await retryOnOverflow({
      isOverflow,
      call: () => call(first.messages, first),
      retry: async () => {
        const key = checkConversationKey(request.key);
        view = await build({ ...request, harder: true });
        emit({ conversationId: key.conversationId, kind: "overflow-recovery", before: { messages: first.messages.length }, after: { messages: view.messages.length, tokens: view.report.tokens.total } });
        return call(view.messages, view);
      },
    });
    return { result, view, recovered };
  };

  return { build, run, recordUsage, isOverflow };
}
