import { utf8Length } from "../text.js";
import { classifyEvidence } from "./classify.js";
import { makeExcerpt } from "./excerpt.js";
import { EVIDENCE_LIMITS, EVIDENCE_STATE_VERSION } from "./limits.js";
import type { Slicer } from "./slicer.js";
import type { SnapshotMessage } from "./snapshot.js";
import { EVIDENCE_BUCKETS, EvidenceState, type EvidenceBucket, type EvidenceEntry, type EvidenceStateJSON } from "./state.js";

/**
 * Bytes of a serialized state with empty buckets, counted with the widest
 * cursor, omitted and unreadable counts. Bounding entries against this worst
 * case makes eviction depend on the entries alone, so one update over ten turns
 * and ten updates over one turn each end in the same state.
 */
const FRAME_BYTES = utf8Length(
  JSON.stringify({
    version: EVIDENCE_STATE_VERSION,
    cursor: Number.MAX_SAFE_INTEGER,
    prefixDigest: "0".repeat(64),
    omitted: Number.MAX_SAFE_INTEGER,
    unreadable: Number.MAX_SAFE_INTEGER,
    buckets: { constraints: [], decisions: [], openWork: [], recentContext: [] },
  } satisfies Required<EvidenceStateJSON>),
);
/** `ceil(bytes / 3) <= maxStateTokens` exactly when `bytes <= 3 * maxStateTokens`. */
const MAX_STATE_BYTES = 3 * EVIDENCE_LIMITS.maxStateTokens;

/** When buckets tie for largest, the one least likely to matter later gives way first. */
const EVICTION_TIE_ORDER: readonly EvidenceBucket[] = ["recentContext", "openWork", "decisions", "constraints"];

interface Sized {
  readonly entry: EvidenceEntry;
  readonly bytes: number;
}

/**
 * The bounded buckets being filled: at most six entries per bucket, and the
 * whole serialized state within 1,800 estimated tokens. Old entries leave the
 * largest bucket first (most entries, then most bytes, then recent context,
 * open work, decisions, constraints); every eviction is counted in `omitted`.
 */
class BucketBuilder {
  private readonly lists: Record<EvidenceBucket, Sized[]>;
  private bytes = FRAME_BYTES;
  omitted: number;

  constructor(state: EvidenceState) {
    this.omitted = state.omitted;
    this.lists = { constraints: [], decisions: [], openWork: [], recentContext: [] };
    for (const bucket of EVIDENCE_BUCKETS) for (const entry of state.buckets[bucket]) this.push(bucket, entry);
  }

  add(bucket: EvidenceBucket, entry: EvidenceEntry): void {
    if (this.lists[bucket].length >= EVIDENCE_LIMITS.maxEntriesPerBucket) this.evictOldest(bucket);
    this.push(bucket, entry);
    while (this.bytes > MAX_STATE_BYTES) this.evictOldest(this.largest());
  }

  buckets(): Record<EvidenceBucket, EvidenceEntry[]> {
    const out = {} as Record<EvidenceBucket, EvidenceEntry[]>;
    for (const bucket of EVIDENCE_BUCKETS) out[bucket] = this.lists[bucket].map((sized) => sized.entry);
    return out;
  }

  private push(bucket: EvidenceBucket, entry: EvidenceEntry): void {
    const list = this.lists[bucket];
    const bytes = utf8Length(JSON.stringify(entry));
    // The comma that separates it from the previous entry.
    this.bytes += bytes + (list.length > 0 ? 1 : 0);
    list.push({ entry, bytes });
  }

  private evictOldest(bucket: EvidenceBucket): void {
    const list = this.lists[bucket];
    const gone = list.shift();
    if (gone === undefined) return;
    this.bytes -= gone.bytes + (list.length > 0 ? 1 : 0);
    this.omitted++;
  }

  private largest(): EvidenceBucket {
    return largestBucket(this.lists);
  }
}

/**
 * The bucket whose oldest entry leaves first when evidence must shrink: the one with the
 * most entries, then the most bytes, then recent context, open work, decisions,
 * constraints. The evidence state's own bound evicts by it, and so does a view that
 * shows less of the evidence (see `evidenceWithin`).
 *
 * @example
 * ```ts
 * largestBucket({ constraints: [{ bytes: 90 }], decisions: [], openWork: [], recentContext: [{ bytes: 40 }] }); // "constraints"
 * ```
 */
export function largestBucket(lists: Readonly<Record<EvidenceBucket, readonly { readonly bytes: number }[]>>): EvidenceBucket {
  let best: EvidenceBucket = "recentContext";
  let bestCount = -1;
  let bestBytes = -1;
  for (const bucket of EVICTION_TIE_ORDER) {
    const list = lists[bucket];
    let bytes = 0;
    for (const sized of list) bytes += sized.bytes;
    if (list.length > bestCount || (list.length === bestCount && bytes > bestBytes)) {
      best = bucket;
      bestCount = list.length;
      bestBytes = bytes;
    }
  }
  return best;
}

/**
 * The excerpt evidence keeps of one message read from a snapshot (`index`, its position in
 * the checkpoint), and the bucket its keywords select: user text and assistant text without
 * tool calls, never blank text (undefined otherwise). The same message always gives the same
 * excerpt, so a view record can leave out the excerpts of messages its view shows and make
 * them again from the checkpoint (see `setAsideShown`).
 *
 * @example
 * ```ts
 * excerptOf(readMessage(message, 12, EVIDENCE_LIMITS.maxMessageBytes), 12)?.bucket; // "decisions"
 * ```
 */
export function excerptOf(message: SnapshotMessage, index: number): { bucket: EvidenceBucket; entry: EvidenceEntry } | undefined {
  const text = message.text;
  if (text === undefined || text.trim() === "") return undefined;
  const label = classifyEvidence(text);
  const excerpt = makeExcerpt(text, label.offset);
  const role = message.kind === "human" ? "user" : "assistant";
  const entry: EvidenceEntry = { role, messageId: message.id, index, excerpt: excerpt.text, truncated: excerpt.truncated };
  return { bucket: label.bucket, entry };
}

/**
 * The state after summarizing messages `[state.cursor, end)` of a validated
 * snapshot: each user text and assistant text without tool calls becomes one
 * excerpt in the bucket its keywords select, in message order; such text over
 * `maxMessageBytes` is counted in `unreadable` instead.
 */
export async function extendEvidence(
  state: EvidenceState,
  messages: readonly SnapshotMessage[],
  end: number,
  prefixDigest: string,
  slicer: Slicer,
): Promise<EvidenceState> {
  const builder = new BucketBuilder(state);
  let unreadable = state.unreadable;
  for (let index = state.cursor; index < end; index++) {
    const message = messages[index];
    if (message?.unreadable === true) unreadable++;
    const made = message === undefined ? undefined : excerptOf(message, index);
    if (made === undefined) continue;
    builder.add(made.bucket, made.entry);
    if (slicer.due()) await slicer.pause();
  }
  const json: EvidenceStateJSON = { version: EVIDENCE_STATE_VERSION, cursor: end, prefixDigest, omitted: builder.omitted, unreadable, buckets: builder.buckets() };
  return EvidenceState.fromJSON(json);
}
