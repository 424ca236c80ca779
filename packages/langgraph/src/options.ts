import {
  InMemoryContextStore,
  createContextManager,
  type Budget,
  type ContextManager,
  type ContextManagerOptions,
  type ContextSettings,
  type ContextStore,
  type ModelLimits,
} from "@contextview/core";
import { describeValue } from "@contextview/core/internal";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ContextIntegrationError } from "./errors.js";
import { EXPECTED, integrationOptionsSchema, type IntegrationOptions, type ReportListener } from "./integration-options.js";
import { workerLargeResults } from "./large-results.js";
import type { ContextLogger } from "./observability.js";
import { CONTEXT_SETTING_KEYS, parseContextConfig } from "./request-config.js";
import { summarizerOf, type SummarizerOption } from "./model-summarizer.js";
import { statelessManagerOf } from "./stateless-manager.js";
import { unknownOption } from "./unknown-option.js";
import type { MemoriesFromStore } from "./memories-from-store.js";

export type { IntegrationOptions, ReportListener, ToolsForCall } from "./integration-options.js";

/** Options of the core manager that the integrations accept in more forms, or document for them. */
export interface IntegrationManagerOptions {
  /**
   * The token budget of every model call, in estimated tokens; give only the fields you
   * change. The view fits `min(promptBudget, contextWindow − responseReserve − safetyReserve)`,
   * shrunk by the conversation's calibration. A request's `context.budget` overrides these;
   * the environment (`PROMPT_BUDGET_TOKENS`, …) and the model's profile (`maxInputTokens`)
   * fill what neither sets, and `report.budgetSources` says where each number came from.
   * @default { contextWindow: 32768, promptBudget: 16000, responseReserve: 4096, safetyReserve: 2048, memoryBudget: 1000 }
   * @example
   * ```ts
   * contextMiddleware({ store, budget: { promptBudget: 12000 } });
   * ```
   */
  budget?: Partial<Budget>;
  /**
   * Summarizes older turns when the view would drop them. A chat model, as LangChain's
   * `summarizationMiddleware({ model })` takes it, is called through
   * `chatModelSummarizer(model)` (contextview's summary prompt, its own callbacks and
   * `nostream` tags, so its tokens never reach your stream); a function
   * `(transcript, context) => Promise<string | null>` is called as it is, e.g.
   * `chatModelSummarizer(model, { prompt })` for your own prompt. Without one, older
   * turns are dropped (with excerpts). When summarizing starts and what stays verbatim:
   * `triggerRatio`, `keepMinTokens`, `keepMinText`, `keepMaxTokens` (docs/summarizing.md).
   * @default null (no summaries)
   * @example
   * ```ts
   * contextMiddleware({ store, summarizer: new ChatOpenAI({ model: "gpt-4.1-mini" }) });
   * ```
   */
  summarizer?: SummarizerOption;
}

/**
 * Options of {@link createContextNode}, {@link withContext} and {@link contextMiddleware}:
 * the core context manager's options (budget, view and keep settings, summarizer,
 * calibration, …) as defaults for every request, plus {@link IntegrationOptions}.
 */
export type ContextOptions = Omit<ContextManagerOptions, "store" | "summarizer" | "budget"> & IntegrationManagerOptions & IntegrationOptions;

/** Options after validation, with the manager built from them. */
export interface ResolvedContextOptions {
  manager: ContextManager;
  /**
   * The manager of stateless requests (no thread id): the same options over a store that
   * keeps nothing, built on first use.
   */
  statelessManager: () => ContextManager;
  store: ContextStore;
  /** The factory's settings, the base of each request's overrides. */
  settings: ContextSettings;
  evidence: "update" | "background" | "off";
  strictEvidence: boolean;
  resolveUserId: ((config: RunnableConfig) => string | undefined) | undefined;
  systemPrompt: string | BaseMessage | undefined;
  /** Fixed tools; a {@link ToolsForCall} function is applied by the node per call. */
  tools: readonly unknown[] | undefined;
  logger: ContextLogger | undefined;
  onReport: ReportListener | undefined;
  /** Where saved memories come from, if anywhere. */
  memories: true | MemoriesFromStore | undefined;
  /** The node's `model` option (its profile is read per call). */
  model: object | undefined;
  /** An explicit `profile` option: it wins over the profile read from the model. */
  profile: ModelLimits | undefined;
  recordViews: boolean;
}

const INTEGRATION_KEYS = Object.keys(integrationOptionsSchema.shape) as (keyof IntegrationOptions)[];

/** Options of the core manager that are neither integration options nor per-request settings. */
const MANAGER_KEYS = [
  "profile",
  "estimator",
  "summarizer",
  "summarizerInputTokens",
  "summarizerTimeoutMs",
  "maxSummarizerFailures",
  "summarizerCooldownMs",
  "calibrate",
  "isOverflow",
  "onCompaction",
  "writeBack",
  "onStoreError",
  "pin",
  "messageDate",
  "trustPinField",
  "largeResults",
  "now",
  "imageInputs",
] as const satisfies readonly (keyof ContextOptions)[];

/** Every key a factory accepts, in the order error messages list them. */
const OPTION_KEYS: readonly string[] = [...new Set<string>([...CONTEXT_SETTING_KEYS, ...MANAGER_KEYS, ...INTEGRATION_KEYS])];
// Fails to compile when `ContextOptions` gains a key that OPTION_KEYS does not list.
type UnlistedOption = Exclude<keyof ContextOptions, (typeof CONTEXT_SETTING_KEYS)[number] | (typeof MANAGER_KEYS)[number] | keyof IntegrationOptions>;
const everyOptionListed: [UnlistedOption] extends [never] ? true : UnlistedOption = true;
void everyOptionListed;

/** Throws on a key no option has, as a request's `context` does. */
function knownOptions(options: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(options)) if (!OPTION_KEYS.includes(key)) throw unknownOption(key, OPTION_KEYS);
  return options;
}

/**
 * Validate factory options once. Throws a {@link ContextIntegrationError}
 * (`INVALID_OPTION`) naming the option, or a core `ContextViewError` for core options.
 */
export function resolveContextOptions(options: ContextOptions | undefined): ResolvedContextOptions {
  if (options === undefined) options = {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`options\` to be an object, got ${describeValue(options)}`, { field: "options" });
  }
  options = knownOptions(options as Record<string, unknown>) as ContextOptions;
  const picked: Record<string, unknown> = {};
  for (const key of INTEGRATION_KEYS) if (options[key] !== undefined) picked[key] = options[key];
  const parsed = integrationOptionsSchema.safeParse(picked);
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? "options");
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`${field}\` to be ${EXPECTED[field] ?? "valid"}, got ${describeValue(picked[field])}`, { field });
  }
  const settingsInput: Record<string, unknown> = {};
  for (const key of CONTEXT_SETTING_KEYS) if (options[key] !== undefined) settingsInput[key] = options[key];
  const settings = parseContextConfig(settingsInput, "", "INVALID_OPTION");

  const store = options.store ?? new InMemoryContextStore();
  const summarizer = summarizerOf(options.summarizer);
  const managerOptions = { ...options, store } as ContextManagerOptions;
  for (const key of INTEGRATION_KEYS) delete (managerOptions as Record<string, unknown>)[key];
  managerOptions.store = store;
  if (summarizer !== undefined) managerOptions.summarizer = summarizer;
  if (options.largeResults === undefined && options.largeResultWorker !== false) managerOptions.largeResults = workerLargeResults;
  let stateless: ContextManager | undefined;
  return {
    manager: createContextManager(managerOptions),
    statelessManager: () => (stateless ??= statelessManagerOf(managerOptions)),
    store,
    settings,
    evidence: options.evidence ?? "update",
    strictEvidence: options.strictEvidence ?? false,
    resolveUserId: options.resolveUserId,
    systemPrompt: options.systemPrompt,
    tools: Array.isArray(options.tools) ? (options.tools as readonly unknown[]) : undefined,
    logger: options.logger,
    onReport: options.onReport as ReportListener | undefined,
    memories: options.memories as true | MemoriesFromStore | undefined,
    model: options.model,
    profile: options.profile,
    recordViews: options.recordViews ?? true,
  };
}
