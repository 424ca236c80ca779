// @contextview/core/store: what a context store implements and the helpers every store
// shares, so that SQLite, PostgreSQL and a third-party store read and check the same data
// the same way. Applications do not need it: they pass a store to the integration.

export type { CompactionState, CompactionStore, ContextStore, ConversationKey, EvidenceCallOptions, EvidenceStore } from "./store/index.js";
export { conversationKey, conversationMapKey, checkConversationKey, parseCompactionState, checkListViewsOptions, compactionErrorReporter } from "./store/index.js";
export {
  EvidenceState,
  updateEvidence,
  resolveMaxMessageBytes,
  type EvidenceRebuild,
  type EvidenceRecord,
  type EvidenceStateJSON,
  type EvidenceUpdateOptions,
} from "./evidence/index.js";
export {
  DEFAULT_MAX_VIEW_RECORDS,
  parseViewRecordEntry,
  resolveMaxViewRecords,
  type ListViewsOptions,
  type StoredView,
  type ViewRecord,
  type ViewRecordEntry,
} from "./record/index.js";
