/**
 * Lower-case words of a text: runs of letters, digits and the combining marks
 * written on them (Devanagari vowel signs, Thai tone marks: a word is not cut
 * around them), NFKC-normalised, so "Café's", "café" and "CAFÉ" give the same words.
 *
 * @example
 * ```ts
 * wordsOf("Export my Q3 spending, please!"); // ["export", "my", "q3", "spending", "please"]
 * ```
 */
export function wordsOf(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((word) => word !== "");
}

/** Endings tolerated between two forms of a word; lexical routing has no stemmer on purpose. */
const SUFFIXES: ReadonlySet<string> = new Set(["s", "es", "ed", "ing"]);
/** A shorter stem would let "as" match "a" + "s". */
const MIN_STEM = 3;

/**
 * True when two lower-case words are the same word up to a plural or verb ending
 * (`s`, `es`, `ed`, `ing`) on a stem of at least three letters:
 * "transaction"/"transactions", "tax"/"taxes", "budget"/"budgeting".
 *
 * @example
 * ```ts
 * sameWord("payments", "payment"); // true
 * sameWord("note", "nothing"); // false
 * ```
 */
export function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return short.length >= MIN_STEM && long.startsWith(short) && SUFFIXES.has(long.slice(short.length));
}

/**
 * Counts, in linear time, how many of `queryWords` a list of words contains, each
 * compared with {@link sameWord}: every form a query word matches (itself, itself
 * plus an ending, itself less an ending) is indexed once, so a text costs one
 * lookup per word however long the query is.
 *
 * @example
 * ```ts
 * const overlap = wordOverlap(["tax", "budget"]);
 * overlap(wordsOf("Taxes are due; budgeting helps")); // 2
 * ```
 */
export function wordOverlap(queryWords: readonly string[]): (words: readonly string[]) => number {
  const forms = new Map<string, number[]>();
  const index = (form: string, id: number) => {
    const ids = forms.get(form);
    if (ids === undefined) forms.set(form, [id]);
    else if (ids[ids.length - 1] !== id) ids.push(id);
  };
  queryWords.forEach((word, id) => {
    index(word, id);
    for (const suffix of SUFFIXES) {
      if (word.length >= MIN_STEM) index(word + suffix, id);
      if (word.endsWith(suffix) && word.length - suffix.length >= MIN_STEM) index(word.slice(0, -suffix.length), id);
    }
  });
  // Which query words one text has found, marked with the text's number: no set per text.
  const seenBy = new Int32Array(queryWords.length);
  let text = 0;
  return (words) => {
    text++;
    let found = 0;
    for (const word of words) {
      const ids = forms.get(word);
      if (ids === undefined) continue;
      for (const id of ids) {
        if (seenBy[id] === text) continue;
        seenBy[id] = text;
        found++;
      }
    }
    return found;
  };
}

/**
 * True when `phrase` (its words, in order) occurs in `words`, each word compared
 * with {@link sameWord}.
 *
 * @example
 * ```ts
 * containsPhrase(wordsOf("check my bank accounts"), ["bank", "account"]); // true
 * ```
 */
export function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0) return false;
  const last = words.length - phrase.length;
  for (let i = 0; i <= last; i++) {
    let k = 0;
    while (k < phrase.length && sameWord(words[i + k] as string, phrase[k] as string)) k++;
    if (k === phrase.length) return true;
  }
  return false;
}

/**
 * Common English words that say nothing about what a memory is about; they never
 * count as overlap.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have he her him his how i if in into is it its " +
    "me my no not of on or our please she so than that the their them then there these they this those to us was we were what " +
    "when where which who why will with would you your yes ok okay"
  ).split(" "),
);

/**
 * The distinct words of a text that can carry meaning: stopwords and one-letter
 * words left out, first occurrence order kept.
 *
 * @example
 * ```ts
 * contentWords("What is my rent in March?"); // ["rent", "march"]
 * ```
 */
export function contentWords(text: string): string[] {
  const seen = new Set<string>();
  for (const word of wordsOf(text)) {
    if (word.length > 1 && !STOPWORDS.has(word)) seen.add(word);
  }
  return [...seen];
}
