import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { utf8Length } from "../text.js";
import { largestBucket } from "./extend.js";
import { parseEvidence, withEnvelope, type ParsedEvidence } from "./held-evidence.js";
import { EVIDENCE_BUCKETS, type EvidenceBucket } from "./state.js";

/** An evidence message within a bound, and how many excerpts it left out for it. */
export interface EvidenceWithin {
  /** The message to show: `message` itself when it fits, a shorter copy, or null when no excerpt fits. */
  message: BaseMessage | null;
  /** Excerpts left out to fit (also added to the envelope's `omitted`). */
  omitted: number;
}

/**
 * The last result per evidence message: a request builds its view several times with the
 * same evidence. A shorter copy is held weakly: the evidence message outlives the request
 * (the manager holds it for the next call), and a copy of its size for every conversation
 * would too; once collected it is made again from the count of excerpts it left out.
 */
const last = new WeakMap<BaseMessage, { maxTokens: number; estimator: Estimator; omitted: number; copy: WeakRef<BaseMessage> | null }>();

/**
 * An evidence message (`EvidenceState.asMessage()`) within `maxTokens`: while it is
 * over, the oldest excerpt of its largest bucket leaves — the order in which the
 * evidence state keeps its own bound (see {@link largestBucket}) — and each one that
 * leaves is added to the envelope's `omitted`. Null when not even one excerpt fits.
 * A message that fits, or is not an evidence envelope, is returned as it is.
 * Deterministic, and it depends on the evidence alone (never on the request), so the
 * evidence a view shows stays byte-identical while the evidence does.
 *
 * @example
 * ```ts
 * const { message, omitted } = evidenceWithin(state.asMessage()!, 400, estimator);
 * ```
 */
export function evidenceWithin(message: BaseMessage, maxTokens: number, estimator: Estimator): EvidenceWithin {
  const known = last.get(message);
  if (known !== undefined && known.maxTokens === maxTokens && known.estimator === estimator) {
    if (known.omitted === 0) return { message, omitted: 0 };
    // No copy with omissions: not even one excerpt fits.
    if (known.copy === null) return { message: null, omitted: known.omitted };
    let copy = known.copy.deref();
    if (copy === undefined) {
      copy = withoutFirst(message, known.omitted);
      known.copy = new WeakRef(copy);
    }
    return { message: copy, omitted: known.omitted };
  }
  const result = fitEvidence(message, maxTokens, estimator);
  const copy = result.message === null || result.message === message ? null : new WeakRef(result.message);
  last.set(message, { maxTokens, estimator, omitted: result.omitted, copy });
  return result;
}

/** The evidence without the first `omitted` excerpts of its eviction order: the copy {@link fitEvidence} made, made again. */
function withoutFirst(message: BaseMessage, omitted: number): BaseMessage {
  const parsed = parseEvidence(message) as ParsedEvidence;
  return withEnvelope(message, parsed, envelopeWithout(parsed, evictionOrder(parsed), omitted));
}

function fitEvidence(message: BaseMessage, maxTokens: number, estimator: Estimator): EvidenceWithin {
  if (estimator.estimateMessage(message) <= maxTokens) return { message, omitted: 0 };
  const parsed = parseEvidence(message);
  if (parsed === null) return { message, omitted: 0 };
  const order = evictionOrder(parsed);
  if (order.length === 0) return { message, omitted: 0 };
  const without = (k: number) => withEnvelope(message, parsed, envelopeWithout(parsed, order, k));
  // The fewest excerpts to leave out: `hi` always fits (all of them: no message), `lo` never does.
  let lo = 0;
  let hi = order.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (estimator.estimateMessage(without(mid)) <= maxTokens) hi = mid;
    else lo = mid;
  }
  return { message: hi === order.length ? null : without(hi), omitted: hi };
}

/** The buckets of each excerpt in the order they leave: the oldest of the largest bucket first, again and again. */
function evictionOrder(parsed: ParsedEvidence): EvidenceBucket[] {
  const lists = {} as Record<EvidenceBucket, { bytes: number }[]>;
  for (const bucket of EVIDENCE_BUCKETS) lists[bucket] = parsed.buckets[bucket].map((entry) => ({ bytes: utf8Length(JSON.stringify(entry) ?? "") }));
  const order: EvidenceBucket[] = [];
  for (let left = EVIDENCE_BUCKETS.reduce((n, bucket) => n + lists[bucket].length, 0); left > 0; left--) {
    const bucket = largestBucket(lists);
    lists[bucket].shift();
    order.push(bucket);
  }
  return order;
}

/** The envelope after the first `k` excerpts of `order` left, each counted in `omitted`. */
function envelopeWithout(parsed: ParsedEvidence, order: readonly EvidenceBucket[], k: number): Record<string, unknown> {
  const gone = {} as Record<EvidenceBucket, number>;
  for (const bucket of EVIDENCE_BUCKETS) gone[bucket] = 0;
  for (let i = 0; i < k; i++) gone[order[i] as EvidenceBucket]++;
  const next: Record<string, unknown> = { ...parsed.envelope };
  const omitted = parsed.envelope["omitted"];
  next["omitted"] = (typeof omitted === "number" && Number.isSafeInteger(omitted) ? omitted : 0) + k;
  for (const bucket of EVIDENCE_BUCKETS) next[bucket] = parsed.buckets[bucket].slice(gone[bucket]);
  return next;
}
