import { safeCutBefore, truncateUtf8, utf8Length } from "../text.js";
import { EVIDENCE_LIMITS } from "./limits.js";

/** Stands for text left out of an excerpt. */
export const EXCERPT_GAP = "[…]";

/** An excerpt and whether text was left out of it. */
export interface Excerpt {
  readonly text: string;
  readonly truncated: boolean;
}

/** A keyword this far into the text is not in the head, so the excerpt starts at its sentence. */
const HEAD_REACH = 600;
/** How far back from a keyword the start of its sentence is looked for. */
const SENTENCE_REACH = 200;
/** Code units read past the start: at least `maxExcerptBytes` of any text after whitespace collapses. */
const READ_UNITS = 4 * EVIDENCE_LIMITS.maxExcerptBytes;
/** Sticky search for text after the read window, without copying the rest of a long text. */
const NON_SPACE = /\S/g;

function sentenceStart(text: string, offset: number): number {
  const from = Math.max(0, offset - SENTENCE_REACH);
  const before = text.slice(from, offset);
  const boundary = Math.max(before.lastIndexOf(". "), before.lastIndexOf("! "), before.lastIndexOf("? "), before.lastIndexOf("\n"));
  return safeCutBefore(text, boundary < 0 ? from : from + boundary + 1);
}

/**
 * The excerpt of a message text kept as evidence: whitespace collapsed, at most
 * 900 UTF-8 bytes with its `[…]` markers. It starts at the head of the text, or
 * at the sentence holding the keyword (`offset`) when that lies further in.
 *
 * @example
 * ```ts
 * makeExcerpt("Budget: never exceed $50.", 8); // { text: "Budget: never exceed $50.", truncated: false }
 * ```
 */
export function makeExcerpt(text: string, offset: number): Excerpt {
  const start = offset > HEAD_REACH ? sentenceStart(text, offset) : 0;
  const end = safeCutBefore(text, Math.min(text.length, start + READ_UNITS));
  const body = text.slice(start, end).replace(/\s+/g, " ").trim();
  const lead = start > 0 ? `${EXCERPT_GAP} ` : "";
  const whole = `${lead}${body}`;
  NON_SPACE.lastIndex = end;
  const cutAtEnd = NON_SPACE.test(text);
  if (!cutAtEnd && utf8Length(whole) <= EVIDENCE_LIMITS.maxExcerptBytes) return { text: whole, truncated: start > 0 };
  const tail = ` ${EXCERPT_GAP}`;
  const kept = truncateUtf8(whole, EVIDENCE_LIMITS.maxExcerptBytes - utf8Length(tail)).trimEnd();
  return { text: `${kept}${tail}`, truncated: true };
}
