import {
  InMemoryContextStore,
  ContextViewError,
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
import { flattenOptions, OPTION_GROUPS, placeOf, TOP_LEVEL_OPTIONS, type OptionGroup } from "./option-groups.js";
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

/** Every option a factory reads, each under its own name: what the groups are flattened into. */
type FlatContextOptions = Omit<ContextManagerOptions, "store" | "summarizer" | "budget"> & IntegrationManagerOptions & IntegrationOptions;
type GroupKey<G extends OptionGroup> = (typeof OPTION_GROUPS)[G][number];
type TopKey = (typeof TOP_LEVEL_OPTIONS)[number];

// Fails to compile when an option is in no place, in two, or a place names no option.
type Unplaced = Exclude<keyof FlatContextOptions, TopKey | GroupKey<OptionGroup>>;
type Unknown = Exclude<TopKey | GroupKey<OptionGroup>, keyof FlatContextOptions>;
type Twice =
  | (TopKey & GroupKey<OptionGroup>)
  | (GroupKey<"view"> & GroupKey<"summaries">)
  | (GroupKey<"view"> & GroupKey<"advanced">)
  | (GroupKey<"summaries"> & GroupKey<"advanced">);
const everyOptionPlacedOnce: [Unplaced | Unknown | Twice] extends [never] ? true : Unplaced | Unknown | Twice = true;
void everyOptionPlacedOnce;

/**
 * How the view is shaped: the settings of docs/configuration.md's view table, `messageDate`
 * and `excludeTools`. Each keeps its default when left out; one request overrides the
 * request-scope ones, flat, in its `context` (`context: { dropStep: 0 }`).
 */
export type ViewGroupOptions = Pick<FlatContextOptions, GroupKey<"view">>;
/** When a summary is made and how the summarizer is called (docs/summarizing.md). */
export type SummaryGroupOptions = Pick<FlatContextOptions, GroupKey<"summaries">>;
/** Hooks and switches few agents need: calibration, overflow detection, write-back, store errors, large results, the clock, strict evidence, view records. */
export type AdvancedGroupOptions = Pick<FlatContextOptions, GroupKey<"advanced">>;

/**
 * Options of {@link createContextNode}, {@link withContext} and {@link contextMiddleware}:
 * the everyday options at the top level, the rest in three groups — `view` (how the view is
 * shaped), `summaries` (when a summary is made, how the summarizer is called) and
 * `advanced` (hooks and switches few agents need). Each is a default for every request;
 * one request overrides the view and summary settings, flat, in its `context`.
 *
 * @example
 * ```ts
 * contextMiddleware({
 *   store,
 *   budget: { promptBudget: 12000 },
 *   summarizer: model,
 *   view: { cacheBreakpoints: true, recallBudget: 2000 },
 *   summaries: { keepMinText: 2 },
 *   advanced: { recordViews: false },
 * });
 * ```
 */
export interface ContextOptions extends Pick<FlatContextOptions, TopKey> {
  /**
   * How the view is shaped: recall and excerpt room, pinning, prompt-cache breakpoints,
   * how far the head moves, images (docs/configuration.md, "View").
   * @default {} (every view setting at its default)
   * @example
   * ```ts
   * createContextNode({ store, view: { cacheBreakpoints: true, pinOpeningRequest: false } });
   * ```
   */
  view?: ViewGroupOptions | undefined;
  /**
   * When a summary is made and what stays verbatim (`triggerRatio`, `keepMinTokens`,
   * `keepMinText`, `keepMaxTokens`), and how the summarizer is called (input size,
   * timeout, failures before a cool-down); docs/summarizing.md.
   * @default {} (every summary setting at its default)
   * @example
   * ```ts
   * contextMiddleware({ store, summarizer: model, summaries: { keepMinText: 2, summarizerTimeoutMs: 30000 } });
   * ```
   */
  summaries?: SummaryGroupOptions | undefined;
  /**
   * Hooks and switches few agents need: `calibrate`, `isOverflow`, `onCompaction`,
   * `writeBack`, `onStoreError`, `largeResults`, `largeResultWorker`, `now`,
   * `strictEvidence`, `recordViews` (docs/configuration.md, "The factories' options").
   * @default {} (calibration on, view records kept, large results in a worker)
   * @example
   * ```ts
   * createContextNode({ store, advanced: { recordViews: false, strictEvidence: true } });
   * ```
   */
  advanced?: AdvancedGroupOptions | undefined;
}

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

/**
 * Validate factory options once. Throws a {@link ContextIntegrationError}
 * (`INVALID_OPTION`) naming the option, or a core `ContextViewError` for core options.
 */
export function resolveContextOptions(options: ContextOptions | undefined): ResolvedContextOptions {
  if (options === undefined) options = {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`options\` to be an object, got ${describeValue(options)}`, { field: "options" });
  }
  const flat = flattenOptions(options as Record<string, unknown>) as FlatContextOptions;
  const picked: Record<string, unknown> = {};
  for (const key of INTEGRATION_KEYS) if (flat[key] !== undefined) picked[key] = flat[key];
  const parsed = integrationOptionsSchema.safeParse(picked);
  if (!parsed.success) {
    const key = String(parsed.error.issues[0]?.path[0] ?? "options");
    const field = placeOf(key);
    const message = `Expected \`${field}\` to be ${EXPECTED[key] ?? "valid"}, got ${describeValue(picked[key])}`;
    throw new ContextIntegrationError("INVALID_OPTION", message, { field });
  }
  const settings = requestScopeSettings(options, flat);

  const store = flat.store ?? new InMemoryContextStore();
  const summarizer = summarizerOf(flat.summarizer);
  const managerOptions = { ...flat, store } as ContextManagerOptions;
  for (const key of INTEGRATION_KEYS) delete (managerOptions as Record<string, unknown>)[key];
  managerOptions.store = store;
  if (summarizer !== undefined) managerOptions.summarizer = summarizer;
  if (flat.largeResults === undefined && flat.largeResultWorker !== false) managerOptions.largeResults = workerLargeResults;
  let stateless: ContextManager | undefined;
  return {
    manager: inGroupTerms(() => createContextManager(managerOptions)),
    statelessManager: () => (stateless ??= statelessManagerOf(managerOptions)),
    store,
    settings,
    evidence: flat.evidence ?? "update",
    strictEvidence: flat.strictEvidence ?? false,
    resolveUserId: flat.resolveUserId,
    systemPrompt: flat.systemPrompt,
    tools: Array.isArray(flat.tools) ? (flat.tools as readonly unknown[]) : undefined,
    logger: flat.logger,
    onReport: flat.onReport as ReportListener | undefined,
    memories: flat.memories as true | MemoriesFromStore | undefined,
    model: flat.model,
    profile: flat.profile,
    recordViews: flat.recordViews ?? true,
  };
}

/**
 * The settings one request may also set, validated once: those at the top level and in
 * the `view` and `summaries` groups, each named where it was given (`view.dropStep`).
 */
function requestScopeSettings(options: ContextOptions, flat: FlatContextOptions): ContextSettings {
  const settings: Record<string, unknown> = {};
  const places: [string, object][] = [["", flat], ["view", options.view ?? {}], ["summaries", options.summaries ?? {}]];
  for (const [group, source] of places) {
    const input: Record<string, unknown> = {};
    for (const key of CONTEXT_SETTING_KEYS) {
      const value = (source as Record<string, unknown>)[key];
      if (value !== undefined && placeOf(key) === (group === "" ? key : `${group}.${key}`)) input[key] = value;
    }
    Object.assign(settings, parseContextConfig(input, group, "INVALID_OPTION"));
  }
  return settings as ContextSettings;
}

/**
 * Runs `build`, naming a grouped option in a core `INVALID_OPTION` error where the
 * factory takes it (`summaries.summarizerTimeoutMs`, not `summarizerTimeoutMs`).
 */
function inGroupTerms<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (!ContextViewError.isInstance(error) || error.code !== "INVALID_OPTION") throw error;
    const field = error.details["field"];
    if (typeof field !== "string" || placeOf(field) === field) throw error;
    const message = error.message.replace(`\`${field}\``, `\`${placeOf(field)}\``);
    throw new ContextViewError("INVALID_OPTION", message, { ...error.details, field: placeOf(field) }, { cause: error });
  }
}
