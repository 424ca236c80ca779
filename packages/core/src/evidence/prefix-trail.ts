import type { Sha256 } from "../sha256.js";

/**
 * Hash states left behind by one pass of {@link digestPrefixes} over a messages
 * array, so that another digest of a prefix of the same array (the summary cache's,
 * on the same model call) resumes from the nearest state instead of hashing from
 * the first message again.
 *
 * Keyed by the array object, held weakly: the states go with the array (one model
 * call's). The array's first messages are copied as references when the trail is
 * made, and a resume checks that they are still the very same objects.
 */
interface Trail {
  /** `messages[0, covered)` as they were hashed. */
  readonly objects: readonly unknown[];
  /** Hash states after `end` messages (domain and length prefixes included), ascending by `end`. */
  readonly states: ReadonlyArray<{ readonly end: number; readonly hash: Sha256 }>;
}

const trails = new WeakMap<object, Trail>();

/** About this many hash states are kept per pass; a resume hashes at most 1/TRAIL_POINTS of the messages again. */
export const TRAIL_POINTS = 32;

/**
 * Keep the states of a pass over `messages` (replacing an earlier pass's).
 *
 * @example
 * ```ts
 * leaveTrail(messages, [{ end: 10, hash: hasher.stateAt() }]);
 * ```
 */
export function leaveTrail(messages: readonly unknown[], states: ReadonlyArray<{ end: number; hash: Sha256 }>): void {
  if (states.length === 0) return;
  const covered = states[states.length - 1]?.end ?? 0;
  trails.set(messages, { objects: messages.slice(0, covered), states });
}

/**
 * The latest state of a pass over these very messages at or before `n`, as a copy
 * to feed; `undefined` when there is none or the array changed since.
 *
 * @example
 * ```ts
 * const resume = resumeTrail(messages, prefixN); // { end: 96, hash } → hash messages 96..prefixN only
 * ```
 */
export function resumeTrail(messages: readonly unknown[], n: number): { end: number; hash: Sha256 } | undefined {
  const trail = trails.get(messages);
  if (trail === undefined) return undefined;
  let found: { end: number; hash: Sha256 } | undefined;
  for (const state of trail.states) if (state.end <= n) found = state;
  if (found === undefined) return undefined;
  for (let i = 0; i < found.end; i++) if (messages[i] !== trail.objects[i]) return undefined;
  return { end: found.end, hash: found.hash.clone() };
}
