// @contextview/core: pure functions that build a bounded model view. No I/O.

export { ContextViewBaseError, ContextViewError, ContextBudgetError, describeValue, type ContextViewErrorCode, type BudgetShortfall } from "./errors.js";
export { DEFAULT_BUDGET, BUDGET_ENV, resolveBudget, type Budget, type ResolvedBudget } from "./budget.js";
export { budgetFromProfile, resolveBudgetSources, type BudgetLayers, type BudgetSource, type BudgetSources, type ModelLimits } from "./budget-sources.js";
export {
  createEstimator,
  DEFAULT_ESTIMATOR_OPTIONS,
  MAX_TIMER_MS,
  utf8Length,
  type Estimator,
  type EstimatorOptions,
} from "./estimate.js";
export { estimateTextTokens } from "./estimators/text-tokens.js";
export { createTiktokenEstimator, type TiktokenEncoding, type TiktokenEstimatorOptions } from "./estimators/tiktoken.js";
export { estimatorFromTokenCounter, type TokenCounter } from "./estimators/token-counter.js";
export { textOf, countImages, isImageBlock, kindOf, type MessageInput, type MessageKind } from "./messages.js";

// -- view --
export { buildContext } from "./view/build-context.js";
export { DEFAULT_VIEW_OPTIONS, resolveViewOptions } from "./view/options.js";
export { HISTORY_LABEL, CONTINUATION_LABEL } from "./view/head.js";
export { ANTHROPIC_MAX_BREAKPOINTS, countCacheBreakpoints, markCacheBreakpoints } from "./view/cache-breakpoints.js";
export { IMAGE_PLACEHOLDER } from "./view/older.js";
export { NO_IMAGE_INPUT_PLACEHOLDER } from "./view/images.js";
export type { BuildContextInput, ContextReport, ContextView, TokenReport, ViewOptions } from "./view/types.js";
export { pinMessage, PIN_FIELD } from "./view/pin-message.js";
export { OPENING_REQUEST_LABEL, PINNED_LABEL } from "./view/pinned.js";
export type { PinPredicate, PinnedReport, PinnedMessageReport } from "./view/types.js";

// -- summarizing compaction --
export { createContextManager } from "./manager/context-manager.js";
export { isContextOverflow } from "./manager/overflow.js";
export { retryOnOverflow, streamRetryOnOverflow, type OverflowRetrySteps } from "./manager/overflow-retry.js";
export { nextCalibration, CALIBRATION_BOUNDS } from "./manager/calibration.js";
export type {
  CompactionEvent,
  CompactionKind,
  ContextManager,
  ContextManagerOptions,
  ContextRequest,
  ContextSettings,
  ManagedReport,
  ManagedView,
  ViewBuildInputs,
} from "./manager/types.js";
export { summaryThreshold, summaryTrigger } from "./summarize/threshold.js";
export { findSafeCut, forbiddenCuts, isSafeCut, DEFAULT_KEEP, type KeepOptions } from "./summarize/safe-cut.js";
export { renderTranscript, chunkTranscript } from "./summarize/transcript.js";
export {
  chatModelSummarizer,
  DEFAULT_SUMMARY_PROMPT,
  SUMMARIZER_TAGS,
  type ChatModelSummarizerOptions,
  type Summarizer,
  type SummarizerContext,
} from "./summarize/summarizer.js";
export { summaryMessage, isSummaryMessage, SUMMARY_MARKER } from "./summarize/summary-message.js";
export { summaryPrefixHash } from "./summarize/prefix-hash.js";

// -- structured tool-result compaction --
export {
  compactOrNarrow,
  compactToolResult,
  microCompact,
  isClearedToolResult,
  isCompactedToolResult,
  compactionMarkerOf,
  readNoteLines,
  COMPACTED_KEY,
  COMPACTION_METADATA_KEY,
  DEFAULT_COLLECTION_KEYS,
  DEFAULT_PRESERVED_KEYS,
  DEFAULT_REFERENCE_FIELDS,
  DEFAULT_TEXT_FIELDS,
  type CompactToolResultOptions,
  type MicroCompactOptions,
  type MicroCompactResult,
  type CompactionMarker,
  type CompactionOrigin,
  type JsonCompactionMarker,
  type TextCompactionMarker,
  type ClearedCompactionMarker,
  type NarrowedCompactionMarker,
  type FitOutcome,
  type IdentifierList,
  type NoteLines,
  type NoteLinesOptions,
  type ReferenceTable,
} from "./compact/index.js";

// -- stores and evidence --
export {
  EvidenceState,
  EVIDENCE_BUCKETS,
  EVIDENCE_LIMITS,
  EVIDENCE_KEYWORDS,
  EVIDENCE_NOTICE,
  EVIDENCE_MESSAGE_ID_PREFIX,
  EVIDENCE_STATE_VERSION,
  EMPTY_PREFIX_DIGEST,
  EXCERPT_GAP,
  classifyEvidence,
  makeExcerpt,
  truncateUtf8,
  updateEvidence,
  resolveMaxMessageBytes,
  type EvidenceAccess,
  type EvidenceBucket,
  type EvidenceEntry,
  type EvidenceLabel,
  type EvidenceRecord,
  type EvidenceStateJSON,
  type EvidenceUpdateOptions,
  type EvidenceRebuild,
  type Excerpt,
} from "./evidence/index.js";
export {
  InMemoryContextStore,
  conversationKey,
  checkConversationKey,
  parseCompactionState,
  checkListViewsOptions,
  type CompactionState,
  type CompactionStore,
  type ContextStore,
  type ConversationKey,
  type EvidenceCallOptions,
  type EvidenceStore,
  type InMemoryContextStoreOptions,
} from "./store/index.js";

// -- tool routing and saved memories --
export {
  createToolRouter,
  routingRecord,
  bindSelection,
  guardTool,
  readGrants,
  isToolGroupsArtifact,
  DEFAULT_ROUTER_OPTIONS,
  DISCOVER_TOOL_NAME,
  TOOL_GROUPS_ARTIFACT,
  type AuthorizeTools,
  type BindSelectionOptions,
  type DeniedToolArtifact,
  type RouteReason,
  type SelectedModel,
  type SelectToolsInput,
  type ToolGroup,
  type ToolGroupsArtifact,
  type ToolRouter,
  type ToolRouterOptions,
  type ToolRoutingRecord,
  type ToolSelection,
} from "./routing/index.js";
export {
  selectMemories,
  renderMemoryBlock,
  memoryLine,
  MEMORY_BLOCK_HEADER,
  DEFAULT_MEMORY_OPTIONS,
  type MemoryInput,
  type MemorySelection,
  type RankedMemory,
  type SavedMemory,
  type SelectMemoriesOptions,
} from "./memories/index.js";
export { requestText, messageText } from "./lexical/index.js";

// -- per-conversation memo for long-running servers --
export {
  ConversationMemo,
  DEFAULT_REMEMBERED_CONVERSATIONS,
  prefixFingerprint,
  sameFingerprint,
  type PrefixFingerprint,
} from "./memo/conversation-memo.js";

// -- view records and the inspector --
export {
  VIEW_RECORD_VERSION,
  DEFAULT_MAX_VIEW_RECORDS,
  viewRecordOf,
  rebuildView,
  recordedMessagesMatch,
  reportDifferences,
  parseViewRecordEntry,
  resolveMaxViewRecords,
  type ViewRecord,
  type ViewRecordEntry,
  type ViewInputHashes,
  type StoredView,
  type ListViewsOptions,
  type ViewRecordContext,
  type RebuiltView,
  type RebuildViewOptions,
} from "./record/index.js";
