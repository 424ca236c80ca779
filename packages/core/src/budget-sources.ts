import { BUDGET_ENV, DEFAULT_BUDGET, resolveBudget, type Budget, type ResolvedBudget } from "./budget.js";

/**
 * Where one budget number came from: a factory `option`, the per-call `request`
 * settings, the model's `profile`, an `env` variable, or the `default`.
 */
export type BudgetSource = "option" | "request" | "profile" | "env" | "default";

/** The source of every budget field. */
export type BudgetSources = Readonly<Record<keyof Budget, BudgetSource>>;

/**
 * What contextview reads from a LangChain model profile (`model.profile`, a
 * `ModelProfile` of `@langchain/core`). Other profile fields are ignored; a field
 * that is absent, or not a positive integer, is treated as unknown.
 */
export interface ModelLimits {
  /** The model's context window: the default `contextWindow`. */
  maxInputTokens?: number | undefined;
  /** The most the model answers with: caps the default `responseReserve`. */
  maxOutputTokens?: number | undefined;
  /** `false`: image blocks become placeholders in every turn, the current one included. */
  imageInputs?: boolean | undefined;
}

/** Input of {@link resolveBudgetSources}, from the weakest layer that is not a default to the strongest. */
export interface BudgetLayers {
  /** The model's profile. @default undefined */
  profile?: ModelLimits | undefined;
  /** Factory options. @default undefined */
  option?: Partial<Budget> | undefined;
  /** Per-request settings (`config.configurable.context.budget`). @default undefined */
  request?: Partial<Budget> | undefined;
  /** Where the `*_TOKENS` variables are read. @default process.env */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /**
   * True when `option` was resolved before (a factory checks its budget once, when it is
   * called): its fields are not checked again; the layers are still checked as a whole.
   * @default false
   */
  optionChecked?: boolean | undefined;
}

const FIELDS = Object.keys(DEFAULT_BUDGET) as (keyof Budget)[];

/** How a budget error names where a number came from. */
const SOURCE_PHRASE: Readonly<Record<BudgetSource, (field: keyof Budget) => string>> = {
  request: (field) => `from the request's \`context.budget.${field}\``,
  option: (field) => `from the \`budget.${field}\` option`,
  env: (field) => `from \`${BUDGET_ENV[field] ?? field}\``,
  profile: (field) => `from the model's profile \`${field === "contextWindow" ? "maxInputTokens" : "maxOutputTokens"}\``,
  default: () => "by default",
};

const positiveInt = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value > 0;

function defaultEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

/**
 * The budget fields a model profile sets: `contextWindow` from `maxInputTokens`,
 * and the default `responseReserve` capped at `maxOutputTokens` (a model that
 * answers with at most 1,000 tokens needs no 4,096-token reserve).
 *
 * @example
 * ```ts
 * budgetFromProfile({ maxInputTokens: 128000, maxOutputTokens: 16384 }); // { contextWindow: 128000 }
 * budgetFromProfile({ maxInputTokens: 8192, maxOutputTokens: 1024 }); // { contextWindow: 8192, responseReserve: 1024 }
 * ```
 */
export function budgetFromProfile(profile: ModelLimits | undefined): Partial<Budget> {
  if (typeof profile !== "object" || profile === null) return {};
  const out: Partial<Budget> = {};
  if (positiveInt(profile.maxInputTokens)) out.contextWindow = profile.maxInputTokens;
  if (positiveInt(profile.maxOutputTokens) && profile.maxOutputTokens < DEFAULT_BUDGET.responseReserve) out.responseReserve = profile.maxOutputTokens;
  return out;
}

/**
 * Resolve a budget from its layers and say where each number came from. A
 * request value wins over a factory option, which wins over an environment
 * variable, which wins over the model's profile, which wins over
 * {@link DEFAULT_BUDGET}. The environment beats the profile because it is set by
 * someone who knows the deployment; the profile is what LangChain knows of the model.
 * Throws like {@link resolveBudget}.
 *
 * @example
 * ```ts
 * const { budget, sources } = resolveBudgetSources({ profile: { maxInputTokens: 128000 }, option: { promptBudget: 24000 }, env: {} });
 * budget.contextWindow; // 128000
 * sources; // { contextWindow: "profile", promptBudget: "option", responseReserve: "default", safetyReserve: "default", memoryBudget: "default" }
 * ```
 */
export function resolveBudgetSources(layers: BudgetLayers): { budget: ResolvedBudget; sources: BudgetSources } {
  const env = layers.env ?? defaultEnv();
  const fromEnv = (field: keyof Budget): boolean => {
    const name = BUDGET_ENV[field];
    const raw = name === undefined ? undefined : env[name];
    return raw !== undefined && raw.trim() !== "";
  };
  const profile = budgetFromProfile(layers.profile);
  for (const field of FIELDS) if (fromEnv(field)) delete profile[field];
  const merged = { ...profile, ...layers.option, ...layers.request };
  const sourceOf = (field: keyof Budget): BudgetSource =>
      layers.request?.[field] !== undefined
        ? "request"
        : layers.option?.[field] !== undefined
          ? "option"
          : fromEnv(field)
            ? "env"
            : profile[field] !== undefined
              ? "profile"
              : "default";
  const checked = layers.optionChecked === true ? new Set(FIELDS.filter((field) => sourceOf(field) === "option")) : undefined;
  const budget = resolveBudget(merged, env, (field) => SOURCE_PHRASE[sourceOf(field)](field), checked);
  const sources = {} as Record<keyof Budget, BudgetSource>;
  for (const field of FIELDS) sources[field] = sourceOf(field);
  return { budget, sources: Object.freeze(sources) };
}
