import { ContextViewError, kindOf, resolveBudget, type ContextRequest, type ConversationKey, type ManagedView, type MessageInput } from "@contextview/core";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { BackgroundUpdates } from "./background-updates.js";
import { conversationKeyOf } from "./conversation-key.js";
import { ContextIntegrationError } from "./errors.js";
import { logEvidenceError, publishReport, type ContextSource } from "./observability.js";
import { resolveContextOptions, type ContextOptions, type ResolvedContextOptions } from "./options.js";
import { recordCall } from "./record-view.js";
import { parseContextConfig } from "./request-config.js";

/** One model call as an integration sees it. */
export interface PipelineInput {
  config: RunnableConfig | undefined;
  /** The full checkpoint messages. */
  messages: readonly MessageInput[];
  systemPrompt?: string | BaseMessage | undefined;
  tools?: readonly unknown[] | undefined;
}

/** A validated request, with its key and evidence, ready to build views from. */
export interface PreparedRequest {
  key: ConversationKey;
  request: ContextRequest;
  config: RunnableConfig | undefined;
}

/** The steps shared by the node, the wrapper and the middleware. */
export interface ContextPipeline {
  readonly options: ResolvedContextOptions;
  /** Validate `config.configurable.context`, resolve the key, update or load evidence. No model call. */
  prepare(input: PipelineInput): Promise<PreparedRequest>;
  /** Build (and report) a view; `harder` after a provider overflow. */
  build(prepared: PreparedRequest, harder?: boolean): Promise<ManagedView>;
  /** Call the model with the view; once more with a smaller view after an overflow. */
  run<T>(prepared: PreparedRequest, call: (messages: BaseMessage[], view: ManagedView) => Promise<T>): Promise<{ result: T; view: ManagedView; recovered: boolean }>;
  /** Feed `usage_metadata` of a response to calibration; never throws. */
  recordUsage(key: ConversationKey, view: ManagedView, response: unknown): Promise<void>;
  isOverflow(errorOrResponse: unknown): boolean;
  /** Wait for background evidence updates. */
  drain(): Promise<void>;
  readonly pendingEvidenceUpdates: number;
}

/** Conversations whose validated evidence prefix is remembered (least recently updated first out). */
const REMEMBERED_PREFIXES = 512;

/** Index of the newest user message, or -1. */
function newestRequest(messages: readonly MessageInput[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (kindOf(messages[i], i) === "human") return i;
  return -1;
}

/** Validate the options once and build the shared pipeline. */
export function createContextPipeline(options: ContextOptions | undefined, source: ContextSource): ContextPipeline {
  const resolved = resolveContextOptions(options);
  const { manager, store, logger } = resolved;
  const background = new BackgroundUpdates(store, (error, key) => logEvidenceError(logger, error, { source, conversationId: key.conversationId, mode: "background" }));

  const overridesOf = (config: RunnableConfig | undefined) => {
    const overrides = parseContextConfig((config?.configurable as Record<string, unknown> | undefined)?.["context"]);
    if (overrides.budget !== undefined) {
      try {
        resolveBudget({ ...resolved.settings.budget, ...overrides.budget });
      } catch (error) {
        if (!ContextViewError.isInstance(error)) throw error;
        const field = `context.budget.${String(error.details["field"] ?? "")}`.replace(/\.$/, "");
        throw new ContextIntegrationError("INVALID_REQUEST_CONFIG", `Invalid \`context.budget\` for this request: ${error.message}`, { field, cause: error });
      }
    }
    return overrides;
  };

  // Evidence covers the messages before the newest user request, so every model call of
  // one agent turn would update (and re-hash) the same prefix. Once a prefix is validated
  // in this process, a call whose prefix holds the very same message objects reuses the
  // result; a new turn, an edited prefix or a reloaded checkpoint updates the store again.
  const validated = new Map<string, { prefix: readonly MessageInput[]; evidence: BaseMessage | null }>();
  const updateEvidence = async (key: ConversationKey, messages: readonly MessageInput[], signal: AbortSignal | undefined): Promise<BaseMessage | null> => {
    const id = JSON.stringify([key.userId, key.conversationId]);
    const end = newestRequest(messages);
    const memo = validated.get(id);
    if (memo && memo.prefix.length === end && memo.prefix.every((message, i) => message === messages[i])) return memo.evidence;
    const evidence = (await store.update(key.userId, key.conversationId, messages, signal ? { signal } : {})).asMessage();
    validated.delete(id);
    validated.set(id, { prefix: messages.slice(0, Math.max(end, 0)), evidence });
    if (validated.size > REMEMBERED_PREFIXES) validated.delete(validated.keys().next().value as string);
    return evidence;
  };

  const evidenceOf = async (key: ConversationKey, messages: readonly MessageInput[], signal: AbortSignal | undefined): Promise<BaseMessage | null> => {
    if (resolved.evidence === "off") return null;
    try {
      if (resolved.evidence === "update") return await updateEvidence(key, messages, signal);
      const loaded = await store.load(key.userId, key.conversationId);
      background.schedule(key, messages);
      return loaded.asMessage();
    } catch (error) {
      if (resolved.strictEvidence || signal?.aborted) throw error;
      // Evidence is optional: the view goes on without it rather than with another lineage's state.
      logEvidenceError(logger, error, { source, conversationId: key.conversationId, mode: "inline" });
      return null;
    }
  };

  const prepare = async (input: PipelineInput): Promise<PreparedRequest> => {
    const overrides = overridesOf(input.config);
    const key = conversationKeyOf(input.config, resolved.resolveUserId);
    if (!Array.isArray(input.messages)) {
      throw new ContextIntegrationError("INVALID_STATE", `Expected the messages of the request to be an array, got ${typeof input.messages}`, { field: "messages" });
    }
    const signal = input.config?.signal;
    const evidence = await evidenceOf(key, input.messages, signal);
    const systemPrompt = input.systemPrompt ?? resolved.systemPrompt;
    const tools = input.tools ?? resolved.tools;
    const request: ContextRequest = {
      messages: input.messages,
      key,
      evidence,
      overrides,
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(tools === undefined ? {} : { tools }),
      ...(signal === undefined ? {} : { signal }),
    };
    return { key, request, config: input.config };
  };

  const publish = async (prepared: PreparedRequest, view: ManagedView, overflowRecovery: boolean) => {
    await publishReport(view.report, { source, conversationId: prepared.key.conversationId, overflowRecovery }, logger, prepared.config);
    if (resolved.recordViews) await recordCall(store, prepared, view, { source, overflowRecovery }, logger);
  };

  return {
    options: resolved,
    prepare,
    async build(prepared, harder = false) {
      const view = await manager.build(harder ? { ...prepared.request, harder } : prepared.request);
      await publish(prepared, view, harder);
      return view;
    },
    async run(prepared, call) {
      let calls = 0;
      return manager.run(prepared.request, async (messages, view) => {
        await publish(prepared, view, calls++ > 0);
        return call(messages, view);
      });
    },
    async recordUsage(key, view, response) {
      try {
        await manager.recordUsage(key, view, response);
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
