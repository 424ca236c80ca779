import { STOPWORDS, wordsOf } from "./words.js";

/**
 * Identifiers, dates and numbers with inner separators, kept whole besides their parts:
 * `RES-42`, `2023-05-08`, `v1.2.3`, `a_b`. Each match starts where a word does: without
 * the look-behind, a long run of letters with no separator after it (base64, a hash) was
 * tried again from each of its characters — a 20,000-character run took a second.
 */
const COMPOUND = /(?<![\p{L}\p{M}\p{N}])[\p{L}\p{M}\p{N}]+(?:[-_./:@#][\p{L}\p{M}\p{N}]+)+/gu;
/** Plural endings folded first, then verb endings: "bookings" → "booking" → "book". */
const PLURAL = ["es", "s"] as const;
const VERB = ["ing", "ed"] as const;
const E = 101;
const Y = 121;

/**
 * One index term for a word: lower-case, NFKC, a plural ending (`es`, `s`) then a verb
 * ending (`ing`, `ed`) folded off while at least three letters remain, then a final `e`
 * dropped (while three remain) or a final `y` written `i` (in three letters or more), so that the forms of one
 * word meet: "hike", "hikes", "hiked" and "hiking" are all `hik`, "activity" and
 * "activities" both `activiti`. Numbers are kept as they are.
 *
 * @example
 * ```ts
 * termOf("bookings"); // "book"
 * termOf("hiking"); // "hik", as termOf("hike")
 * termOf("studies"); // "studi", as termOf("study")
 * termOf("42"); // "42"
 * ```
 */
export function termOf(word: string): string {
  if (isNumber(word)) return word;
  let term = foldEnding(word, PLURAL);
  term = foldEnding(term, VERB);
  const last = term.charCodeAt(term.length - 1);
  if (last === E && term.length > 3) return term.slice(0, -1);
  if (last === Y && term.length >= 3) return `${term.slice(0, -1)}i`;
  return term;
}

/** `word` without the first of `endings` it ends with, when three letters remain. */
function foldEnding(word: string, endings: readonly string[]): string {
  const ending = endings.find((e) => word.length - e.length >= 3 && word.endsWith(e));
  return ending === undefined ? word : word.slice(0, -ending.length);
}

const WORD_CHAR = /[\p{L}\p{M}\p{N}]/u;

/**
 * Where the search term `term` occurs in `lower` (a lower-case text), at most `max`
 * times: where a word starts with it (a word's term is its stem, see {@link termOf}; a
 * final `i` also as `y`, for termOf writes "day" `dai`), an identifier or number only as
 * a whole word, a term of a script written without spaces (a character bigram) anywhere.
 *
 * @example
 * ```ts
 * termOccurrences("her birthday party", termOf("birthdays"), 8); // [4]
 * termOccurrences("order 4200, order 42", "42", 8); // [18]
 * ```
 */
export function termOccurrences(lower: string, term: string, max: number): number[] {
  const out: number[] = [];
  const anywhere = hasCjk(term);
  const whole = !/^\p{L}+$/u.test(term);
  const yi = !anywhere && !whole && term.length > 1 && term.endsWith("i");
  const needle = yi ? term.slice(0, -1) : term;
  for (let at = lower.indexOf(needle); at >= 0 && out.length < max; at = lower.indexOf(needle, at + 1)) {
    if (!anywhere && at > 0 && WORD_CHAR.test(lower[at - 1] as string)) continue;
    if (!anywhere && whole && WORD_CHAR.test(lower[at + term.length] ?? " ")) continue;
    if (yi && lower[at + needle.length] !== "i" && lower[at + needle.length] !== "y") continue;
    out.push(at);
  }
  return out;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** True when every character of `word` is a digit: ASCII ones by code, the rest by `\p{N}`. */
function isNumber(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (!isDigit(word.charCodeAt(i))) return word.charCodeAt(i) > 0x7f && /^\p{N}+$/u.test(word);
  return word !== "";
}

/**
 * The search terms of a text, the one tokenization of the lexical index and its
 * queries: Unicode words (stopwords and one-letter words left out) folded by
 * {@link termOf}, text written without spaces (Chinese, Japanese, Korean, Thai, Lao,
 * Myanmar, Khmer) as overlapping character bigrams,
 * plus every identifier, date or dotted number kept whole
 * (`RES-42` gives `res-42`, `res` and `42`). Repeats are kept: they are term frequencies.
 * An ASCII text is read in one pass over its characters (NFKC and the Unicode classes
 * change nothing there); any other text by {@link unicodeSearchTerms}: the same terms.
 *
 * @example
 * ```ts
 * searchTerms("Booked flights RES-42 on 2023-05-08"); // ["book", "flight", "res", "42", "2023", "05", "08", "res-42", "2023-05-08"]
 * ```
 */
export function searchTerms(text: string): string[] {
  return ASCII.test(text) ? asciiSearchTerms(text.toLowerCase()) : unicodeSearchTerms(text);
}

/**
 * {@link searchTerms} by regular expressions over the NFKC, lower-case text: the
 * definition, used for every text that is not ASCII.
 *
 * @example
 * ```ts
 * unicodeSearchTerms("Café RES-42"); // ["café", "res", "42", "res-42"]
 * ```
 */
export function unicodeSearchTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of wordsOf(text)) {
    if (hasCjk(word)) for (const piece of cjkPieces(word)) pushWord(terms, piece.word, piece.cjk);
    else pushWord(terms, word, false);
  }
  for (const match of text.normalize("NFKC").toLowerCase().matchAll(COMPOUND)) terms.push(match[0]);
  return terms;
}

/** A word's term, unless a stopword or a single letter (a single CJK character is a word of its own). */
function pushWord(terms: string[], word: string, cjk: boolean): void {
  if (cjk) terms.push(word);
  else if ((word.length > 1 || /\p{N}/u.test(word)) && !STOPWORDS.has(word)) terms.push(termOf(word));
}

/**
 * True for a letter of a script written without spaces between words, by code point:
 * Chinese, Japanese and Korean — Han (the URO, extension A, the compatibility ideographs
 * and the supplementary planes), Hiragana, Katakana (its prolonged sound mark and
 * phonetic extensions included), Hangul (syllables and jamo) — and Thai, Lao, Myanmar
 * and Khmer (their vowel signs and tone marks included).
 */
function isCjk(code: number): boolean {
  return (
    (code >= 0x0e00 && code <= 0x0eff) ||
    (code >= 0x1000 && code <= 0x109f) ||
    (code >= 0x1780 && code <= 0x17ff) ||
    (code >= 0x4e00 && code <= 0x9fff) ||
    (code >= 0x3400 && code <= 0x4dbf) ||
    (code >= 0x3040 && code <= 0x30ff) ||
    (code >= 0x31f0 && code <= 0x31ff) ||
    (code >= 0xac00 && code <= 0xd7af) ||
    (code >= 0x1100 && code <= 0x11ff) ||
    (code >= 0x3130 && code <= 0x318f) ||
    (code >= 0xf900 && code <= 0xfaff) ||
    (code >= 0x20000 && code <= 0x3ffff)
  );
}

/**
 * True when `word` holds a letter of a script written without spaces (see
 * {@link isCjk}): its terms are character bigrams, found anywhere in a text.
 *
 * @example
 * ```ts
 * hasCjk("小白"); // true
 * hasCjk("res-42"); // false
 * ```
 */
export function hasCjk(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const code = word.charCodeAt(i);
    // Han in the supplementary planes comes as a surrogate pair (0xd840–0xd8bf first).
    if (isCjk(code) || (code >= 0xd840 && code <= 0xd8bf)) return true;
  }
  return false;
}

/**
 * The pieces of a word that holds CJK letters: each run of them as overlapping
 * bigrams (a run of one letter as itself), the way search engines index text written
 * without spaces ("我的狗叫饼干" gives "我的", "的狗", "狗叫", "叫饼", "饼干"), and each run
 * of other letters or digits as a word of its own ("東京2020" gives "東京", "2020").
 */
function cjkPieces(word: string): { word: string; cjk: boolean }[] {
  const pieces: { word: string; cjk: boolean }[] = [];
  const chars = Array.from(word);
  const cjk = chars.map((c) => isCjk(c.codePointAt(0) as number));
  for (let i = 0; i < chars.length; ) {
    let end = i + 1;
    while (end < chars.length && cjk[end] === cjk[i]) end++;
    if (!cjk[i]) pieces.push({ word: chars.slice(i, end).join(""), cjk: false });
    else if (end - i === 1) pieces.push({ word: chars[i] as string, cjk: true });
    else for (let k = i; k + 1 < end; k++) pieces.push({ word: `${chars[k]}${chars[k + 1]}`, cjk: true });
    i = end;
  }
  return pieces;
}

const ASCII = /^[\x00-\x7f]*$/;
/** The separators of {@link COMPOUND}, by character code. */
const JOINERS = new Set([..."-_./:@#"].map((c) => c.charCodeAt(0)));

const isAlnum = (code: number) => (code >= 97 && code <= 122) || (code >= 48 && code <= 57);

/**
 * {@link unicodeSearchTerms} of a lower-case ASCII text in one scan: its words are the
 * runs of `[a-z0-9]`, and a compound is a word followed by one or more runs of one
 * joiner and a word, as long as it goes — what {@link COMPOUND} matches.
 */
function asciiSearchTerms(lower: string): string[] {
  const terms: string[] = [];
  const compounds: string[] = [];
  // Start of the compound being read (-1: none), and the end of its last word.
  let compound = -1;
  let compoundEnd = -1;
  let words = 0;
  for (let i = 0; i < lower.length; ) {
    if (!isAlnum(lower.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < lower.length && isAlnum(lower.charCodeAt(i))) i++;
    const word = lower.slice(start, i);
    if ((word.length > 1 || isDigit(word.charCodeAt(0))) && !STOPWORDS.has(word)) terms.push(termOf(word));
    // Joined to the word before it by exactly one joiner?
    if (compound >= 0 && start === compoundEnd + 1 && JOINERS.has(lower.charCodeAt(compoundEnd))) {
      compoundEnd = i;
      words++;
      continue;
    }
    if (words > 1) compounds.push(lower.slice(compound, compoundEnd));
    compound = start;
    compoundEnd = i;
    words = 1;
  }
  if (words > 1) compounds.push(lower.slice(compound, compoundEnd));
  for (const c of compounds) terms.push(c);
  return terms;
}
