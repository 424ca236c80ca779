export type {
  CompactionState,
  CompactionStore,
  ContextStore,
  ConversationKey,
  EvidenceCallOptions,
  EvidenceStore,
} from "./contracts.js";
export { conversationKey, conversationMapKey, checkConversationKey } from "./keys.js";
export { parseCompactionState } from "./compaction-state.js";
export { InMemoryContextStore, type InMemoryContextStoreOptions } from "./in-memory-store.js";
export { checkListViewsOptions } from "./list-views-options.js";
export { compactionErrorReporter } from "./compaction-error-reporter.js";
