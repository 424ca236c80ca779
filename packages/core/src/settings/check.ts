import { invalidOption } from "../errors.js";
import { SETTINGS_SPEC, type SettingName, type SettingSpec, type SettingValue } from "./spec.js";

/**
 * What a setting accepts, as error messages and the docs say it:
 * `"a positive integer"`, `"an integer of at least 50"`, `"a number from 0 to 0.9"`.
 *
 * @example
 * ```ts
 * settingExpectation("triggerRatio"); // "a number between 0 and 1 (exclusive)"
 * ```
 */
export function settingExpectation(field: SettingName): string {
  return expectationOf(SETTINGS_SPEC[field]);
}

/** What a value must be: the part of a {@link SettingSpec} that validation reads. */
export type Bound = Pick<SettingSpec, "type" | "min" | "max" | "exclusiveMin" | "exclusiveMax" | "maxReason">;

/**
 * The value when it is within `bound`, else `INVALID_OPTION` naming `name`; for values
 * that are not settings (stored state, counts read back), phrased as settings are.
 *
 * @example
 * ```ts
 * checkBound("state.cursor", { type: "integer", min: 0 }, -1); // throws: Expected `state.cursor` to be a non-negative integer, got -1
 * ```
 */
export function checkBound(name: string, bound: Bound, value: unknown): number | boolean {
  if (!withinBound(bound, value)) throw invalidOption(name, expectationOf(bound), value);
  return value as number | boolean;
}

function expectationOf(spec: Bound): string {
  if (spec.type === "boolean") return "a boolean";
  const { min, max, exclusiveMin = false, exclusiveMax = false } = spec;
  const why = spec.maxReason === undefined ? "" : ` (${spec.maxReason})`;
  const kind = spec.type === "integer" ? "integer" : "number";
  // The phrases people read most often first; the general form covers the rest.
  if (max === undefined && !exclusiveMin) {
    if (min === undefined) return spec.type === "integer" ? "an integer" : "a finite number";
    if (min === 0) return spec.type === "integer" ? "a non-negative integer" : "a finite number of at least 0";
    if (min === 1 && spec.type === "integer") return "a positive integer";
  }
  if (max === undefined && exclusiveMin && min === 0) return spec.type === "integer" ? "a positive integer" : "a positive finite number";
  if (min !== undefined && max !== undefined && exclusiveMin === exclusiveMax) {
    return exclusiveMin ? `a ${kind} between ${min} and ${max} (exclusive)${why}` : `${kind === "integer" ? "an" : "a"} ${kind} from ${min} to ${max}${why}`;
  }
  const parts = [
    ...(min === undefined ? [] : [exclusiveMin ? `greater than ${min}` : `at least ${min}`]),
    ...(max === undefined ? [] : [`${exclusiveMax ? "below" : "at most"} ${max}${why}`]),
  ];
  const phrase = parts.join(" and ");
  return `${kind === "integer" ? "an integer" : "a finite number"} ${phrase.startsWith("at ") ? "of " : ""}${phrase}`;
}

/**
 * True when `value` is one the setting accepts.
 *
 * @example
 * ```ts
 * acceptsSetting("clearStep", 0); // false
 * ```
 */
export function acceptsSetting(field: SettingName, value: unknown): boolean {
  return withinBound(SETTINGS_SPEC[field], value);
}

function withinBound(spec: Bound, value: unknown): boolean {
  if (spec.type === "boolean") return typeof value === "boolean";
  if (typeof value !== "number") return false;
  if (spec.type === "integer" ? !Number.isSafeInteger(value) : !Number.isFinite(value)) return false;
  if (spec.min !== undefined && (spec.exclusiveMin ? value <= spec.min : value < spec.min)) return false;
  if (spec.max !== undefined && (spec.exclusiveMax ? value >= spec.max : value > spec.max)) return false;
  return true;
}

/**
 * The value when the setting accepts it, else a `ContextViewError` (`INVALID_OPTION`)
 * whose `field` is `name`: ``Expected `context.clearStep` to be a positive integer, got 0``.
 *
 * @param name - How the value is named in the message and `field`.
 * @default name field
 * @example
 * ```ts
 * checkSetting("dropStep", 0.5); // 0.5
 * checkSetting("dropStep", 2); // throws: Expected `dropStep` to be a number from 0 to 0.9, got 2
 * ```
 */
export function checkSetting<K extends SettingName>(field: K, value: unknown, name: string = field): SettingValue<K> {
  if (!acceptsSetting(field, value)) throw invalidOption(name, settingExpectation(field), value);
  return value as SettingValue<K>;
}

/**
 * Check every setting of `settings` that the spec knows and that is not `undefined`,
 * naming each `prefix` + its name; other keys are left to their owner.
 *
 * @example
 * ```ts
 * checkSettings({ clearStep: 0 }, ["clearStep"], "context."); // throws naming `context.clearStep`
 * ```
 */
export function checkSettings(settings: object, fields: readonly SettingName[], prefix = ""): void {
  for (const field of fields) {
    const value = (settings as Record<string, unknown>)[field];
    if (value !== undefined) checkSetting(field, value, `${prefix}${field}`);
  }
}

/**
 * The names of the settings that match `filter`, in spec order.
 *
 * @example
 * ```ts
 * settingNames((spec) => spec.group === "budget"); // ["contextWindow", "promptBudget", …]
 * ```
 */
export function settingNames(filter: (spec: SettingSpec) => boolean): SettingName[] {
  return (Object.keys(SETTINGS_SPEC) as SettingName[]).filter((field) => filter(SETTINGS_SPEC[field]));
}

/** Settings whose default is a fixed value (not worked out per call). */
type FixedDefault = { [K in SettingName]: (typeof SETTINGS_SPEC)[K]["default"] extends number | boolean ? K : never }[SettingName];

/**
 * The checked value, or the setting's default when it is `undefined`.
 *
 * @example
 * ```ts
 * settingOrDefault("maxSummarizerFailures", undefined); // 3
 * ```
 */
export function settingOrDefault<K extends FixedDefault>(field: K, value: unknown): SettingValue<K> {
  return value === undefined ? (SETTINGS_SPEC[field].default as SettingValue<K>) : checkSetting(field, value);
}
