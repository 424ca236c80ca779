import type { ResolvedBudget } from "../budget.js";

/** Windows below this size trigger at no less than {@link MIN_RATIO_BELOW_LARGE} of the window. */
const LARGE_WINDOW = 512 * 1024;
const MIN_RATIO_BELOW_LARGE = 0.75;
/** Summarizing never triggers below this many tokens… */
const THRESHOLD_FLOOR = 64 * 1024;
/** …unless that floor reaches past the window: then this share of the window. */
const FLOOR_FALLBACK_RATIO = 0.85;

/**
 * The trigger threshold, in tokens, for a context window (large windows summarize
 * late, small ones before they fill): `window × ratio`, the
 * ratio at least 0.75 below 512k; never under 64k, except that when the 64k floor
 * would reach the window the threshold is 0.85 of the window; always below the
 * window; a window of 0 or less gives 1 (always over: compact to the minimum).
 *
 * @param triggerRatio - Share of the window that triggers summarizing.
 * @default triggerRatio 0.75
 * @example
 * ```ts
 * summaryThreshold(32768); // 27852: the 64k floor would pass the window, so 0.85 × 32768
 * summaryThreshold(200_000); // 150000
 * summaryThreshold(1_000_000, 0.5); // 500000
 * ```
 */
export function summaryThreshold(contextWindow: number, triggerRatio = MIN_RATIO_BELOW_LARGE): number {
  if (!(contextWindow > 0)) return 1;
  const ratio = contextWindow < LARGE_WINDOW ? Math.max(triggerRatio, MIN_RATIO_BELOW_LARGE) : triggerRatio;
  let threshold = Math.max(contextWindow * ratio, THRESHOLD_FLOOR);
  if (threshold >= contextWindow) threshold = contextWindow * FLOOR_FALLBACK_RATIO;
  return Math.max(1, Math.min(Math.floor(threshold), contextWindow - 1));
}

/**
 * The token count at which a view is over and summarizing starts: the lower of
 * the window's threshold and our prompt limit. With the default budget (32k window,
 * 16k prompt budget) that is the prompt limit, 16000.
 *
 * @example
 * ```ts
 * summaryTrigger(resolveBudget({}, {})); // 16000
 * ```
 */
export function summaryTrigger(budget: ResolvedBudget, triggerRatio?: number): number {
  return Math.min(summaryThreshold(budget.contextWindow, triggerRatio), budget.promptLimit);
}
