import { invalidOption } from "./errors.js";

/** The value as a plain record, or `INVALID_OPTION` naming `field`. */
export function objectAt(field: string, value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidOption(field, "an object", value);
  return value as Record<string, unknown>;
}

/** The value as a non-negative safe integer, or `INVALID_OPTION` naming `field`. */
export function countAt(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw invalidOption(field, "a non-negative integer", value);
  return value;
}

/** The value as a finite number, or `INVALID_OPTION` naming `field`. */
export function finiteAt(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw invalidOption(field, "a finite number", value);
  return value;
}
