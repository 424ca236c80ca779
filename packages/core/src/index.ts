// @contextview/core: pure functions that build a bounded model view. No I/O.
//
// The root exports what an application calls to build views and manage them. Tool-result
// compaction is `@contextview/core/tool-results`, tool routing and saved memories
// `@contextview/core/routing`, the other estimators `@contextview/core/estimators`; store
// implementers import from `@contextview/core/store`; `@contextview/core/internal` serves this
// repository's sibling packages, tests, eval and bench and is not covered by semver.
// Everything else is private.

export { ContextViewBaseError, ContextViewError, ContextBudgetError, type ContextViewErrorCode, type BudgetShortfall } from "./errors.js";
export { DEFAULT_BUDGET, resolveBudget, type Budget, type ResolvedBudget } from "./budget.js";
export { budgetFromProfile, resolveBudgetSources, type BudgetSource, type BudgetSources, type ModelLimits } from "./budget-sources.js";
export { createEstimator, type Estimator, type EstimatorOptions, type PortableEstimatorSpec } from "./estimate.js";
// The type of `createEstimator`'s `tokenCounter` option; `estimatorFromTokenCounter` is in `@contextview/core/estimators`.
export type { TokenCounter } from "./estimators/token-counter.js";
export type { MessageInput } from "./messages.js";

// -- the view --
export { buildContext } from "./view/build-context.js";
export { pinMessage } from "./view/pin-message.js";
export type { BuildContextInput, ContextReport, ContextView, HistoryReport, MessageCounts, MessageDate, PinPredicate, RecallOutcome, RecallReport, TokenReport, TurnSummary, ViewOptions } from "./view/types.js";

// -- the manager: summarizing compaction, overflow recovery, calibration --
export { createContextManager } from "./manager/context-manager.js";
export { isContextOverflow } from "./manager/overflow.js";
export type {
  CompactionEvent,
  ContextManager,
  ContextManagerOptions,
  ContextRequest,
  ContextSettings,
  ManagedReport,
  ManagedView,
} from "./manager/types.js";
export { chatModelSummarizer, type ChatModelSummarizerOptions, type Summarizer } from "./summarize/summarizer.js";

// -- stores: the in-memory one; implementing another is `@contextview/core/store` --
export { InMemoryContextStore, type ContextStore } from "./store/index.js";
