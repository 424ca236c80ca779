import type { BudgetSources } from "../budget-sources.js";
import type { ContextView } from "../view/types.js";
import type { ManagedReport, ManagedView, ViewBuildInputs } from "./types.js";

/**
 * A view with the manager's part of the report: where the budget came from, the
 * calibration applied, and what compaction did (nothing, unless `compaction` says).
 *
 * @example
 * ```ts
 * const managed = managedView(view, 1, sources, built, { kind: "drop", trigger, ...rest });
 * ```
 */
export function managedView(
  view: ContextView,
  calibration: number,
  budgetSources: BudgetSources,
  built: ViewBuildInputs,
  compaction?: Omit<ManagedReport["compaction"], "calibration">,
): ManagedView {
  return {
    messages: view.messages,
    built,
    report: {
      ...view.report,
      budgetSources,
      compaction: {
        kind: "none",
        trigger: view.report.limit,
        summaryCacheHit: false,
        summarizedMessages: 0,
        summaryExcerpted: false,
        summarizerCalls: 0,
        summarizerInputChars: 0,
        consecutiveFailures: 0,
        storeError: false,
        ...compaction,
        calibration,
      },
    },
  };
}
