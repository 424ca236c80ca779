// Bounded estimates of very large texts, and a memo of long ones: a 50 MB tool result is
// estimated a dozen times per view (shares, floors, markers), each time in full otherwise,
// and every tool result of the older turns a view reads once more on every call.
import { safeCutBefore } from "../text.js";

/**
 * Texts at least this long are remembered: estimating one costs more than looking it up
 * (the string's hash is computed once and kept with it). A view reads each older tool
 * result again on every call — to compact it, to clear it, to fit it — so from 1,024
 * characters on a result is estimated once per thread instead (`pnpm bench`, eval fixtures:
 * a warm build 0.5 to 1× what it cost with only texts over 64 Ki characters remembered).
 */
export const MEMO_TEXT_CHARS = 1 << 10;
/**
 * Texts longer than this (4 Mi characters, over a million tokens: more than any
 * model's window) are estimated from samples instead of read whole.
 */
export const SAMPLED_TEXT_CHARS = 1 << 22;
const SAMPLES = 64;
const SAMPLE_CHARS = 1 << 14;
/** Samples miss runs that cross their edges and regions between them: the estimate is raised by an eighth. */
const SAMPLE_MARGIN = 1.125;
const MEMO_ENTRIES = 1024;
/** The characters the memo may hold at once (its texts are the thread's; past threads' leave first). */
const MEMO_CHARS = 1 << 23;

/**
 * `count` for any text, bounded: a text over {@link SAMPLED_TEXT_CHARS} is counted
 * from {@link SAMPLES} evenly spaced slices (about a million characters) and
 * extrapolated with a margin, so it costs milliseconds whatever its size — such a
 * text is never shown whole, its estimate only decides how far it is cut. Texts of
 * {@link MEMO_TEXT_CHARS} characters or more are remembered (the last
 * {@link MEMO_ENTRIES}, at most {@link MEMO_CHARS} characters in all), so the same
 * result is read once per view and once across views. Deterministic.
 *
 * @example
 * ```ts
 * const count = boundedTextCount(estimateTextTokens);
 * count(fiftyMegabytes); // ~10 ms the first time, then a lookup
 * ```
 */
export function boundedTextCount(count: (text: string) => number): (text: string) => number {
  const memo = new Map<string, number>();
  let chars = 0;
  return (text) => {
    if (text.length < MEMO_TEXT_CHARS) return count(text);
    const known = memo.get(text);
    if (known !== undefined) {
      memo.delete(text);
      memo.set(text, known);
      return known;
    }
    const tokens = text.length > SAMPLED_TEXT_CHARS ? sampledCount(text, count) : count(text);
    memo.set(text, tokens);
    chars += text.length;
    while (memo.size > MEMO_ENTRIES || (chars > MEMO_CHARS && memo.size > 1)) {
      const oldest = memo.keys().next().value as string;
      memo.delete(oldest);
      chars -= oldest.length;
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
