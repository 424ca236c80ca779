import { ConversationMemo, prefixFingerprint, sameFingerprint, type PrefixFingerprint } from "../memo/conversation-memo.js";
import type { MessageInput } from "../messages.js";
import type { CompactionState, ConversationKey } from "../store/contracts.js";
import { isLegacySummaryPrefixHash, legacySummaryPrefixHash, summaryPrefixHash } from "../summarize/prefix-hash.js";

/**
 * The hash of `messages[0, n)` as the summary cache keys it; `like`, a stored hash,
 * asks for a hash of its kind (an earlier version's, see `legacySummaryPrefixHash`).
 */
export type SummaryPrefixHasher = (key: ConversationKey, messages: readonly MessageInput[], n: number, signal: AbortSignal | undefined, like?: string) => Promise<string>;

/**
 * A prefix hasher that remembers the last hash per conversation. Every model call of
 * an agent turn checks the cached summary against the same prefix: a prefix hashed
 * before in this process, made of the very same message objects, has the same hash,
 * so it is reused rather than read and hashed again. The memo holds the hash and a
 * fingerprint of the prefix's objects, never the messages.
 *
 * @example
 * ```ts
 * const prefixHash = memoizedPrefixHasher();
 * const hash = await prefixHash(key, messages, summary.prefixN, signal);
 * ```
 */
export function memoizedPrefixHasher(): SummaryPrefixHasher {
  const hashed = new ConversationMemo<{ fingerprint: PrefixFingerprint; legacy: boolean; hash: string }>();
  return async (key, messages, n, signal, like) => {
    const legacy = like !== undefined && isLegacySummaryPrefixHash(like);
    const fingerprint = prefixFingerprint(messages, n);
    const memo = hashed.get(key);
    if (memo && memo.legacy === legacy && sameFingerprint(memo.fingerprint, fingerprint)) return memo.hash;
    const hash = legacy ? await legacySummaryPrefixHash(messages, n, signal) : await summaryPrefixHash(messages, n, signal);
    hashed.set(key, { fingerprint, legacy, hash });
    return hash;
  };
}

/** The summary a request may reuse. */
export interface CachedSummary {
  /** The stored summary when its prefix is unchanged, else null. */
  summary: CompactionState["summary"];
  /** True when the stored summary still stands for the first messages. */
  cacheHit: boolean;
}

/**
 * Read the stored summary and keep it only while the prefix it stands for is
 * unchanged: its length fits these messages, it covers more than the leading
 * system messages, and the prefix hashes to the stored hash (hashed the way the
 * stored one was, so a state written by an earlier version is still recognised).
 *
 * @example
 * ```ts
 * const { summary, cacheHit } = await cachedSummary(state, lead, messages.length, (n, like) => prefixHash(key, messages, n, signal, like));
 * ```
 */
export async function cachedSummary(state: CompactionState, lead: number, messageCount: number, hashOf: (n: number, like: string) => Promise<string>): Promise<CachedSummary> {
  const summary = state.summary;
  if (!summary || summary.prefixN <= lead || summary.prefixN > messageCount) return { summary: null, cacheHit: false };
  const cacheHit = (await hashOf(summary.prefixN, summary.prefixHash)) === summary.prefixHash;
  return { summary: cacheHit ? summary : null, cacheHit };
}
