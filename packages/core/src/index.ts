// @contextview/core: pure functions that build a bounded model view. No I/O.

export { ContextViewError, ContextBudgetError, type ContextViewErrorCode, type BudgetShortfall } from "./errors.js";
export { DEFAULT_BUDGET, BUDGET_ENV, resolveBudget, type Budget, type ResolvedBudget } from "./budget.js";
export {
  createEstimator,
  DEFAULT_ESTIMATOR_OPTIONS,
  utf8Length,
  type Estimator,
  type EstimatorOptions,
} from "./estimate.js";
export { textOf, countImages, isImageBlock, type MessageInput, type MessageKind } from "./messages.js";

// -- view (issue: core view engine) --

// -- compaction (issue: structured tool-result compaction) --

// -- stores and evidence (issue: evidence and compaction store) --
