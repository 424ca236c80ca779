import { invalidOption } from "../errors.js";
import { safeCutBefore } from "../text.js";

/** A note split into its YAML frontmatter (with both fences and the newline after them) and its content. */
export interface NoteParts {
  readonly frontmatter: string;
  readonly body: string;
}

/** Frontmatter longer than this is treated as content: no real note has one, and the scan stays bounded. */
const MAX_FRONTMATTER_CHARS = 64 * 1024;
const MAX_HEADING_CHARS = 120;

/**
 * Split a markdown note into frontmatter and content. A note has frontmatter when
 * its first line is `---` and a later line is `---` or `...`.
 */
export function splitFrontmatter(text: string): NoteParts {
  const firstEnd = text.indexOf("\n");
  if (firstEnd < 0 || text.slice(0, firstEnd).trimEnd() !== "---") return { frontmatter: "", body: text };
  let start = firstEnd + 1;
  while (start < text.length && start < MAX_FRONTMATTER_CHARS) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trimEnd();
    if (line === "---" || line === "...") {
      const cut = Math.min(end + 1, text.length);
      return { frontmatter: text.slice(0, cut), body: text.slice(cut) };
    }
    start = end + 1;
  }
  return { frontmatter: "", body: text };
}

/** A bounded list of a note's headings, as `"L<line> <heading>"` with one-based content line numbers. */
export interface HeadingIndex {
  readonly headings: readonly string[];
  /** Headings found beyond the bound. */
  readonly omitted: number;
  /** Content lines of the note (frontmatter excluded). */
  readonly lines: number;
}

const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const FENCE = /^ {0,3}(```|~~~)/;

/**
 * Index the ATX headings (`# Title`) of a note's content, skipping fenced code,
 * keeping the first `maxHeadings`. Line numbers count content lines from 1, the
 * numbering {@link readNoteLines} takes.
 */
export function indexHeadings(body: string, maxHeadings: number): HeadingIndex {
  const headings: string[] = [];
  let omitted = 0;
  let fence: string | undefined;
  let line = 0;
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf("\n", start);
    if (end < 0) end = body.length;
    line++;
    const first = body.charCodeAt(start + (body.charCodeAt(start) === 32 ? countSpaces(body, start) : 0));
    // Only lines starting with `#`, a backtick or a tilde can matter; skip the regex for the rest.
    if (first === 35 || first === 96 || first === 126) {
      const text = body.slice(start, end).replace(/\r$/, "");
      const opener = FENCE.exec(text)?.[1];
      if (opener !== undefined) {
        if (fence === undefined) fence = opener;
        else if (opener === fence) fence = undefined;
      } else if (fence === undefined && HEADING.test(text)) {
        if (headings.length < maxHeadings) {
          const heading = text.trim();
          headings.push(`L${line} ${heading.slice(0, safeCutBefore(heading, MAX_HEADING_CHARS))}`);
        }
        else omitted++;
      }
    }
    start = end + 1;
  }
  return { headings, omitted, lines: line };
}

function countSpaces(text: string, start: number): number {
  let n = 0;
  while (n < 4 && text.charCodeAt(start + n) === 32) n++;
  return n;
}

/**
 * Options of {@link readNoteLines}.
 *
 * @example
 * ```ts
 * readNoteLines(markdown, { startLine: 40, maxLines: 20, maxHeadings: 10 });
 * ```
 */
export interface NoteLinesOptions {
  /** First content line to return, one-based, frontmatter excluded. */
  startLine: number;
  /**
   * Most lines returned.
   * @default 200
   */
  maxLines?: number;
  /**
   * Longest heading index returned.
   * @default 24
   */
  maxHeadings?: number;
}

/**
 * A focused read of a note: a line range of its content, its frontmatter and a heading index.
 *
 * @example
 * ```ts
 * const { text, startLine, endLine, totalLines, headings } = readNoteLines(markdown, { startLine: 1 });
 * ```
 */
export interface NoteLines {
  readonly startLine: number;
  /** Last line returned; `startLine - 1` when the range is past the end. */
  readonly endLine: number;
  readonly totalLines: number;
  readonly text: string;
  readonly frontmatter: string;
  readonly headings: readonly string[];
  readonly headingsOmitted: number;
}

/**
 * Read lines `startLine..startLine+maxLines-1` of a note's content, for tools that
 * return a focused read as `artifact.model_context`: compaction then shows the
 * model this range instead of the whole note, while the full note stays in the
 * artifact. Line numbers match the heading index attached to note excerpts.
 *
 * @example
 * ```ts
 * const focus = readNoteLines(markdown, { startLine: 120, maxLines: 40 });
 * return [JSON.stringify(focus), { path, markdown, model_context: { path, ...focus } }];
 * ```
 */
export function readNoteLines(markdown: string, options: NoteLinesOptions): NoteLines {
  const { startLine } = options;
  const maxLines = options.maxLines ?? 200;
  const maxHeadings = options.maxHeadings ?? 24;
  if (typeof markdown !== "string") throw invalidOption("markdown", "a string", markdown);
  if (!Number.isSafeInteger(startLine) || startLine < 1) throw invalidOption("startLine", "a positive integer (one-based)", startLine);
  if (!Number.isSafeInteger(maxLines) || maxLines < 1) throw invalidOption("maxLines", "a positive integer", maxLines);
  if (!Number.isSafeInteger(maxHeadings) || maxHeadings < 0) throw invalidOption("maxHeadings", "a non-negative integer", maxHeadings);

  const { frontmatter, body } = splitFrontmatter(markdown);
  const index = indexHeadings(body, maxHeadings);
  let line = 1;
  let from = 0;
  while (line < startLine && from <= body.length) {
    const end = body.indexOf("\n", from);
    from = end < 0 ? body.length + 1 : end + 1;
    line++;
  }
  const endLine = Math.min(index.lines, startLine + maxLines - 1);
  let to = from;
  for (let n = startLine; n <= endLine; n++) {
    const end = body.indexOf("\n", to);
    to = end < 0 ? body.length : n === endLine ? end : end + 1;
  }
  const text = endLine >= startLine ? body.slice(from, to) : "";
  return {
    startLine,
    endLine: Math.max(endLine, startLine - 1),
    totalLines: index.lines,
    text,
    frontmatter,
    headings: index.headings,
    headingsOmitted: index.omitted,
  };
}
