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

/** Share of the room, in steps of `dropStep`, that the kept older turns may leave unused. */
const WINDOW_STEPS = 3;

/**
 * The least the kept older turns fill of `avail` when older turns must go: `1 − 3 ×
 * dropStep` of it (all of it with `dropStep` 0), the window in which {@link chooseKept}
 * looks for an anchor.
 *
 * @example
 * ```ts
 * windowFloor(8000, 0.25); // 2000
 * ```
 */
export function windowFloor(avail: number, dropStep: number): number {
  return Math.max(0, 1 - WINDOW_STEPS * dropStep) * Math.max(avail, 0);
}

/** Trailing zero bits of a hash: an anchor's level (1 in 2 turns has level ≥ 1, 1 in 4 level ≥ 2…). */
function anchorLevel(hash: number): number {
  return hash === 0 ? 32 : 31 - Math.clz32(hash & -hash);
}

/**
 * How many of the older turns to keep, newest first, when only `fit` of them fit
 * the history budget `avail` and older ones must go.
 *
 * Keeping exactly `fit` would move the head of the view on every call, and every
 * move invalidates a provider's prompt cache. So the oldest kept turn is an anchor
 * chosen by content: among the turns that could be the oldest kept one — those
 * that keep at least `1 − 3 × dropStep` of `avail` filled — the one whose key
 * hashes to the most trailing zero bits (the oldest on a tie). The choice depends
 * only on the turns themselves, so as the conversation grows, or the room moves
 * with the size of the current turn, the same anchor wins for as long as it stays
 * in range; when it falls out the head jumps ahead to the next anchor. No state is
 * kept between calls.
 *
 * @param newestFirst - Prepared older turns, newest first (at least `fit` of them).
 * @returns how many of the newest older turns to keep (`fit` when `dropStep` is 0).
 *
 * @example
 * ```ts
 * chooseKept(turns, 12, 6000, 0.25); // 9, say: the 9th newest turn is the best anchor in range
 * ```
 */
export function chooseKept(newestFirst: readonly (CutCandidate | undefined)[], fit: number, avail: number, dropStep: number): number {
  if (fit <= 0 || dropStep === 0) return fit;
  const floor = windowFloor(avail, dropStep);
  let filled = 0;
  for (let j = 0; j < fit; j++) filled += (newestFirst[j] as CutCandidate).tokens;
  let best = fit;
  let bestLevel = -1;
  for (let kept = fit; kept > 0; kept--) {
    if (kept < fit && filled < floor) break;
    const level = anchorLevel(turnHash((newestFirst[kept - 1] as CutCandidate).key));
    if (level > bestLevel) {
      bestLevel = level;
      best = kept;
    }
    filled -= (newestFirst[kept - 1] as CutCandidate).tokens;
  }
  return best;
}
