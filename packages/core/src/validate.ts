import { invalidOption } from "./errors.js";
import { checkBound, type Bound } from "./settings/check.js";

const COUNT: Bound = { type: "integer", min: 0 };
const FINITE: Bound = { type: "number" };

/** The value as a plain record, or `INVALID_OPTION` naming `field`. */
export function objectAt(field: string, value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidOption(field, "an object", value);
  return value as Record<string, unknown>;
}

/** The value as a non-negative safe integer, or `INVALID_OPTION` naming `field`. */
export function countAt(field: string, value: unknown): number {
  return checkBound(field, COUNT, value) as number;
}

/** The value as a finite number, or `INVALID_OPTION` naming `field`. */
export function finiteAt(field: string, value: unknown): number {
  return checkBound(field, FINITE, value) as number;
}
