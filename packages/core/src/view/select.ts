/** What {@link chooseKept} needs of a prepared older turn. */
export interface CutCandidate {
  readonly tokens: number;
  /** Stable key of the turn (its first message id, or its position and text). */
  readonly key: string;
}

/**
 * A cheap, stable 32-bit hash of a turn key: FNV-1a, then a final avalanche so the
 * low bits (used for anchor spacing) depend on every character of sequential ids.
 */
export function turnHash(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/**
 * How many of the older turns to keep, newest first, when only `fit` of them fit
 * the history budget `avail` and older ones must go.
 *
 * Keeping exactly `fit` would move the head of the view on every call, and every
 * move invalidates a provider's prompt cache. So the oldest kept turn is always an
 * anchor: a turn whose key hashes to a multiple of `spacing`, where `spacing` (a
 * power of two) is about `dropStep × avail` divided by the mean turn size. Anchors
 * depend only on the turns themselves, so while the oldest fitting anchor stays in
 * range the head stays the same as the conversation grows; when it falls out of
 * range the head jumps about one step of tokens ahead. No state is kept between calls.
 *
 * @param newestFirst - Prepared older turns, newest first (at least `fit` of them).
 * @returns how many of the newest older turns to keep (`fit` when no anchor fits).
 */
export function chooseKept(newestFirst: readonly (CutCandidate | undefined)[], fit: number, avail: number, dropStep: number): number {
  if (fit <= 0 || dropStep === 0) return fit;
  let tokens = 0;
  for (let j = 0; j < fit; j++) tokens += (newestFirst[j] as CutCandidate).tokens;
  const ratio = (dropStep * Math.max(avail, 0)) / Math.max(1, tokens / fit);
  const spacing = ratio < 1.5 ? 1 : 2 ** Math.round(Math.log2(ratio));
  if (spacing === 1) return fit;
  for (let kept = fit; kept > 0; kept--) {
    if (turnHash((newestFirst[kept - 1] as CutCandidate).key) % spacing === 0) return kept;
  }
  return fit;
}
