// @contextview/core/internal: what this repository's other packages (langgraph, inspect,
// sqlite), its tests, eval and bench need from core and applications do not. NOT covered by
// semver: a name here may change or go in any release. Applications import the root;
// store implementers import `@contextview/core/store`.

export { describeValue } from "./errors.js";
export { BUDGET_ENV } from "./budget.js";
export { MAX_TIMER_MS, portableEstimatorSpec } from "./estimate.js";
export { precomputeLargeResults } from "./compact/large-result-floors.js";
export { utf8Length } from "./text.js";
export { textOf, countImages, kindOf, newestRequestIndex } from "./messages.js";
export { SETTINGS_SPEC, checkSetting, settingExpectation, type SettingName, type SettingSpec } from "./settings/index.js";
export { retryOnOverflow, streamRetryOnOverflow } from "./manager/overflow-retry.js";
export { HISTORY_LABEL, CONTINUATION_LABEL } from "./view/head.js";
export { RECALL_LABEL } from "./view/recall.js";
export { lineId } from "./view/line-id.js";
export { countCacheBreakpoints, markCacheBreakpoints } from "./view/cache-breakpoints.js";
export { EVERY_TOOL_RESULT } from "./view/options.js";
export { IMAGE_PLACEHOLDER } from "./view/older.js";
export { PIN_FIELD } from "./view/pin-message.js";
export { OPENING_REQUEST_LABEL, PINNED_LABEL } from "./view/pinned.js";
export { isSummaryMessage } from "./summarize/summary-message.js";
export { summaryPrefixHash } from "./summarize/prefix-hash.js";
export { EVIDENCE_BUCKETS } from "./evidence/index.js";
export { memoryLine } from "./memories/index.js";
export { ConversationMemo, prefixFingerprint, sameFingerprint, type PrefixFingerprint } from "./memo/conversation-memo.js";
export { prepareViewRecord, viewRecordOf, rebuildView, recordedMessagesMatch, type RebuiltView } from "./record/index.js";
export { asRanges } from "./recall/tool-result-rows.js";
export {
  recallFromConversation,
  recallFromMessage,
  recallToolNameIn,
  resolveRecallOptions,
  selectMessage,
  RECALL_REQUEST_LIMITS,
  RECALLED_LABEL,
} from "./recall/index.js";
export type { RecallAnswer, RecallContext, RecallOptions, RecallRequest, RecalledMessage } from "./recall/index.js";
