/**
 * Characters that show nothing on their own: whitespace and separators, controls,
 * format characters (zero-width space and joiners, word joiner, byte-order mark, soft
 * hyphen, bidi marks), combining marks, and the blank fillers of Hangul and Braille.
 */
const INVISIBLE = /^[\s\p{Z}\p{Cc}\p{Cf}\p{M}\u115f\u1160\u3164\uffa0\u2800]*$/u;

/**
 * True when a text shows nothing: empty, or only whitespace and invisible characters
 * (`"\u200b"`, `"\ufeff"`, …). Such an answer is no summary.
 *
 * @example
 * ```ts
 * isInvisibleText("\u200b\u200d "); // true
 * isInvisibleText("\u200b- budget 400 EUR"); // false
 * ```
 */
export function isInvisibleText(text: string): boolean {
  return INVISIBLE.test(text);
}
