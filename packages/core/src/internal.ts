// @contextview/core/internal: what this repository's other packages (langgraph, inspect,
// sqlite) import from core and applications do not — nothing more: tests, eval and bench
// import what only they need from core's source files. NOT covered by semver: a name here
// may change or go in any release. Applications import the root; store implementers
// import `@contextview/core/store`.

export { describeValue } from "./errors.js";
export { MAX_TIMER_MS, portableEstimatorSpec } from "./estimate.js";
export { textOf, kindOf, newestRequestIndex } from "./messages.js";
export { SETTINGS_SPEC, settingExpectation, type SettingName, type SettingSpec } from "./settings/index.js";
export { retryOnOverflow, streamRetryOnOverflow } from "./manager/overflow-retry.js";
export { HISTORY_LABEL, CONTINUATION_LABEL } from "./view/head.js";
export { countCacheBreakpoints, markCacheBreakpoints } from "./view/cache-breakpoints.js";
export { EVERY_TOOL_RESULT } from "./view/options.js";
export { IMAGE_PLACEHOLDER } from "./view/older.js";
export { EVIDENCE_BUCKETS } from "./evidence/index.js";
export { ConversationMemo, prefixFingerprint, sameFingerprint, type PrefixFingerprint } from "./memo/conversation-memo.js";
export { prepareViewRecord, viewRecordOf, rebuildView, recordedMessagesMatch, type RebuiltView } from "./record/index.js";
export {
  recallFromConversation,
  recallFromMessage,
  resolveRecallOptions,
  selectMessage,
  RECALL_REQUEST_LIMITS,
} from "./recall/index.js";
export type { RecallAnswer, RecallContext, RecallOptions, RecallRequest, RecalledMessage } from "./recall/index.js";
