import { Sha256 } from "../sha256.js";

/**
 * The bounds of an evidence state (see `EvidenceState`).
 * They are fixed so that every process writing one conversation agrees on them.
 *
 * @example
 * ```ts
 * EVIDENCE_LIMITS.maxExcerptBytes; // 900
 * ```
 */
export const EVIDENCE_LIMITS = Object.freeze({
  /** UTF-8 bytes of one excerpt, its truncation markers included. @default 900 */
  maxExcerptBytes: 900,
  /** Entries kept per bucket; the oldest leaves first. @default 6 */
  maxEntriesPerBucket: 6,
  /** Estimated tokens (UTF-8 bytes / 3) of the serialized state, `toJSON()`. @default 1800 */
  maxStateTokens: 1800,
  /** Characters of a message's text that the keyword heuristics read. @default 16384 */
  classifyWindow: 16_384,
  /** UTF-8 bytes of the largest user or assistant message `update` reads; a larger one is counted in `unreadable`. @default 16 MiB */
  maxMessageBytes: 16 * 1024 * 1024,
});

/** Schema version of a serialized evidence state. */
export const EVIDENCE_STATE_VERSION = 1;

/** Fed to the hash before any message, so a change of representation changes every digest. */
export const PREFIX_DIGEST_DOMAIN = "contextview.prefix.v1\n";

/** SHA-256 digest (hex) of an empty checkpoint prefix. */
export const EMPTY_PREFIX_DIGEST = Sha256.create(PREFIX_DIGEST_DOMAIN).hex();
