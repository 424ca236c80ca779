import type { ResolvedBudget } from "../budget.js";
import { summaryTrigger } from "../summarize/threshold.js";

/** Share of the limit used when compacting harder after a provider overflow. */
const HARDER_LIMIT_SHARE = 0.6;

/** The limits one request is built against. */
export interface RequestLimit {
  /** The prompt limit for this request, after calibration (and the harder share after an overflow). */
  limit: number;
  /** The budget the views are built against, resolved (frozen): its prompt budget and prompt limit are `limit`, never above the configured limit. */
  budget: ResolvedBudget;
  /** The estimate at which summarizing starts, never above `limit`. */
  trigger: number;
}

/**
 * The prompt limit for one request: the resolved budget's limit divided by the
 * calibration ratio (estimates that ran low shrink it), cut to a share of itself
 * when compacting harder after an overflow.
 *
 * @example
 * ```ts
 * const { limit, budget, trigger } = limitFor(resolveBudget({ promptBudget: 16000 }), 1.25, false, undefined);
 * ```
 */
export function limitFor(base: ResolvedBudget, ratio: number, harder: boolean, triggerRatio: number | undefined): RequestLimit {
  let limit = Math.max(1, Math.floor(base.promptLimit / ratio));
  if (harder) limit = Math.max(1, Math.floor(limit * HARDER_LIMIT_SHARE));
  const promptBudget = Math.min(limit, base.promptLimit);
  // As `resolveBudget` would give for these fields, each set: the prompt limit is the prompt budget (at most the base's limit, within the window).
  const budget: ResolvedBudget = Object.freeze({
    contextWindow: base.contextWindow,
    promptBudget,
    responseReserve: base.responseReserve,
    safetyReserve: base.safetyReserve,
    memoryBudget: base.memoryBudget,
    promptLimit: Math.min(promptBudget, base.contextWindow - base.responseReserve - base.safetyReserve),
  });
  return { limit, budget, trigger: Math.min(summaryTrigger(base, triggerRatio), limit) };
}
