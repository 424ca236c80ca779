// Bounded estimates of very large texts, and memos of long ones: a 50 MB tool result is
// estimated a dozen times per view (shares, floors, markers), each time in full otherwise,
// and every tool result of the older turns a view reads once more on every call.
import { safeCutBefore } from "../text.js";

/**
 * Texts at least this long are remembered: estimating one costs more than looking it up
 * (the string's hash is computed once and kept with it). The last {@link MEMO_ENTRIES}
 * of them, whatever their size.
 */
export const MEMO_TEXT_CHARS = 1 << 16;
/**
 * Texts from this long (to {@link MEMO_TEXT_CHARS}) are remembered too, in a memo of
 * their own: a view reads each older tool result again on every call (to compact it, to
 * clear it, to fit it), so a result is then estimated once per thread instead of several
 * times per view (eval fixtures, warm builds: 0.5 to 0.9× their time without it). From 256
 * characters, not 1,024: one build of `pnpm bench context` (4,000 messages, a new estimator)
 * estimated each of its 850-character results three times, 170,751 characters for a view of
 * 45,802; with this memo a warm build there took 2.0–2.6 ms instead of 2.3–3.4 ms (runs
 * alternated). Still 1,024 texts at most: 4,096 made `pnpm bench memory` retain 3 MB more.
 */
export const MEMO_MID_TEXT_CHARS = 1 << 8;
/**
 * Texts longer than this (4 Mi characters, over a million tokens: more than any
 * model's window) are estimated from samples instead of read whole.
 */
export const SAMPLED_TEXT_CHARS = 1 << 22;
const SAMPLES = 64;
const SAMPLE_CHARS = 1 << 14;
/** Samples miss runs that cross their edges and regions between them: the estimate is raised by an eighth. */
const SAMPLE_MARGIN = 1.125;
const MEMO_ENTRIES = 16;
/** Mid-sized texts remembered at most, and the characters they may hold in all (the memo keeps them alive). */
const MID_ENTRIES = 1024;
const MID_CHARS = 1 << 23;

/**
 * `count` for any text, bounded: a text over {@link SAMPLED_TEXT_CHARS} is counted
 * from {@link SAMPLES} evenly spaced slices (about a million characters) and
 * extrapolated with a margin, so it costs milliseconds whatever its size — such a
 * text is never shown whole, its estimate only decides how far it is cut. Texts
 * over {@link MEMO_TEXT_CHARS} are remembered (the last {@link MEMO_ENTRIES}), and
 * texts from {@link MEMO_MID_TEXT_CHARS} on in a second memo (the last 1,024, at
 * most 8 Mi characters), so the same result is read once per view and once across
 * views. Deterministic.
 *
 * @example
 * ```ts
 * const count = boundedTextCount(estimateTextTokens);
 * count(fiftyMegabytes); // ~10 ms the first time, then a lookup
 * ```
 */
export function boundedTextCount(count: (text: string) => number): (text: string) => number {
  const large = lruMemo(MEMO_ENTRIES, Number.POSITIVE_INFINITY);
  const mid = lruMemo(MID_ENTRIES, MID_CHARS);
  return (text) => {
    if (text.length < MEMO_MID_TEXT_CHARS) return count(text);
    const memo = text.length < MEMO_TEXT_CHARS ? mid : large;
    return memo(text, () => (text.length > SAMPLED_TEXT_CHARS ? sampledCount(text, count) : count(text)));
  };
}

/** A memo of counts by text: the last `entries` texts looked up, at most `chars` characters in all (one text at least). */
function lruMemo(entries: number, chars: number): (text: string, counted: () => number) => number {
  const memo = new Map<string, number>();
  let held = 0;
  return (text, counted) => {
    const known = memo.get(text);
    if (known !== undefined) {
      memo.delete(text);
      memo.set(text, known);
      return known;
    }
    const tokens = counted();
    memo.set(text, tokens);
    held += text.length;
    while (memo.size > entries || (held > chars && memo.size > 1)) {
      const oldest = memo.keys().next().value as string;
      memo.delete(oldest);
      held -= oldest.length;
    }
    return tokens;
  };
}

function sampledCount(text: string, count: (text: string) => number): number {
  let tokens = 0;
  let chars = 0;
  const step = (text.length - SAMPLE_CHARS) / (SAMPLES - 1);
  for (let i = 0; i < SAMPLES; i++) {
    const start = safeCutBefore(text, Math.floor(i * step));
    const end = safeCutBefore(text, start + SAMPLE_CHARS);
    tokens += count(text.slice(start, end));
    chars += end - start;
  }
  return Math.ceil((tokens / chars) * text.length * SAMPLE_MARGIN);
}
