import { ContextViewError, describeValue, invalidOption } from "./errors.js";
import { acceptsSetting, checkSetting, settingExpectation } from "./settings/check.js";
import { SETTINGS_SPEC, type SettingSpec } from "./settings/spec.js";

/** Token budget of one model call. All values are estimated tokens. */
export interface Budget {
  /**
   * The model's context window (the smallest across the backends you use).
   * @default 32768 (env `CONTEXT_WINDOW_TOKENS`)
   */
  contextWindow: number;
  /**
   * Target for the whole prompt: system instructions, memories, tool schemas,
   * summary and messages.
   * @default 16000 (env `PROMPT_BUDGET_TOKENS`)
   */
  promptBudget: number;
  /**
   * Room kept for the model's answer (its maximum output tokens).
   * @default 4096 (env `RESPONSE_RESERVE_TOKENS`), at most half of `contextWindow`
   */
  responseReserve: number;
  /**
   * Room kept for estimation error.
   * @default 2048, at most an eighth of `contextWindow`
   */
  safetyReserve: number;
  /**
   * Separate budget for saved memories.
   * @default 1000
   */
  memoryBudget: number;
}

/** A validated budget with the limit every view must fit. */
export interface ResolvedBudget extends Readonly<Budget> {
  /** `min(promptBudget, contextWindow − responseReserve − safetyReserve)`. */
  readonly promptLimit: number;
}

/**
 * The defaults of every budget field.
 *
 * @example
 * ```ts
 * DEFAULT_BUDGET.promptBudget; // 16000
 * ```
 */
export const DEFAULT_BUDGET: Readonly<Budget> = Object.freeze({
  contextWindow: SETTINGS_SPEC.contextWindow.default,
  promptBudget: SETTINGS_SPEC.promptBudget.default,
  responseReserve: SETTINGS_SPEC.responseReserve.default,
  safetyReserve: SETTINGS_SPEC.safetyReserve.default,
  memoryBudget: SETTINGS_SPEC.memoryBudget.default,
});

const FIELDS = Object.keys(DEFAULT_BUDGET) as (keyof Budget)[];

/**
 * Environment variables read by {@link resolveBudget}, by field.
 *
 * @example
 * ```ts
 * BUDGET_ENV.promptBudget; // "PROMPT_BUDGET_TOKENS"
 * ```
 */
export const BUDGET_ENV: Readonly<Partial<Record<keyof Budget, string>>> = Object.freeze(
  Object.fromEntries(FIELDS.flatMap((field) => {
    const spec: SettingSpec = SETTINGS_SPEC[field];
    return spec.env === undefined ? [] : [[field, spec.env]];
  })),
);

function defaultEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}

/**
 * Resolve a budget: explicit overrides win over environment variables, which win
 * over {@link DEFAULT_BUDGET}. A reserve left to its default takes at most a share of
 * the window: `responseReserve` half, `safetyReserve` an eighth (a 3,000-token window
 * keeps 375 for estimation error; 16,384 tokens and more keep 2,048). Throws a
 * `ContextViewError` (`INVALID_OPTION`) that names the field when a value is negative,
 * not an integer, or leaves no room, and says where each number of the sum came from.
 *
 * @param overrides - Fields to set; `undefined` fields are ignored.
 * @param env - Where to read `CONTEXT_WINDOW_TOKENS`, `PROMPT_BUDGET_TOKENS` and
 *   `RESPONSE_RESERVE_TOKENS`. Defaults to `process.env`; pass `{}` to ignore it.
 * @param describeSource - Where a field's value came from, for the no-room message
 *   (e.g. "from the model's profile"); by default "as set", the variable, or "by default".
 * @param checked - Fields of `overrides` already checked (a factory's option, checked when
 *   the factory was called): taken as they are. The fields together are still checked.
 * @example
 * ```ts
 * const budget = resolveBudget({ contextWindow: 8192 }, {});
 * budget.promptLimit; // min(16000, 8192 - 4096 - 1024) = 3072
 * ```
 */
export function resolveBudget(
  overrides: Partial<Budget> | undefined = {},
  env: Readonly<Record<string, string | undefined>> = defaultEnv(),
  describeSource: (field: keyof Budget) => string | undefined = () => undefined,
  checked?: ReadonlySet<keyof Budget>,
): ResolvedBudget {
  if (overrides === null || typeof overrides !== "object" || Array.isArray(overrides)) {
    throw invalidOption("budget", "an object of budget fields", overrides);
  }
  const out = { ...DEFAULT_BUDGET };
  for (const field of FIELDS) {
    const envName = BUDGET_ENV[field];
    const raw = envName === undefined ? undefined : env[envName];
    if (raw !== undefined && raw.trim() !== "") {
      const text = raw.trim();
      // Only whole numbers: `Number` would read "1e3", "0x10" and " " too.
      if (!/^\d+$/.test(text) || !acceptsSetting(field, Number(text))) {
        throw new ContextViewError("INVALID_OPTION", `Expected \`${envName}\` (environment, for \`${field}\`) to be ${settingExpectation(field)}, got ${describeValue(raw)}`, {
          field,
          env: envName,
        });
      }
      out[field] = Number(text);
    }
    const value = overrides[field];
    if (value !== undefined) out[field] = checked?.has(field) === true ? value : checkSetting(field, value);
  }
  for (const key of Object.keys(overrides)) {
    if (!(FIELDS as string[]).includes(key)) {
      throw invalidOption(`budget.${key}`, `one of ${FIELDS.map((f) => `\`${f}\``).join(", ")} (unknown field)`, key);
    }
  }
  const set = (field: keyof Budget): boolean => overrides[field] !== undefined || (BUDGET_ENV[field] !== undefined && (env[BUDGET_ENV[field]] ?? "").trim() !== "");
  // Default reserves shrink with a small window, so a 4k-window model works without settings.
  if (!set("responseReserve")) out.responseReserve = Math.min(out.responseReserve, Math.floor(out.contextWindow / 2));
  if (!set("safetyReserve")) out.safetyReserve = Math.min(out.safetyReserve, Math.floor(out.contextWindow / 8));
  const room = out.contextWindow - out.responseReserve - out.safetyReserve;
  if (room <= 0) {
    const figure = (field: keyof Budget): string => {
      const source = describeSource(field) ?? (overrides[field] !== undefined ? "as set" : set(field) ? `from \`${BUDGET_ENV[field]}\`` : "by default");
      return `${out[field]} ${source}`;
    };
    throw new ContextViewError(
      "INVALID_OPTION",
      `Expected \`responseReserve\` + \`safetyReserve\` (${figure("responseReserve")} + ${figure("safetyReserve")}) to be less than \`contextWindow\` (${figure("contextWindow")}), leaving room for the prompt`,
      { field: "responseReserve", contextWindow: out.contextWindow, responseReserve: out.responseReserve, safetyReserve: out.safetyReserve },
    );
  }
  return Object.freeze({ ...out, promptLimit: Math.min(out.promptBudget, room) });
}
