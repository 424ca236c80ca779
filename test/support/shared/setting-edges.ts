import { SETTINGS_SPEC, type SettingName, type SettingSpec } from "@contextview/core/internal";

/**
 * Values just outside what a setting of `SETTINGS_SPEC` accepts, and values of the
 * wrong type: what every entry point (core's factories, LangGraph's schema) refuses.
 *
 * @example
 * ```ts
 * it.each(refusedValues("dropStep"))("refuses %p", (value) => expect(() => buildContext({ messages, dropStep: value as never })).toThrow());
 * ```
 */
export function refusedValues(field: SettingName): unknown[] {
  const { type, min, max, exclusiveMin, exclusiveMax } = SETTINGS_SPEC[field] as SettingSpec;
  if (type === "boolean") return ["yes", 1, null];
  const out: unknown[] = [String(min ?? 1), Number.NaN, Number.POSITIVE_INFINITY];
  const step = type === "integer" ? 1 : 0.05;
  if (min !== undefined) out.push(exclusiveMin ? min : min - step);
  if (max !== undefined) out.push(exclusiveMax ? max : max + step);
  else if (type === "integer") out.push(Number.MAX_SAFE_INTEGER + 2);
  if (type === "integer") out.push((min ?? 0) + 1.5);
  return out;
}

/**
 * The edges a setting accepts: its lowest and highest values.
 *
 * @example
 * ```ts
 * acceptedValues("dropStep"); // [0, 0.9]
 * ```
 */
export function acceptedValues(field: SettingName): unknown[] {
  const { type, min, max, exclusiveMin, exclusiveMax } = SETTINGS_SPEC[field] as SettingSpec;
  if (type === "boolean") return [true, false];
  const step = type === "integer" ? 1 : 0.05;
  const low = min === undefined ? 0 : exclusiveMin ? min + step : min;
  const high = max === undefined ? Number.MAX_SAFE_INTEGER : exclusiveMax ? max - step : max;
  return [low, high];
}
