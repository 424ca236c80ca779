import { PREFIX_DIGEST_DOMAIN } from "./limits.js";
import { feedRememberedInSlices, REMEMBERED_HASH_CHARS } from "../remembered-hash.js";
import { Sha256 } from "../sha256.js";
import { leaveTrail, TRAIL_POINTS } from "./prefix-trail.js";
import type { Slicer } from "./slicer.js";
import type { SnapshotMessage } from "./snapshot.js";

/** Strings shorter than this are joined before hashing: one hash call per batch instead of per field. */
const INLINE_UNITS = 1024;
/** Size of a batch of joined short strings. */
const BATCH_UNITS = 16 * 1024;

/**
 * Feeds length-prefixed strings to SHA-256. Each string is preceded by its length
 * in UTF-16 code units, so the encoding is injective; pieces of one string are
 * cut between surrogate pairs, so hashing them is hashing the whole string.
 */
export class PrefixHasher {
  private hash: Sha256;
  private pending = "";

  /** A hasher from the start of a prefix, or resumed from a state of {@link PrefixHasher.state}. */
  constructor(resumed?: Sha256) {
    this.hash = resumed ?? Sha256.create(PREFIX_DIGEST_DOMAIN);
  }

  /** Whether {@link PrefixHasher.addLong} must be used: strings long enough to deserve slicing, and remembering. */
  static isLong(part: string): boolean {
    return part.length >= REMEMBERED_HASH_CHARS;
  }

  add(part: string): void {
    this.pending += `${part.length}:`;
    if (part.length < INLINE_UNITS) {
      this.pending += part;
      if (this.pending.length >= BATCH_UNITS) this.flush();
      return;
    }
    // Handed to the hash as it is: joining would copy it onto the JavaScript heap and feed the GC.
    this.flush();
    this.hash.update(part);
  }

  async addLong(part: string, slicer: Slicer): Promise<void> {
    this.pending += `${part.length}:`;
    this.flush();
    // The same large text after the same prefix (every later call of a conversation) is hashed once.
    this.hash = await feedRememberedInSlices(this.hash, part, slicer);
  }

  digest(): string {
    this.flush();
    return this.hash.peekHex();
  }

  /** A copy of the hash state after everything added so far. */
  state(): Sha256 {
    this.flush();
    return this.hash.clone();
  }

  private flush(): void {
    if (this.pending === "") return;
    this.hash.update(this.pending);
    this.pending = "";
  }
}

/**
 * SHA-256 digests (hex) of the checkpoint prefixes `[0, end)` for each of `ends`,
 * in one pass over the messages, yielding to the event loop between slices.
 * The hashed representation is each message's role, id, content pieces,
 * tool-call ids, names and arguments, and `tool_call_id`: not artifacts, not
 * metadata, never JSON of whole messages.
 *
 * With `trailOf` (the checkpoint messages the snapshot was read from), the pass
 * leaves hash states behind (see `resumeTrail`): the summary cache's digest of a
 * prefix of the same messages then hashes only what lies past the nearest one.
 *
 * @returns one digest per entry of `ends`, in the same order
 */
export async function digestPrefixes(messages: readonly SnapshotMessage[], ends: readonly number[], slicer: Slicer, trailOf?: readonly unknown[]): Promise<string[]> {
  const hasher = new PrefixHasher();
  const order = [...new Set(ends)].sort((a, b) => a - b);
  const found = new Map<number, string>();
  const last = order[order.length - 1] ?? 0;
  const step = Math.max(1, Math.ceil(last / TRAIL_POINTS));
  const states: Array<{ end: number; hash: Sha256 }> = [];
  let next = 0;
  for (const end of order) {
    for (; next < end; next++) {
      const message = messages[next];
      if (message === undefined) throw new RangeError(`A prefix of ${end} messages was asked of a snapshot of ${messages.length}`);
      if (trailOf !== undefined && next > 0 && next % step === 0) states.push({ end: next, hash: hasher.state() });
      for (const part of message.parts) {
        if (PrefixHasher.isLong(part)) await hasher.addLong(part, slicer);
        else hasher.add(part);
      }
      if (slicer.due()) await slicer.pause();
    }
    found.set(end, hasher.digest());
  }
  if (trailOf !== undefined) {
    if (last > 0 && states[states.length - 1]?.end !== last) states.push({ end: last, hash: hasher.state() });
    leaveTrail(trailOf, states);
  }
  return ends.map((end) => found.get(end) as string);
}
