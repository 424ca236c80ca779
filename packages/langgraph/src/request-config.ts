import type { Budget, ContextSettings } from "@contextview/core";
import { describeValue, SETTINGS_SPEC, settingExpectation, type SettingName, type SettingSpec } from "@contextview/core/internal";
import { z } from "zod";
import { closestName } from "./closest-name.js";
import { ContextIntegrationError } from "./errors.js";

type Spec = typeof SETTINGS_SPEC;
/** The settings one request may override, in the group `G` (budget fields sit under `budget`). */
type RequestSettings<G extends boolean> = {
  [K in SettingName]: Spec[K] extends { notInRequestConfig: true } ? never : Spec[K]["scope"] extends "request" ? ((Spec[K]["group"] extends "budget" ? G : Not<G>) extends true ? K : never) : never;
}[SettingName];
type Not<B extends boolean> = B extends true ? false : true;
type SchemaOf<K extends SettingName> = z.ZodOptional<Spec[K]["type"] extends "boolean" ? z.ZodBoolean : z.ZodNumber>;
/** Mapped over `ContextSettings`/`Budget` so each key keeps their JSDoc (defaults, meaning) in editors. */
type ShapeOf<K extends SettingName> = { [F in keyof Pick<Required<ContextSettings> & Budget, K & keyof (ContextSettings & Budget)>]: SchemaOf<F & SettingName> };

/** The zod schema of one setting, with the bounds of its spec. */
function schemaOf(field: SettingName): z.ZodOptional<z.ZodBoolean | z.ZodNumber> {
  const spec: SettingSpec = SETTINGS_SPEC[field];
  if (spec.type === "boolean") return z.boolean().optional();
  let schema = spec.type === "integer" ? z.number().int() : z.number();
  if (spec.min !== undefined) schema = spec.exclusiveMin ? schema.gt(spec.min) : schema.min(spec.min);
  // An integer is a safe integer, as core checks it.
  const max = spec.max ?? (spec.type === "integer" ? Number.MAX_SAFE_INTEGER : undefined);
  if (max !== undefined) schema = spec.exclusiveMax ? schema.lt(max) : schema.max(max);
  return schema.optional();
}

/**
 * The shape of {@link contextConfigSchema}, named so its declaration keeps the JSDoc
 * of each setting (a shape TypeScript spelled out would drop it).
 */
type ContextConfigShape = {
  /** Budget fields, in estimated tokens. @default core's `DEFAULT_BUDGET` (and the environment) */
  budget: z.ZodOptional<z.ZodObject<ShapeOf<RequestSettings<true>>, z.core.$strict>>;
} & ShapeOf<RequestSettings<false>>;

function shapeOf<K extends SettingName>(inBudget: boolean): ShapeOf<K> {
  const fields = (Object.keys(SETTINGS_SPEC) as SettingName[]).filter((field) => {
    const spec: SettingSpec = SETTINGS_SPEC[field];
    return spec.scope === "request" && spec.notInRequestConfig !== true && (spec.group === "budget") === inBudget;
  });
  return Object.fromEntries(fields.map((field) => [field, schemaOf(field)])) as ShapeOf<K>;
}

/**
 * The zod schema of the settings one request may override: the runtime `context`
 * (LangGraph's `invoke(input, { context })`, which the rest of the runtime context shares
 * with your application) or `config.configurable.context`. Built from core's
 * `SETTINGS_SPEC` (bounds and defaults are listed in docs/configuration.md). Strict: an
 * unknown key of `configurable.context` is an error that names it. Every field is
 * optional; a request value overrides the factory's, which overrides the default. Spread
 * its `shape` into an agent's `contextSchema` to type the runtime context.
 *
 * @example
 * ```ts
 * await agent.invoke(input, { configurable: { thread_id: "t-1" }, context: { userId: "u-1", budget: { promptBudget: 8000 } } });
 * await graph.invoke(input, {
 *   configurable: {
 *     thread_id: "t-1",
 *     user_id: "u-1",
 *     context: { budget: { promptBudget: 8000 }, summarize: false, keepMinText: 2 },
 *   },
 * });
 * ```
 */
export const contextConfigSchema: z.ZodObject<ContextConfigShape, z.core.$strict> = z.strictObject({
  /** Budget fields, in estimated tokens. @default core's `DEFAULT_BUDGET` (and the environment) */
  budget: z.strictObject(shapeOf<RequestSettings<true>>(true)).optional(),
  ...shapeOf<RequestSettings<false>>(false),
});

/** Per-request settings, as accepted in the runtime `context` and `config.configurable.context` (inferred from {@link contextConfigSchema}). */
export type ContextConfig = z.infer<typeof contextConfigSchema>;

/** The keys of {@link ContextConfig}: the settings a factory option may also set. */
export const CONTEXT_SETTING_KEYS: readonly (keyof ContextConfig)[] = Object.freeze(Object.keys(contextConfigSchema.shape) as (keyof ContextConfig)[]);
/** The fields of a request's `budget` (`promptBudget`, `contextWindow`, …), which belong inside it. */
export const BUDGET_SETTING_KEYS: readonly string[] = Object.freeze(Object.keys(contextConfigSchema.shape.budget.unwrap().shape));

/**
 * Validate per-request settings and return them as core `ContextSettings`.
 * Throws a {@link ContextIntegrationError} whose message and `field` name the
 * first wrong field under `prefix`: ``Expected `context.budget.promptBudget` to be a positive integer, got -1``.
 *
 * @param value - The raw value, e.g. `config.configurable.context`; `undefined` and `null` mean "no overrides".
 * @param prefix - How the value is named in messages.
 * @default prefix "context"
 * @example
 * ```ts
 * parseContextConfig({ summarize: false }); // { summarize: false }
 * parseContextConfig({ budgt: {} }); // throws: Unknown setting `context.budgt` …
 * ```
 */
export function parseContextConfig(value: unknown, prefix = "context", code: "INVALID_REQUEST_CONFIG" | "INVALID_OPTION" = "INVALID_REQUEST_CONFIG"): ContextSettings {
  if (value === undefined || value === null) return {};
  let result: ReturnType<typeof contextConfigSchema.safeParse>;
  try {
    result = contextConfigSchema.safeParse(value);
  } catch (cause) {
    // A getter or proxy of the caller's object threw while it was read.
    throw new ContextIntegrationError(code, `Could not read \`${prefix}\`: reading it threw ${describeValue(cause)}`, { field: prefix, cause });
  }
  if (result.success) return withoutUndefined(result.data) as ContextSettings;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const field = fieldName(prefix, [...path, issue.keys[0] ?? ""]);
    const allowed = path.length === 0 ? CONTEXT_SETTING_KEYS : BUDGET_SETTING_KEYS;
    throw unknownSetting(code, field, allowed);
  }
  const field = fieldName(prefix, path);
  const leaf = path[path.length - 1];
  const expected = leaf === undefined ? "an object of context settings" : leaf === "budget" ? "an object of budget fields" : settingExpectation(leaf as SettingName);
  throw new ContextIntegrationError(code, `Expected \`${field}\` to be ${expected}, got ${describeValue(valueAt(value, path))}`, { field });
}

/**
 * The error for a key no setting has, the closest name first:
 * ``Unknown setting `context.budgt`; did you mean `context.budget`? Expected one of `budget`, …``
 * (``Unknown option`` for a factory's `budget`), with a hint when the key is a budget
 * field given beside `budget` instead of inside it.
 */
export function unknownSetting(code: "INVALID_REQUEST_CONFIG" | "INVALID_OPTION", field: string, allowed: readonly string[]): ContextIntegrationError {
  const leaf = field.slice(field.lastIndexOf(".") + 1);
  const parent = field.slice(0, field.length - leaf.length);
  const inBudget = !field.endsWith(`budget.${leaf}`) && BUDGET_SETTING_KEYS.includes(leaf);
  const hint = inBudget ? ` (budget fields go inside \`budget\`: \`budget: { ${leaf}: … }\`)` : "";
  const closest = inBudget ? undefined : closestName(leaf, allowed);
  const guess = closest === undefined ? "expected" : `did you mean \`${parent}${closest}\`? Expected`;
  const kind = code === "INVALID_OPTION" ? "option" : "setting";
  const message = `Unknown ${kind} \`${field}\`; ${guess} one of ${allowed.map((key) => `\`${key}\``).join(", ")}${hint}`;
  return new ContextIntegrationError(code, message, { field });
}

function fieldName(prefix: string, path: readonly string[]): string {
  return [prefix, ...path].filter((part) => part !== "").join(".");
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) current = typeof current === "object" && current !== null ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

/** Optional fields parsed as `undefined` are left out, as `exactOptionalPropertyTypes` wants. */
function withoutUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    out[key] = typeof field === "object" && field !== null && !Array.isArray(field) ? withoutUndefined(field) : field;
  }
  return out as T;
}

