// Digests that cover a large message (the evidence's prefix digest, a view record's message
// digest) are made again on every model call, from message objects a checkpointer creates
// anew: feeding the same large text to SHA-256 once per call would cost the same seconds
// every time. The state a hash reaches after a large text depends only on the state before
// it and on the text, so that pair is remembered, keyed by the text (a copy read anew from a
// checkpoint compares equal) and by the digest of the state before (the bytes fed so far).
import type { Slicer } from "./evidence/slicer.js";
import { Sha256 } from "./sha256.js";
import { safeCutBefore } from "./text.js";

/** Texts at least this long are remembered; shorter ones are hashed at once, cheaper than the bookkeeping. */
export const REMEMBERED_HASH_CHARS = 1 << 18;
/** Texts remembered at once, newest used first. */
const TEXTS = 8;
/** States remembered per text (one per digest that feeds it: evidence, view record, a prefix that changed). */
const STATES_PER_TEXT = 4;
/** Characters fed between two checks for a pause. */
const SLICE_CHARS = 1 << 18;

interface Fed {
  /** The digest of the state the text was fed from. */
  readonly before: string;
  /** The state reached, never fed again (handed out as copies). */
  readonly after: Sha256;
}

const feeds = new Map<string, Fed[]>();

function lookUp(before: string, text: string): Sha256 | undefined {
  const states = feeds.get(text);
  if (states === undefined) return undefined;
  feeds.delete(text);
  feeds.set(text, states);
  return states.find((entry) => entry.before === before)?.after.clone();
}

function remember(before: string, text: string, after: Sha256): void {
  const states = feeds.get(text) ?? [];
  feeds.delete(text);
  states.push({ before, after: after.clone() });
  if (states.length > STATES_PER_TEXT) states.shift();
  feeds.set(text, states);
  while (feeds.size > TEXTS) feeds.delete(feeds.keys().next().value as string);
}

/**
 * Feed `text` to `hash` and return the hash to go on with: `hash` itself, fed, or,
 * when the same text was fed from the same state before, a copy of the state that
 * feed reached (then `hash` is left as it was). Texts under
 * {@link REMEMBERED_HASH_CHARS} are simply fed.
 *
 * @example
 * ```ts
 * let hash = Sha256.create("domain\n").update(`${content.length}:`);
 * hash = feedRemembered(hash, content); // hashes 18 MB once per process, not once per call
 * ```
 */
export function feedRemembered(hash: Sha256, text: string): Sha256 {
  if (text.length < REMEMBERED_HASH_CHARS) return hash.update(text);
  const before = hash.peekHex();
  const known = lookUp(before, text);
  if (known !== undefined) return known;
  hash.update(text);
  remember(before, text, hash);
  return hash;
}

/**
 * {@link feedRemembered} in slices that yield to the event loop (`slicer`): a text
 * fed from this state before costs no hashing.
 *
 * @example
 * ```ts
 * hash = await feedRememberedInSlices(hash, content, new Slicer(signal));
 * ```
 */
export async function feedRememberedInSlices(hash: Sha256, text: string, slicer: Slicer): Promise<Sha256> {
  if (text.length < REMEMBERED_HASH_CHARS) return hash.update(text);
  const before = hash.peekHex();
  const known = lookUp(before, text);
  if (known !== undefined) return known;
  for (let at = 0; at < text.length; ) {
    // Cut at a character boundary: the UTF-8 bytes, and so the digest, are the same.
    const end = text.length - at <= SLICE_CHARS ? text.length : Math.max(at + 1, safeCutBefore(text, at + SLICE_CHARS));
    hash.update(text.slice(at, end));
    at = end;
    if (slicer.due()) await slicer.pause();
  }
  remember(before, text, hash);
  return hash;
}

/** Forget every remembered feed (tests). */
export function clearRememberedHashes(): void {
  feeds.clear();
}
