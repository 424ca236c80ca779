/**
 * UTF-16 and UTF-8 arithmetic on JavaScript strings. Strings index UTF-16 code
 * units, while providers, SQLite and hashes see UTF-8, so a cut between the two
 * halves of a surrogate pair would turn one character into two replacement
 * characters. Every cut and byte count in contextview goes through these.
 */

/**
 * True for the first half of a surrogate pair (U+D800–U+DBFF).
 *
 * @example
 * ```ts
 * isHighSurrogate("😀".charCodeAt(0)); // true
 * ```
 */
export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * True for the second half of a surrogate pair (U+DC00–U+DFFF).
 *
 * @example
 * ```ts
 * isLowSurrogate("😀".charCodeAt(1)); // true
 * ```
 */
export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** True when `index` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, index: number): boolean {
  return index > 0 && index < text.length && isLowSurrogate(text.charCodeAt(index)) && isHighSurrogate(text.charCodeAt(index - 1));
}

/**
 * `index`, moved back by one when cutting there would split a surrogate pair: the
 * end of a prefix, or the start of a suffix that takes the whole pair. Lone
 * surrogates are left where they are.
 *
 * @example
 * ```ts
 * safeCutBefore("a😀b", 2); // 1: "a" | "😀b"
 * safeCutBefore("a😀b", 3); // 3
 * ```
 */
export function safeCutBefore(text: string, index: number): number {
  return splitsPair(text, index) ? index - 1 : index;
}

/**
 * `index`, moved forward by one when cutting there would split a surrogate pair: the
 * start of a suffix that leaves the whole pair out.
 *
 * @example
 * ```ts
 * safeCutAfter("a😀b", 2); // 3: "a😀" | "b"
 * ```
 */
export function safeCutAfter(text: string, index: number): number {
  return splitsPair(text, index) ? index + 1 : index;
}

const hasBuffer = typeof (globalThis as { Buffer?: unknown }).Buffer === "function";

/**
 * UTF-8 length of a string; a lone surrogate counts as the 3-byte replacement
 * character, as encoders write it.
 *
 * @example
 * ```ts
 * utf8Length("héllo"); // 6
 * utf8Length("\ud800"); // 3
 * ```
 */
export function utf8Length(text: string): number {
  if (hasBuffer) return Buffer.byteLength(text, "utf8");
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (isHighSurrogate(c) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that does not
 * split a surrogate pair.
 *
 * @example
 * ```ts
 * truncateUtf8("héllo", 2); // "h"
 * ```
 */
export function truncateUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    const pair = isHighSurrogate(code) && i + 1 < text.length && isLowSurrogate(text.charCodeAt(i + 1));
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** ES2024 string methods, present in Node 20 but not in the ES2022 library core compiles against. */
interface WellFormedText {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/**
 * True when `text` holds no lone surrogate, so UTF-8 keeps it exactly (SQLite,
 * PostgreSQL and hashes see UTF-8).
 *
 * @example
 * ```ts
 * isWellFormedText("😀"); // true
 * isWellFormedText("\ud800"); // false
 * ```
 */
export function isWellFormedText(text: string): boolean {
  return (text as unknown as WellFormedText).isWellFormed();
}

/**
 * `text` with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder writes it.
 *
 * @example
 * ```ts
 * toWellFormedText("a\ud800"); // "a\ufffd"
 * ```
 */
export function toWellFormedText(text: string): string {
  return (text as unknown as WellFormedText).toWellFormed();
}
