import { STOPWORDS, wordsOf } from "./words.js";

/**
 * Identifiers, dates and numbers with inner separators, kept whole besides their parts:
 * `RES-42`, `2023-05-08`, `v1.2.3`, `a_b`. Each match starts where a word does: without
 * the look-behind, a long run of letters with no separator after it (base64, a hash) was
 * tried again from each of its characters — a 20,000-character run took a second.
 */
const COMPOUND = /(?<![\p{L}\p{N}])[\p{L}\p{N}]+(?:[-_./:@#][\p{L}\p{N}]+)+/gu;
/** Endings folded away so "flights", "flight" and "flighted" meet; the stem keeps at least three letters. */
const ENDINGS = ["ing", "ed", "es", "s"] as const;

/**
 * One index term for a word: lower-case, NFKC, and up to two plural or verb endings
 * folded off (`ing`, `ed`, `es`, `s`) while at least three letters remain; numbers as they are.
 *
 * @example
 * ```ts
 * termOf("bookings"); // "book"
 * termOf("42"); // "42"
 * ```
 */
export function termOf(word: string): string {
  if (/^\p{N}+$/u.test(word)) return word;
  // Twice at most: "bookings" → "booking" → "book".
  let term = word;
  for (let pass = 0; pass < 2; pass++) {
    const ending = ENDINGS.find((e) => term.length - e.length >= 3 && term.endsWith(e));
    if (ending === undefined) break;
    term = term.slice(0, -ending.length);
  }
  return term;
}

/**
 * The search terms of a text, the one tokenization of the lexical index and its
 * queries: Unicode words (stopwords and one-letter words left out) folded by
 * {@link termOf}, plus every identifier, date or dotted number kept whole
 * (`RES-42` gives `res-42`, `res` and `42`). Repeats are kept: they are term frequencies.
 *
 * @example
 * ```ts
 * searchTerms("Booked flights RES-42 on 2023-05-08"); // ["book", "flight", "res", "42", "2023", "05", "08", "res-42", "2023-05-08"]
 * ```
 */
export function searchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordsOf(text)) {
    if (word.length > 1 || /\p{N}/u.test(word)) if (!STOPWORDS.has(word)) terms.push(termOf(word));
  }
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(COMPOUND)) terms.push(match[0]);
  return terms;
}
