import type { ContextSettings } from "@contextview/core";
import { describeValue, SETTINGS_SPEC, type SettingName, type SettingSpec } from "@contextview/core/internal";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ContextIntegrationError } from "./errors.js";
import { placeOf } from "./option-groups.js";
import { BUDGET_SETTING_KEYS, CONTEXT_SETTING_KEYS, parseContextConfig } from "./request-config.js";

/**
 * A request's config as the integrations read it: LangGraph's runtime `context`
 * (`graph.invoke(input, { context })`, `runtime.context` in a createAgent middleware)
 * rides beside `configurable`.
 */
export type RequestConfig = RunnableConfig & { context?: unknown };

/** Where per-request settings go, for error messages. */
export const SETTINGS_BELONG = "put per-request settings in `context` (runtime: `invoke(input, { context: { budget } })`) or in `configurable.context`";

/** contextview settings a factory sets once: a request (runtime context or configurable) cannot change them. */
const FACTORY_ONLY: readonly string[] = [
  ...(Object.keys(SETTINGS_SPEC) as SettingName[]).filter((name) => {
    const spec: SettingSpec = SETTINGS_SPEC[name];
    return ["view", "summarize", "manager"].includes(spec.group) && !(CONTEXT_SETTING_KEYS as readonly string[]).includes(name);
  }),
  // A view option that is not a number or a switch, so not in SETTINGS_SPEC.
  "excludeTools",
];

/** The runtime context of a request when it is an object (an application may give any value). */
export function runtimeContextOf(config: RequestConfig | undefined): Record<string, unknown> | undefined {
  const context = config?.context;
  return typeof context === "object" && context !== null && !Array.isArray(context) ? (context as Record<string, unknown>) : undefined;
}

function misplaced(field: string, message: string): ContextIntegrationError {
  return new ContextIntegrationError("INVALID_REQUEST_CONFIG", message, { field });
}

/**
 * The settings of the runtime context: its keys that name a per-request setting. The
 * rest of it is the application's and is left alone, except keys that are ours in the
 * wrong place: a budget field beside `budget`, a nested `context`, a factory-only setting.
 */
function runtimeSettings(context: Record<string, unknown>): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(context)) {
    if (value === undefined) continue;
    if ((CONTEXT_SETTING_KEYS as readonly string[]).includes(key)) picked[key] = value;
    else if (BUDGET_SETTING_KEYS.includes(key)) {
      const inside = `\`context: { budget: { ${key}: ${describeValue(value)} } }\``;
      throw misplaced(`context.${key}`, `\`context.${key}\` is a budget field: put it inside \`budget\` (${inside})`);
    } else if (key === "context" && typeof value === "object" && value !== null) {
      const message = "Found `context.context`: per-request settings go at the top of the runtime context (`context: { budget: … }`)";
      throw misplaced("context.context", message);
    } else if (FACTORY_ONLY.includes(key)) {
      const factories = "createContextNode, withContext, contextMiddleware";
      const message = `\`context.${key}\` cannot change per request: set \`${placeOf(key)}\` once, on the factory (${factories})`;
      throw misplaced(`context.${key}`, message);
    }
  }
  return picked;
}

/** A setting or budget field written straight into `configurable`, where nothing reads it. */
function refuseSettingsInConfigurable(configurable: Record<string, unknown>): void {
  for (const key of Object.keys(configurable)) {
    if (configurable[key] === undefined) continue;
    const inBudget = BUDGET_SETTING_KEYS.includes(key);
    if (!inBudget && !(CONTEXT_SETTING_KEYS as readonly string[]).includes(key)) continue;
    const where = inBudget ? `\`context: { budget: { ${key} } }\`` : `\`context: { ${key} }\``;
    throw misplaced(`configurable.${key}`, `\`configurable.${key}\` is not read: ${SETTINGS_BELONG}, e.g. ${where}`);
  }
}

/** Merge two sets of settings; a field both set to different values is an error naming both places. */
function mergeSettings(runtime: ContextSettings, configurable: ContextSettings): ContextSettings {
  const conflict = (field: string, a: unknown, b: unknown) =>
    misplaced(
      `context.${field}`,
      `\`${field}\` is set both in the runtime \`context\` (${describeValue(a)}) and in \`configurable.context\` (${describeValue(b)}): set it in one place`,
    );
  const merged: Record<string, unknown> = { ...configurable };
  for (const [key, value] of Object.entries(runtime)) {
    const other = merged[key];
    if (key === "budget" && other !== undefined) {
      const budget: Record<string, unknown> = { ...(other as object) };
      for (const [field, amount] of Object.entries(value as object)) {
        if (budget[field] !== undefined && budget[field] !== amount) throw conflict(`budget.${field}`, amount, budget[field]);
        budget[field] = amount;
      }
      merged[key] = budget;
    } else {
      if (other !== undefined && other !== value) throw conflict(key, value, other);
      merged[key] = value;
    }
  }
  return merged as ContextSettings;
}

/**
 * The per-request settings of one call, validated: those of the runtime `context` (its
 * keys that name a setting) and those of `config.configurable.context`, merged. A
 * setting in the wrong place — straight in `configurable`, a budget field beside
 * `budget`, a factory-only setting — is refused with `INVALID_REQUEST_CONFIG` saying where it
 * belongs, never ignored; so is one field set to two values in the two places.
 *
 * @example
 * ```ts
 * requestSettingsOf({ context: { budget: { promptBudget: 3000 } }, configurable: { thread_id: "t-1" } }); // { budget: { promptBudget: 3000 } }
 * requestSettingsOf({ configurable: { budget: { promptBudget: 3000 } } }); // throws: `configurable.budget` is not read: put per-request settings in …
 * ```
 */
export function requestSettingsOf(config: RequestConfig | undefined): ContextSettings {
  const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
  refuseSettingsInConfigurable(configurable);
  const fromConfigurable = parseContextConfig(configurable["context"]);
  const context = runtimeContextOf(config);
  if (context === undefined) return fromConfigurable;
  return mergeSettings(parseContextConfig(runtimeSettings(context)), fromConfigurable);
}
