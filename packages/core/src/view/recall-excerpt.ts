import { termOccurrences } from "../lexical/search-terms.js";
import { safeCutBefore } from "../text.js";
import { SPACE_OR_CONTROL } from "../inline-text.js";

/** Characters of a long text searched for the request's terms: what the lexical index reads of a message. */
const SCANNED_CHARS = 20_000;

/** Where {@link clipFrom} cut: the text shown and the end in the source of what it shows. */
interface Clipped {
  flat: string;
  /** Index in the source text right after the last character shown. */
  shown: number;
  cut: boolean;
}

/**
 * The text with its whitespace runs as single spaces, trimmed, cut to `max`
 * characters with a marker counting the message's own characters left out. Reads
 * the text word by word up to the cut only: a recalled tool result can be megabytes.
 *
 * @example
 * ```ts
 * clip("a  b\n c", 3); // "a b [… 3 of 7 characters omitted]"
 * ```
 */
export function clip(text: string, max: number): string {
  const clipped = clipFrom(text, 0, max);
  return clipped.cut ? `${clipped.flat} [… ${text.length - clipped.shown} of ${text.length} characters omitted]` : clipped.flat;
}

/**
 * A long text's excerpt that shows why it matched: `max` characters from where the
 * most of the request's terms (`query`, search terms) occur close together, each
 * weighing 1 / its occurrences in the text (a term on every row of a result says little
 * of where to look), in the text's first 20,000 characters (what the index reads),
 * from a little before the first of them, whitespace collapsed, with markers for what
 * is left out before and after (beside the `max` characters, as {@link clip}'s). The
 * beginning (as {@link clip}) when the text fits, when its beginning weighs as much, or
 * when none occurs in the text (it matched by a tool's name or arguments). Ties go to
 * the earliest stretch. A term occurs where a word starts with it (terms are words
 * folded to their stems, in lower case; a final `i` also as `y`), an identifier or number only as a whole word;
 * a term of a script written without spaces wherever its characters are.
 *
 * @example
 * ```ts
 * clipAround(`${"row ".repeat(500)}RES-42 cancelled`, 40, new Set(["res-42"]));
 * // "[… 1992 of 2016 characters omitted] row row RES-42 cancelled"
 * ```
 */
export function clipAround(text: string, max: number, query: ReadonlySet<string>): string {
  if (text.length <= max || query.size === 0) return clip(text, max);
  const lower = (text.length > SCANNED_CHARS ? text.slice(0, SCANNED_CHARS) : text).toLowerCase();
  const hits: { at: number; end: number; term: string }[] = [];
  // A term that occurs on every row says little of where to look: each weighs 1 / its occurrences.
  const weight = new Map<string, number>();
  for (const term of query) {
    const found = termOccurrences(lower, term, MAX_OCCURRENCES);
    if (found.length > 0) weight.set(term, 1 / found.length);
    for (const at of found) hits.push({ at, end: at + term.length, term });
  }
  if (hits.length === 0) return clip(text, max);
  hits.sort((a, b) => a.at - b.at);
  // Some context before the first term: the window the terms must fall in is shorter by it.
  const lead = Math.floor(max / 5);
  const span = max - lead;
  let bestScore = 0;
  for (const term of new Set(hits.filter((hit) => hit.end <= max).map((hit) => hit.term))) bestScore += weight.get(term) as number;
  let best = -1;
  // Two pointers over the hits: the terms of the hits within [hits[i].at, hits[i].at + span).
  const inWindow = new Map<string, number>();
  let score = 0;
  for (let i = 0, j = 0; i < hits.length; i++) {
    const first = hits[i] as { at: number; term: string };
    for (; j < hits.length && (hits[j] as { end: number }).end <= first.at + span; j++) {
      const term = (hits[j] as { term: string }).term;
      const count = inWindow.get(term) ?? 0;
      if (count === 0) score += weight.get(term) as number;
      inWindow.set(term, count + 1);
    }
    // Strictly more: the earliest stretch keeps a tie (and the beginning keeps it first).
    if (score > bestScore + 1e-9) [best, bestScore] = [i, score];
    const left = inWindow.get(first.term) ?? 0;
    if (left <= 1) {
      if (left === 1) score -= weight.get(first.term) as number;
      inWindow.delete(first.term);
    } else inWindow.set(first.term, left - 1);
  }
  if (best < 0) return clip(text, max);
  const from = wordStartAt(text, Math.max(0, (hits[best] as { at: number }).at - lead));
  if (from === 0) return clip(text, max);
  const clipped = clipFrom(text, from, max);
  const after = clipped.cut ? ` [… ${text.length - clipped.shown} of ${text.length} characters omitted]` : "";
  return `[… ${from} of ${text.length} characters omitted] ${clipped.flat}${after}`;
}

/** Most occurrences of one term looked for: a term on every row of a result needs no more to be placed. */
const MAX_OCCURRENCES = 64;

/** Index of the first character at or after `at` that begins a word (`at` itself when one begins there, or at the start). */
function wordStartAt(text: string, at: number): number {
  if (at <= 0 || /\s/.test(text[at - 1] ?? " ")) return Math.max(0, at);
  const space = text.slice(at, at + 200).search(/\s/);
  return space < 0 ? at : at + space + 1;
}

/** Whitespace other than one space between two other characters: what {@link clipFrom} would change in a text. */
const UNEVEN_SPACE = new RegExp(`(?! )[${SPACE_OR_CONTROL}]| {2}|^ | $`);
/** A word: what {@link oneLine} keeps between its single spaces. */
const WORD = new RegExp(`[^${SPACE_OR_CONTROL}]+`, "g");

/** {@link clip}'s reading of `text` from `from`: whitespace collapsed, cut before `max` characters at a safe point. */
function clipFrom(text: string, from: number, max: number): Clipped {
  // Most recalled texts are short and single-spaced: their reading is the text itself.
  if (from === 0 && text.length <= max && !UNEVEN_SPACE.test(text)) return { flat: text, shown: text.length, cut: false };
  const words = new RegExp(WORD);
  words.lastIndex = from;
  let flat = "";
  /** The end in `text` of the last word in `flat`. */
  let read = from;
  for (let word = words.exec(text); word !== null; word = words.exec(text)) {
    const start = flat === "" ? 0 : flat.length + 1;
    // A word longer than the excerpt (a base64 run) is read no further than the cut.
    const piece = word[0].length > max ? word[0].slice(0, max + 1) : word[0];
    const joined = flat === "" ? piece : `${flat} ${piece}`;
    if (joined.length <= max) {
      flat = joined;
      read = word.index + word[0].length;
      continue;
    }
    const end = safeCutBefore(joined, max);
    // Where the cut falls in the text: inside this word, or right after the one before.
    const shown = end >= start ? word.index + (end - start) : read;
    return { flat: joined.slice(0, end).trimEnd(), shown, cut: true };
  }
  return { flat, shown: text.length, cut: false };
}
