import type { Budget } from "../budget.js";
import { resolveBudgetSources, type BudgetSources, type ModelLimits } from "../budget-sources.js";
import { invalidOption } from "../errors.js";
import { checkEstimator, createEstimator, MAX_TIMER_MS } from "../estimate.js";
import type { BaseMessage } from "@langchain/core/messages";
import { heldEvidence } from "../evidence/held-evidence.js";
import { checkMessageArray, kindOf, toBaseMessage, type MessageInput } from "../messages.js";
import { ConversationMemo, prefixFingerprint, sameFingerprint, type PrefixFingerprint } from "../memo/conversation-memo.js";
import { checkConversationKey } from "../store/keys.js";
import { InMemoryContextStore } from "../store/in-memory-store.js";
import type { CompactionState, ConversationKey } from "../store/contracts.js";
import { summaryPrefixHash } from "../summarize/prefix-hash.js";
import { runSummarizer } from "../summarize/run-summarizer.js";
import { DEFAULT_KEEP, findSafeCut } from "../summarize/safe-cut.js";
import { summaryMessage } from "../summarize/summary-message.js";
import { summaryTrigger } from "../summarize/threshold.js";
import { chunkTranscript, renderTranscript } from "../summarize/transcript.js";
import { buildContext } from "../view/build-context.js";
import { resolveViewOptions } from "../view/options.js";
import type { ContextView, ViewOptions } from "../view/types.js";
import { nextCalibration } from "./calibration.js";
import { isContextOverflow } from "./overflow.js";
import type { CompactionEvent, ContextManager, ContextManagerOptions, ContextRequest, ContextSettings, ManagedReport, ManagedView, ViewBuildInputs } from "./types.js";

/**
 * Default share of the prompt limit kept verbatim after a summary (at least, and at
 * most): the kept tail must leave room for the turns to come, or every call would
 * summarize again.
 */
const KEEP_MIN_SHARE = 0.15;
const KEEP_MAX_SHARE = 0.4;

/** Share of the limit used when compacting harder after a provider overflow. */
const HARDER_LIMIT_SHARE = 0.6;

const emptyState = (): CompactionState => ({ version: 1, summary: null, failures: 0 });

function positiveInt(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw invalidOption(field, "a positive integer", value);
  return value;
}

function checkProfile(profile: ModelLimits | undefined, field: string): ModelLimits | undefined {
  if (profile !== undefined && (profile === null || typeof profile !== "object")) throw invalidOption(field, "a model profile object (`model.profile`)", profile);
  return profile;
}

function checkSettings(settings: ContextSettings, prefix: string): void {
  resolveViewOptions(settings);
  for (const field of ["keepMinTokens", "keepMinText", "keepMaxTokens"] as const) {
    const value = settings[field];
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw invalidOption(`${prefix}${field}`, "a non-negative integer", value);
  }
  if (settings.triggerRatio !== undefined && !(settings.triggerRatio > 0 && settings.triggerRatio < 1)) {
    throw invalidOption(`${prefix}triggerRatio`, "a number between 0 and 1 (exclusive)", settings.triggerRatio);
  }
  if (settings.summarize !== undefined && typeof settings.summarize !== "boolean") throw invalidOption(`${prefix}summarize`, "a boolean", settings.summarize);
}

/**
 * Create the context manager: the whole pipeline of DESIGN.md for one model call —
 * micro-compaction, a cached summary of older turns (seed 2), drop-oldest when
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
export function createContextManager(options: ContextManagerOptions = {}): ContextManager {
  checkSettings(options, "");
  checkProfile(options.profile, "profile");
  resolveBudgetSources({ profile: options.profile, option: options.budget });
  const estimator = checkEstimator(options.estimator, "estimator") ?? createEstimator();
  const store = options.store ?? new InMemoryContextStore();
  const summarizer = options.summarizer ?? null;
  if (options.pin !== undefined && typeof options.pin !== "function") throw invalidOption("pin", "a function (message, index) => boolean", options.pin);
  if (summarizer !== null && typeof summarizer !== "function") throw invalidOption("summarizer", "a function (transcript, context) => Promise<string | null>", summarizer);
  const chunkTokens = positiveInt("summarizerInputTokens", options.summarizerInputTokens, 6000);
  const timeoutMs = positiveInt("summarizerTimeoutMs", options.summarizerTimeoutMs, 60_000);
  // Node fires a longer timer after about 1 ms: refuse it rather than time every summary out.
  if (timeoutMs > MAX_TIMER_MS) throw invalidOption("summarizerTimeoutMs", `a positive integer of at most ${MAX_TIMER_MS} (Node's longest timer)`, timeoutMs);
  const maxFailures = positiveInt("maxSummarizerFailures", options.maxSummarizerFailures, 3);
  const cooldownMs = positiveInt("summarizerCooldownMs", options.summarizerCooldownMs, 300_000);
  const isOverflow = options.isOverflow ?? isContextOverflow;
  const now = options.now ?? Date.now;
  const calibrate = options.calibrate ?? true;

  const getState = async (key: ConversationKey): Promise<{ state: CompactionState; failed: boolean }> => {
    try {
      return { state: (await store.getCompaction(key)) ?? emptyState(), failed: false };
    } catch (error) {
      options.onStoreError?.(error, "get");
      return { state: emptyState(), failed: true };
    }
  };
  const putState = async (key: ConversationKey, state: CompactionState): Promise<boolean> => {
    try {
      await store.putCompaction(key, state);
      return true;
    } catch (error) {
      options.onStoreError?.(error, "put");
      return false;
    }
  };
  const emit = (event: CompactionEvent) => {
    try {
      options.onCompaction?.(event);
    } catch {
      // An observer must never fail the model call.
    }
  };

  // Every model call of an agent turn checks the cached summary against the same prefix.
  // A prefix hashed before in this process, made of the very same message objects, has
  // the same hash: reuse it rather than read and hash the whole prefix again.
  // The memo holds the hash and a fingerprint of the prefix's objects, never the messages.
  const hashed = new ConversationMemo<{ fingerprint: PrefixFingerprint; hash: string }>();
  const prefixHash = async (key: ConversationKey, messages: readonly MessageInput[], n: number, signal: AbortSignal | undefined): Promise<string> => {
    const fingerprint = prefixFingerprint(messages, n);
    const memo = hashed.get(key);
    if (memo && sameFingerprint(memo.fingerprint, fingerprint)) return memo.hash;
    const hash = await summaryPrefixHash(messages, n, signal);
    hashed.set(key, { fingerprint, hash });
    return hash;
  };

  // The evidence message shown last per conversation. It is shown again, byte for byte,
  // while it holds (same lineage) and the view drops nothing it does not cover: the head
  // of the view then changes in steps, not on every turn (provider prompt caches).
  // Held in a bounded ConversationMemo: one evidence message (itself bounded) per conversation.
  const shownEvidence = new ConversationMemo<BaseMessage>();
  const rememberEvidence = (key: ConversationKey, evidence: BaseMessage | null) => {
    if (evidence === null) shownEvidence.delete(key);
    else shownEvidence.set(key, evidence);
  };

  const build = async (request: ContextRequest): Promise<ManagedView> => {
    const key = checkConversationKey(request.key);
    if (request.overrides !== undefined) checkSettings(request.overrides, "context.");
    const profile = checkProfile(request.profile, "request.profile") ?? options.profile;
    const { budget: baseBudget, sources } = resolveBudgetSources({ profile, option: options.budget, request: request.overrides?.budget });
    const settings: ContextSettings = { ...options, ...request.overrides, budget: baseBudget };
    // A model that takes no image input gets placeholders, unless the caller said otherwise.
    if (settings.imageInputs === undefined && profile?.imageInputs === false) settings.imageInputs = false;
    const { state, failed: getFailed } = await getState(key);
    let storeError = getFailed;
    const ratio = calibrate && state.calibration ? state.calibration.ratio : 1;
    let limit = Math.max(1, Math.floor(baseBudget.promptLimit / ratio));
    if (request.harder) limit = Math.max(1, Math.floor(limit * HARDER_LIMIT_SHARE));
    const budget: Budget = {
      contextWindow: baseBudget.contextWindow,
      promptBudget: Math.min(limit, baseBudget.promptLimit),
      responseReserve: baseBudget.responseReserve,
      safetyReserve: baseBudget.safetyReserve,
      memoryBudget: baseBudget.memoryBudget,
    };
    const trigger = Math.min(summaryTrigger(baseBudget, settings.triggerRatio), limit);

    const messages = request.messages;
    checkMessageArray(messages);
    let lead = 0;
    while (lead < messages.length && kindOf(messages[lead], lead) === "system") lead++;

    const fresh = request.evidence ?? null;
    const previous = shownEvidence.get(key);
    const held = fresh !== null && previous !== undefined && previous !== fresh ? heldEvidence(previous, messages) : null;
    let evidence = held !== null ? (previous as BaseMessage) : fresh;

    // Reuse the cached summary while the prefix it stands for is unchanged.
    let summary = state.summary;
    let cacheHit = false;
    if (summary && summary.prefixN > lead && summary.prefixN <= messages.length) {
      const hash = await prefixHash(key, messages, summary.prefixN, request.signal);
      cacheHit = hash === summary.prefixHash;
    }
    if (!cacheHit) summary = null;

    // The indices (in `messages`) the `pin` predicate chose for the last view built: a view
    // record keeps them, as the predicate itself cannot be recorded.
    let predicatePins: number[] = [];
    const pinOption = options.pin;
    const viewOf = (offset: number, text: string | null): ContextView => {
      const chosen: number[] = [];
      predicatePins = chosen;
      return buildContext({
        ...settings,
        messages: offset > lead ? [...messages.slice(0, lead), ...messages.slice(offset)] : messages,
        // The summarized prefix still holds the opening request and any pins.
        ...(offset > lead ? { priorMessages: messages.slice(lead, offset) } : {}),
        ...(pinOption === undefined
          ? {}
          : {
              pin: (message: BaseMessage, index: number) => {
                const pinned = pinOption(message, index);
                if (pinned) chosen.push(index);
                return pinned;
              },
            }),
        budget,
        estimator,
        ...(request.systemPrompt === undefined ? {} : { systemPrompt: request.systemPrompt }),
        ...(request.tools === undefined ? {} : { tools: request.tools }),
        ...(request.memories === undefined ? {} : { memories: request.memories }),
        summaryMessage: text === null ? evidence : summaryMessage(text, offset, evidence),
      });
    };

    const viewOptions: Required<ViewOptions> = resolveViewOptions(settings);
    const builtWith = (offset: number, text: string | null): ViewBuildInputs => ({ lead, offset, summaryText: text, options: viewOptions, customEstimator: options.estimator !== undefined });
    let offset = summary ? summary.prefixN : lead;
    let view = viewOf(offset, summary?.text ?? null);
    let built = builtWith(offset, summary?.text ?? null);
    let kind: ManagedReport["compaction"]["kind"] = "none";
    let calls = 0;
    let inputChars = 0;
    let failure: ManagedReport["compaction"]["summarizerFailure"];
    let failures = state.failures;

    const over = request.harder === true || view.report.turns.dropped > 0 || view.report.toolResults.cleared > 0 || view.report.tokens.total > trigger;
    const wantsSummary = summarizer !== null && settings.summarize !== false && over && !(view.report.summary.given && !view.report.summary.included);
    if (wantsSummary && state.skipUntil !== undefined && state.skipUntil > now()) failure = "cooldown";
    else if (wantsSummary) {
      const tail = messages.slice(offset).map((m, i) => toBaseMessage(m as MessageInput, offset + i));
      let newest = -1;
      tail.forEach((m, i) => {
        if (m.type === "human") newest = i;
      });
      const keep = {
        keepMinTokens: settings.keepMinTokens ?? Math.round(KEEP_MIN_SHARE * limit),
        keepMinText: settings.keepMinText ?? DEFAULT_KEEP.keepMinText,
        keepMaxTokens: settings.keepMaxTokens ?? Math.round(KEEP_MAX_SHARE * limit),
      };
      const cut = newest > 0 ? findSafeCut(tail, 0, newest, estimator, keep) : null;
      if (cut !== null && cut > 0) {
        const chunks = chunkTranscript(renderTranscript(tail.slice(0, cut)), chunkTokens, estimator);
        const outcome = await runSummarizer(summarizer, chunks, summary?.text ?? null, timeoutMs, request.signal);
        calls = outcome.calls;
        inputChars = outcome.transcriptChars;
        if (outcome.ok) {
          const prefixN = offset + cut;
          const next: CompactionState = { ...state, summary: { prefixN, prefixHash: await prefixHash(key, messages, prefixN, request.signal), text: outcome.text, createdAt: now() }, failures: 0 };
          delete next.skipUntil;
          storeError = !(await putState(key, next)) || storeError;
          offset = prefixN;
          summary = next.summary;
          failures = 0;
          view = viewOf(offset, outcome.text);
          built = builtWith(offset, outcome.text);
          kind = "summary";
          if (options.writeBack) await options.writeBack(key.conversationId, view.messages, messages);
        } else {
          failure = outcome.reason;
          failures = state.failures + 1;
          const next: CompactionState = { ...state, failures };
          if (failures >= maxFailures) next.skipUntil = now() + cooldownMs;
          storeError = !(await putState(key, next)) || storeError;
        }
      }
    }
    // The held evidence covers the messages before its cursor; once the view leaves out a
    // message at or past it, the fresh evidence takes its place.
    if (held !== null && evidence !== fresh) {
      const cut = view.report.cut;
      const absoluteCut = offset > lead && cut >= lead ? offset + (cut - lead) : cut;
      if (absoluteCut > held.cursor) {
        evidence = fresh;
        view = viewOf(offset, summary?.text ?? null);
      }
    }
    rememberEvidence(key, evidence);
    if (kind === "none") {
      if (view.report.turns.dropped > 0) kind = "drop";
      else if (view.report.toolResults.cleared + view.report.toolResults.compacted > 0) kind = "micro";
    }
    if (kind !== "none") emit({ conversationId: key.conversationId, kind, before: { messages: messages.length }, after: { messages: view.messages.length, tokens: view.report.tokens.total } });

    const pins = pinOption === undefined ? {} : { predicatePins: [...new Set(predicatePins)].sort((a, b) => a - b) };
    return finish(view, ratio, sources, { ...built, evidence, ...pins }, {
      kind,
      trigger,
      summaryCacheHit: cacheHit && kind !== "summary",
      summarizedMessages: summary ? summary.prefixN : 0,
      summarizerCalls: calls,
      summarizerInputChars: inputChars,
      ...(failure === undefined ? {} : { summarizerFailure: failure }),
      consecutiveFailures: failures,
      storeError,
    });
  };

  const finish = (view: ContextView, calibration: number, budgetSources: BudgetSources, built: ViewBuildInputs, compaction?: Omit<ManagedReport["compaction"], "calibration">): ManagedView => ({
    messages: view.messages,
    built,
    report: {
      ...view.report,
      budgetSources,
      compaction: {
        kind: "none",
        trigger: view.report.limit,
        summaryCacheHit: false,
        summarizedMessages: 0,
        summarizerCalls: 0,
        summarizerInputChars: 0,
        consecutiveFailures: 0,
        storeError: false,
        ...compaction,
        calibration,
      },
    },
  });

  const recordUsage = async (key: ConversationKey, view: ManagedView, response: unknown): Promise<void> => {
    if (!calibrate) return;
    const usage = (response as { usage_metadata?: { input_tokens?: unknown } } | null)?.usage_metadata;
    const actual = usage?.input_tokens;
    // Provider input tokens cover everything we estimated: system, tools, messages.
    const estimated = view.report.tokens.total;
    if (typeof actual !== "number" || !(actual > 0) || !(estimated > 0)) return;
    checkConversationKey(key);
    const { state, failed } = await getState(key);
    if (failed) return;
    await putState(key, { ...state, calibration: nextCalibration(state.calibration, estimated, actual) });
  };

  const run: ContextManager["run"] = async (request, call) => {
    const view = await build(request);
    try {
      const result = await call(view.messages, view);
      if (!isOverflow(result)) return { result, view, recovered: false };
    } catch (error) {
      if (!isOverflow(error)) throw error;
    }
    const key = checkConversationKey(request.key);
    const harder = await build({ ...request, harder: true });
    emit({ conversationId: key.conversationId, kind: "overflow-recovery", before: { messages: view.messages.length }, after: { messages: harder.messages.length, tokens: harder.report.tokens.total } });
    return { result: await call(harder.messages, harder), view: harder, recovered: true };
  };

  return { build, run, recordUsage, isOverflow };
}
