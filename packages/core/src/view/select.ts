/** What {@link chooseCut} needs of a prepared older turn. */
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
 * Choose the oldest older turn kept in the view, given that turns from `fitFrom`
 * on fit the history budget `avail`.
 *
 * Cutting exactly at `fitFrom` would move the head of the view on every call, and
 * every move invalidates a provider's prompt cache. So the cut only lands on
 * anchor turns: turns whose key hashes to a multiple of `spacing`, where `spacing`
 * (a power of two) is about `dropStep × avail` divided by the mean turn size. The
 * anchors depend only on the turns themselves, so while the oldest anchor at or
 * after `fitFrom` stays in range, the head stays the same as the conversation grows;
 * when it falls out of range the cut jumps about one step of tokens ahead.
 * Deterministic: no state is kept between calls.
 *
 * @returns the index of the first kept turn (`turns.length` drops all older turns).
 */
export function chooseCut(turns: readonly (CutCandidate | undefined)[], fitFrom: number, avail: number, dropStep: number): number {
  if (fitFrom <= 0) return 0;
  const count = turns.length - fitFrom;
  if (dropStep === 0 || count <= 0) return fitFrom;
  let tokens = 0;
  for (let t = fitFrom; t < turns.length; t++) tokens += (turns[t] as CutCandidate).tokens;
  const meanTurn = Math.max(1, tokens / count);
  const ratio = (dropStep * Math.max(avail, 0)) / meanTurn;
  const spacing = ratio < 1.5 ? 1 : 2 ** Math.round(Math.log2(ratio));
  if (spacing === 1) return fitFrom;
  for (let t = fitFrom; t < turns.length; t++) {
    if (turnHash((turns[t] as CutCandidate).key) % spacing === 0) return t;
  }
  return fitFrom;
}
