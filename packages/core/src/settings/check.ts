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

function expectationOf(spec: SettingSpec): string {
  if (spec.type === "boolean") return "a boolean";
  const { min, max } = spec;
  const why = spec.maxReason === undefined ? "" : ` (${spec.maxReason})`;
  if (spec.type === "number") {
    if (min === 0 && spec.exclusiveMin && max === undefined) return "a positive finite number";
    if (min === undefined || max === undefined) return "a finite number";
    if (spec.exclusiveMin && spec.exclusiveMax) return `a number between ${min} and ${max} (exclusive)`;
    return `a number from ${min} to ${max}${why}`;
  }
  if (max !== undefined) return `an integer from ${min ?? Number.MIN_SAFE_INTEGER} to ${max}${why}`;
  if (min === 0) return "a non-negative integer";
  if (min === 1) return "a positive integer";
  return min === undefined ? "an integer" : `an integer of at least ${min}`;
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
  const spec: SettingSpec = SETTINGS_SPEC[field];
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
