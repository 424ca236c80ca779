import { ContextViewError, resolveBudget, resolveBudgetSources, type ContextRequest, type Estimator, type ManagedReport, type ManagedView, type MessageInput, type ModelLimits } from "@contextview/core";
import { ConversationMemo, describeValue, EVIDENCE_BUCKETS, newestRequestIndex, prefixFingerprint, sameFingerprint, type PrefixFingerprint } from "@contextview/core/internal";
import type { EvidenceRebuild, EvidenceState, ConversationKey } from "@contextview/core/store";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { BackgroundUpdates } from "./background-updates.js";
import { conversationKeyOf, NO_USER_ID, type ConversationScope } from "./conversation-key.js";
import { ContextIntegrationError } from "./errors.js";
import { memoriesForCall } from "./memories-from-store.js";
import { logEvidenceError, logMemoriesError, publishReport, type ContextSource } from "./observability.js";
import { resolveContextOptions, type ContextOptions, type ResolvedContextOptions } from "./options.js";
import { recordCall } from "./record-view.js";
import { requestSettingsOf, SETTINGS_BELONG, type RequestConfig } from "./runtime-context.js";

/** One model call as an integration sees it. */
export interface PipelineInput {
  /** The request's config, with LangGraph's runtime `context` when there is one. */
  config: RequestConfig | undefined;
  /** The full checkpoint messages. */
  messages: readonly MessageInput[];
  systemPrompt?: string | BaseMessage | undefined;
  tools?: readonly unknown[] | undefined;
  /** The agent runtime's LangGraph store (middleware), for `memories`. */
  runtimeStore?: unknown;
  /** The limits of the model this call goes to (see `modelLimitsOf`). */
  profile?: ModelLimits | undefined;
}

/** A validated request, with its key and evidence, ready to build views from. */
export interface PreparedRequest {
  key: ConversationKey;
  /** What the key scopes: a `stateless` request reads and writes nothing in the store. */
  scope: ConversationScope;
  request: ContextRequest;
  config: RunnableConfig | undefined;
  /** What the evidence update of this call did, for the report; undefined when none ran inline. */
  evidence: ManagedReport["evidence"];
}

/** The steps shared by the node, the wrapper and the middleware. */
export interface ContextPipeline {
  readonly options: ResolvedContextOptions;
  /** Validate the request's settings (runtime `context`, `configurable.context`), resolve the key, update or load evidence. No model call. */
  prepare(input: PipelineInput): Promise<PreparedRequest>;
  /** Build (and report) a view; `harder` after a provider overflow. */
  build(prepared: PreparedRequest, harder?: boolean): Promise<ManagedView>;
  /** Call the model with the view; once more with a smaller view after an overflow. */
  run<T>(prepared: PreparedRequest, call: (messages: BaseMessage[], view: ManagedView) => Promise<T>): Promise<{ result: T; view: ManagedView; recovered: boolean }>;
  /** Feed `usage_metadata` of a response to calibration (not for a stateless request); never throws. */
  recordUsage(prepared: Pick<PreparedRequest, "key" | "scope">, view: ManagedView, response: unknown): Promise<void>;
  isOverflow(errorOrResponse: unknown): boolean;
  /** Wait for background evidence updates. */
  drain(): Promise<void>;
  readonly pendingEvidenceUpdates: number;
}

/** The evidence message of one call and what its update did. */
interface Evidence {
  evidence: BaseMessage | null;
  report: ManagedReport["evidence"];
}

/** The id of a message or message dict, without constructing it. */
function messageId(value: unknown): unknown {
  const record = value as { id?: unknown; kwargs?: { id?: unknown }; data?: { id?: unknown } } | null;
  if (typeof record?.id === "string") return record.id;
  return record?.kwargs?.id ?? record?.data?.id;
}

/**
 * Whether a stored state can describe these messages: its cursor lies within them
 * and every excerpt's message id sits at its index. Ids only, no hashing: enough to
 * leave out another branch's evidence (LangGraph gives every message its own id).
 */
function describesSnapshot(state: EvidenceState, messages: readonly MessageInput[]): boolean {
  if (state.cursor > messages.length) return false;
  for (const bucket of EVIDENCE_BUCKETS) {
    for (const entry of state.buckets[bucket]) if (messageId(messages[entry.index]) !== entry.messageId) return false;
  }
  return true;
}

/**
 * Runs a read of the caller's config: a getter or proxy that throws becomes a typed
 * `INVALID_REQUEST_CONFIG` error; our own typed errors pass through.
 */
function readingConfig<T>(read: () => T): T {
  try {
    return read();
  } catch (cause) {
    if (ContextViewError.isInstance(cause) || ContextIntegrationError.isInstance(cause)) throw cause;
    throw new ContextIntegrationError("INVALID_REQUEST_CONFIG", `Could not read \`config.configurable\`: reading it threw ${describeValue(cause)}`, { field: "config.configurable", cause });
  }
}

/** Validate the options once and build the shared pipeline. */
// size: a factory: options validated once, then the named steps (prepare, build, run, recordUsage) as closures
export function createContextPipeline(options: ContextOptions | undefined, source: ContextSource): ContextPipeline {
  const resolved = resolveContextOptions(options);
  const { manager, store, logger } = resolved;
  const background = new BackgroundUpdates(store, (error, key) => logEvidenceError(logger, error, { source, conversationId: key.conversationId, mode: "background" }));

  const overridesOf = (config: RequestConfig | undefined, profile: ModelLimits | undefined) => {
    const overrides = requestSettingsOf(config);
    if (overrides.budget !== undefined) {
      try {
        resolveBudgetSources({ profile, option: resolved.settings.budget, request: overrides.budget });
      } catch (error) {
        if (!ContextViewError.isInstance(error)) throw error;
        const field = `context.budget.${String(error.details["field"] ?? "")}`.replace(/\.$/, "");
        const message = `Invalid \`context.budget\` for this request: ${error.message} (${SETTINGS_BELONG})`;
        throw new ContextIntegrationError("INVALID_REQUEST_CONFIG", message, { field, cause: error });
      }
    }
    return overrides;
  };

  // Evidence covers the messages before the newest user request, so every model call of
  // one agent turn would update (and re-hash) the same prefix. Once a prefix is validated
  // in this process, a call whose prefix holds the very same message objects reuses the
  // result; a new turn, an edited prefix or a reloaded checkpoint updates the store again.
  // The memo holds a fingerprint of the prefix's objects and the (bounded) evidence message, never the messages.
  const validated = new ConversationMemo<{ fingerprint: PrefixFingerprint; evidence: BaseMessage | null }>();
  // A changed prefix (fork, edit, concurrent branch) rebuilds the evidence from the
  // snapshot this call holds, so the view never carries another branch's evidence.
  const update = async (key: ConversationKey, messages: readonly MessageInput[], signal: AbortSignal | undefined) => {
    let rebuild: EvidenceRebuild | undefined;
    const state = await store.update(key.userId, key.conversationId, messages, {
      onPrefixChange: "rebuild",
      onRebuild: (event) => void (rebuild = event),
      ...(signal ? { signal } : {}),
    });
    return { evidence: state.asMessage(), report: { rebuilt: rebuild !== undefined, rebuiltMessages: rebuild?.messagesRead ?? 0 } };
  };
  const updateEvidence = async (key: ConversationKey, messages: readonly MessageInput[], signal: AbortSignal | undefined): Promise<Evidence> => {
    const fingerprint = prefixFingerprint(messages, Math.max(newestRequestIndex(messages), 0));
    const memo = validated.get(key);
    if (memo && sameFingerprint(memo.fingerprint, fingerprint)) return { evidence: memo.evidence, report: { rebuilt: false, rebuiltMessages: 0 } };
    const updated = await update(key, messages, signal);
    validated.set(key, { fingerprint, evidence: updated.evidence });
    return updated;
  };

  const evidenceOf = async (key: ConversationKey, messages: readonly MessageInput[], signal: AbortSignal | undefined): Promise<Evidence> => {
    if (resolved.evidence === "off") return { evidence: null, report: undefined };
    try {
      if (resolved.evidence === "update") return await updateEvidence(key, messages, signal);
      const loaded = await store.load(key.userId, key.conversationId);
      background.schedule(key, messages);
      // One request of lag: stored evidence of another branch is left out until the update rebuilds it.
      return { evidence: describesSnapshot(loaded, messages) ? loaded.asMessage() : null, report: undefined };
    } catch (error) {
      if (resolved.strictEvidence || signal?.aborted) throw error;
      // Evidence is optional: the view goes on without it rather than with another lineage's state.
      logEvidenceError(logger, error, { source, conversationId: key.conversationId, mode: "inline" });
      return { evidence: null, report: undefined };
    }
  };

  // Memories are optional like evidence: a store that fails is logged and the call goes on without them.
  const memoriesOf = async (key: ConversationKey, input: PipelineInput, overrides: ReturnType<typeof overridesOf>): Promise<string[] | undefined> => {
    if (resolved.memories === undefined) return undefined;
    if (key.userId === NO_USER_ID) {
      throw new ContextIntegrationError(
        "MISSING_CONVERSATION_KEY",
        "Expected a user id: `memories` are saved per user, and this request has none; " +
          "pass `configurable.user_id` or the runtime `context.userId` (or give `resolveUserId`)",
        { field: "config.configurable.user_id" },
      );
    }
    const budgetTokens = resolveBudget({ ...resolved.settings.budget, ...overrides.budget }).memoryBudget;
    try {
      return await memoriesForCall(resolved.memories, {
        config: input.config,
        userId: key.userId,
        messages: input.messages,
        budgetTokens,
        estimator: (options as { estimator?: Estimator } | undefined)?.estimator,
        runtimeStore: input.runtimeStore,
      });
    } catch (error) {
      if (ContextIntegrationError.isInstance(error)) throw error;
      logMemoriesError(logger, error, { source, conversationId: key.conversationId });
      return undefined;
    }
  };

  const prepare = async (input: PipelineInput): Promise<PreparedRequest> => {
    // An explicit `profile` option wins over the one read from the model.
    const profile = resolved.profile === undefined ? input.profile : undefined;
    const requested = readingConfig(() => overridesOf(input.config, profile ?? resolved.profile));
    const { key, scope } = readingConfig(() => conversationKeyOf(input.config, resolved.resolveUserId));
    // A stateless request has nowhere to cache a summary: making one on every call would cost a summarizer call each time.
    const overrides = scope === "stateless" ? { ...requested, summarize: false } : requested;
    if (!Array.isArray(input.messages)) {
      throw new ContextIntegrationError("INVALID_STATE", `Expected the messages of the request to be an array, got ${typeof input.messages}`, { field: "messages" });
    }
    const signal = input.config?.signal;
    const { evidence, report } = scope === "stateless" ? { evidence: null, report: undefined } : await evidenceOf(key, input.messages, signal);
    const memories = await memoriesOf(key, input, overrides);
    const systemPrompt = input.systemPrompt ?? resolved.systemPrompt;
    const tools = input.tools ?? resolved.tools;
    const request: ContextRequest = {
      messages: input.messages,
      key,
      evidence,
      overrides,
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(tools === undefined ? {} : { tools }),
      ...(memories === undefined ? {} : { memories }),
      ...(signal === undefined ? {} : { signal }),
      ...(profile === undefined ? {} : { profile }),
    };
    return { key, scope, request, config: input.config, evidence: report };
  };

  const publish = async (prepared: PreparedRequest, view: ManagedView, overflowRecovery: boolean) => {
    if (prepared.evidence !== undefined) view.report.evidence = prepared.evidence;
    view.report.scope = prepared.scope;
    const meta = { source, conversationId: prepared.key.conversationId, overflowRecovery };
    await publishReport(view.report, meta, logger, prepared.config);
    try {
      resolved.onReport?.(view.report, meta);
    } catch {
      // An observer must never fail the model call.
    }
    if (resolved.recordViews && prepared.scope !== "stateless") await recordCall(store, prepared, view, { source, overflowRecovery }, logger);
  };

  const managerOf = (prepared: PreparedRequest) => (prepared.scope === "stateless" ? resolved.statelessManager() : manager);

  return {
    options: resolved,
    prepare,
    async build(prepared, harder = false) {
      const view = await managerOf(prepared).build(harder ? { ...prepared.request, harder } : prepared.request);
      await publish(prepared, view, harder);
      return view;
    },
    async run(prepared, call) {
      let calls = 0;
      return managerOf(prepared).run(prepared.request, async (messages, view) => {
        await publish(prepared, view, calls++ > 0);
        return call(messages, view);
      });
    },
    async recordUsage(prepared, view, response) {
      if (prepared.scope === "stateless") return;
      try {
        await manager.recordUsage(prepared.key, view, response);
      } catch {
        // Calibration is an optimisation; the answer is already there.
      }
    },
    isOverflow: (value) => manager.isOverflow(value),
    drain: () => background.drain(),
    get pendingEvidenceUpdates() {
      return background.pending;
    },
  };
}
