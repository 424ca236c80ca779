import type { ResolvedBudget } from "../budget.js";
import { resolveBudget } from "../budget.js";
import { invalidOption } from "../errors.js";
import type { BuildContextInput, ViewOptions } from "./types.js";

/** Defaults of every {@link ViewOptions} field. */
export const DEFAULT_VIEW_OPTIONS: Readonly<Required<ViewOptions>> = Object.freeze({
  dropStep: 0.25,
  maxOlderMessageTokens: 1000,
  maxToolCallProseTokens: 200,
  excerptBudget: 600,
  keepRecentToolResults: 3,
  maxToolResultTokens: 2000,
  imageInputs: true,
  clearStep: 4,
  cacheBreakpoints: false,
  pinOpeningRequest: true,
  maxOpeningRequestTokens: 1500,
  pinnedBudget: 3000,
});

const COUNT_FIELDS = [
  "maxOlderMessageTokens",
  "maxToolCallProseTokens",
  "excerptBudget",
  "keepRecentToolResults",
  "maxToolResultTokens",
  "maxOpeningRequestTokens",
  "pinnedBudget",
] as const;

/**
 * Validate view options once and fill in defaults. Throws `INVALID_OPTION` naming the field.
 *
 * @example
 * ```ts
 * resolveViewOptions({ dropStep: 0.5 }).keepRecentToolResults; // 3
 * ```
 */
export function resolveViewOptions(options: ViewOptions = {}): Required<ViewOptions> {
  const out: Required<ViewOptions> = { ...DEFAULT_VIEW_OPTIONS };
  if (options.dropStep !== undefined) {
    const step = options.dropStep;
    if (typeof step !== "number" || !Number.isFinite(step) || step < 0 || step > 0.9) {
      throw invalidOption("dropStep", "a number from 0 to 0.9", step);
    }
    out.dropStep = step;
  }
  for (const field of COUNT_FIELDS) {
    const value = options[field];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw invalidOption(field, "a non-negative integer", value);
    }
    out[field] = value;
  }
  if (options.imageInputs !== undefined) {
    if (typeof options.imageInputs !== "boolean") throw invalidOption("imageInputs", "a boolean", options.imageInputs);
    out.imageInputs = options.imageInputs;
  }
  if (options.clearStep !== undefined) {
    const step = options.clearStep;
    if (typeof step !== "number" || !Number.isSafeInteger(step) || step < 1) throw invalidOption("clearStep", "a positive integer", step);
    out.clearStep = step;
  }
  if (options.cacheBreakpoints !== undefined) {
    if (typeof options.cacheBreakpoints !== "boolean") throw invalidOption("cacheBreakpoints", "a boolean", options.cacheBreakpoints);
    out.cacheBreakpoints = options.cacheBreakpoints;
  }
  if (options.pinOpeningRequest !== undefined) {
    if (typeof options.pinOpeningRequest !== "boolean") throw invalidOption("pinOpeningRequest", "a boolean", options.pinOpeningRequest);
    out.pinOpeningRequest = options.pinOpeningRequest;
  }
  if (out.maxOpeningRequestTokens < 50) throw invalidOption("maxOpeningRequestTokens", "an integer of at least 50", out.maxOpeningRequestTokens);
  if (out.maxToolResultTokens < 50) throw invalidOption("maxToolResultTokens", "an integer of at least 50", out.maxToolResultTokens);
  return out;
}

/** A budget from overrides or an already resolved budget (which is re-checked). */
export function budgetOf(budget: BuildContextInput["budget"]): ResolvedBudget {
  if (budget !== undefined && budget !== null && typeof budget === "object" && "promptLimit" in budget) {
    const { promptLimit: _ignored, ...fields } = budget as ResolvedBudget;
    return resolveBudget(fields, {});
  }
  return resolveBudget(budget);
}
