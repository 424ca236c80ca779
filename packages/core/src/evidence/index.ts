export { EVIDENCE_LIMITS, EVIDENCE_STATE_VERSION, EMPTY_PREFIX_DIGEST } from "./limits.js";
export {
  EvidenceState,
  EVIDENCE_BUCKETS,
  EVIDENCE_NOTICE,
  EVIDENCE_MESSAGE_ID_PREFIX,
  type EvidenceBucket,
  type EvidenceEntry,
  type EvidenceStateJSON,
} from "./state.js";
export { classifyEvidence, EVIDENCE_KEYWORDS, type EvidenceLabel } from "./classify.js";
export { makeExcerpt, EXCERPT_GAP, type Excerpt } from "./excerpt.js";
export {
  updateEvidence,
  resolveMaxMessageBytes,
  type EvidenceAccess,
  type EvidenceRecord,
  type EvidenceUpdateOptions,
  type EvidenceRebuild,
} from "./update.js";
