import { ContextViewError } from "../errors.js";
import { safeCutAfter, safeCutBefore } from "../text.js";

/**
 * Length of a prefix of at most `max` UTF-16 units that does not split a surrogate
 * pair. When `preferLineEnd`, a cut falls after the last newline of the final
 * quarter, so excerpts end on whole lines where they can.
 */
export function prefixLength(text: string, max: number, preferLineEnd = false): number {
  if (max >= text.length) return text.length;
  let n = Math.max(0, max);
  if (preferLineEnd && n > 0) {
    const newline = text.lastIndexOf("\n", n - 1);
    if (newline >= 0 && newline + 1 >= n * 0.75) n = newline + 1;
  }
  return safeCutBefore(text, n);
}

/** Start index of a suffix of at most `max` UTF-16 units that does not split a surrogate pair. */
export function suffixStart(text: string, max: number): number {
  if (max >= text.length) return 0;
  return safeCutAfter(text, text.length - Math.max(0, max));
}

/** The parts of a beginning-and-end excerpt of a plain-text tool result. */
export interface TextExcerpt {
  readonly head: string;
  readonly tail: string;
  /** Characters (UTF-16 units) of the original between `head` and `tail`. */
  readonly omitted: number;
  /** Characters of the original result. */
  readonly total: number;
}

/** The recall call an excerpt's middle marker names: the bound tool and the tool result it reads. */
export interface ExcerptRecall {
  readonly toolName: string;
  /** The result's `tool_call_id`. */
  readonly message: string;
}

/** The middle marker: what is omitted, and with a recall tool bound, the `read` call that returns exactly it. */
function omissionLine(excerpt: TextExcerpt, recall: ExcerptRecall | undefined): string {
  if (recall === undefined) {
    return `[… ${excerpt.omitted} characters omitted. The full result is kept in the conversation checkpoint; ask the tool for a narrower part (a range, a filter, a page) to see more …]`;
  }
  const from = excerpt.head.length;
  const args = { action: "read", message: recall.message, offset: from, length: excerpt.omitted };
  return `[… ${excerpt.omitted} characters omitted (characters ${from}-${from + excerpt.omitted} of ${excerpt.total}), kept in the conversation checkpoint. To read them, call \`${recall.toolName}\` with ${JSON.stringify(args)} …]`;
}

/** The marked text the model sees for a {@link TextExcerpt}; with `recall`, its middle marker names the call that reads the omitted part. */
export function renderTextExcerpt(excerpt: TextExcerpt, recall?: ExcerptRecall): string {
  const shown = excerpt.total - excerpt.omitted;
  return (
    `[Beginning of tool result: ${shown} of ${excerpt.total} characters shown, ${excerpt.omitted} omitted]\n` +
    `${excerpt.head}\n` +
    `${omissionLine(excerpt, recall)}\n` +
    `${excerpt.tail}\n` +
    "[End of tool result]"
  );
}

const RECALL_IN_LINE = /^\n\[… [^\n]* call `([A-Za-z0-9_-]{1,64})` with (\{[^\n]*\}) …\]\n$/;

/** The recall call a previous rendering's middle marker named, read back so the rendering can be checked exactly. */
function recallNamedIn(middle: string): ExcerptRecall | undefined {
  const match = RECALL_IN_LINE.exec(middle);
  if (match === null) return undefined;
  try {
    const args = JSON.parse(match[2]!) as { message?: unknown };
    return typeof args.message === "string" ? { toolName: match[1]!, message: args.message } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Recover the excerpt a previous pass rendered (with or without a recall call in
 * its middle marker), given the lengths it recorded. Undefined when the text is
 * not exactly such a rendering (then it is treated as new text).
 */
export function parseTextExcerpt(text: string, recorded: { headChars: number; tailChars: number; omittedChars: number; totalChars: number }): TextExcerpt | undefined {
  const { headChars, tailChars, omittedChars, totalChars } = recorded;
  if (![headChars, tailChars, omittedChars, totalChars].every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
  const prefix = renderTextExcerpt({ head: "", tail: "", omitted: omittedChars, total: totalChars }).indexOf("\n") + 1;
  const end = text.length - "\n[End of tool result]".length;
  const head = text.slice(prefix, prefix + headChars);
  const tail = text.slice(end - tailChars, end);
  const excerpt = { head, tail, omitted: omittedChars, total: totalChars };
  if (head.length !== headChars || tail.length !== tailChars) return undefined;
  if (renderTextExcerpt(excerpt) === text) return excerpt;
  // A marker naming a recall call is replaced on the next pass (named again or not), never kept as text.
  const recall = recallNamedIn(text.slice(prefix + headChars, end - tailChars));
  return recall !== undefined && renderTextExcerpt(excerpt, recall) === text ? excerpt : undefined;
}

/** Share of the shown characters given to the beginning; the rest goes to the end. */
const HEAD_SHARE = 0.6;

/** What an excerpt is cut from: the beginning comes from `head`, the end from `tail`. */
export interface ExcerptSource {
  readonly head: string;
  readonly tail: string;
  /** Characters of the original result. */
  readonly total: number;
  /** Most characters an excerpt may show (fewer than the source has, or nothing would be omitted). */
  readonly available: number;
}

/** A text seen for the first time: the beginning and the end come from the same string. */
export function sourceOfText(text: string): ExcerptSource {
  return { head: text, tail: text, total: text.length, available: Math.max(0, text.length - 1) };
}

/** A previous excerpt, cut further so its omission grows instead of being replaced. */
export function sourceOfExcerpt(excerpt: TextExcerpt): ExcerptSource {
  return { head: excerpt.head, tail: excerpt.tail, total: excerpt.total, available: Math.max(0, excerpt.head.length + excerpt.tail.length - 1) };
}

function cut(source: ExcerptSource, shown: number): TextExcerpt {
  const headMax = Math.min(source.head.length, Math.ceil(shown * HEAD_SHARE));
  const tailMax = Math.min(source.tail.length, shown - headMax);
  const head = source.head.slice(0, prefixLength(source.head, headMax, true));
  const tail = source.tail.slice(suffixStart(source.tail, tailMax));
  return { head, tail, omitted: source.total - head.length - tail.length, total: source.total };
}

/**
 * The longest beginning-and-end excerpt of `source` whose rendering (naming
 * `recall` when given) fits `limit` estimated tokens. Throws `COMPACTION_LIMIT` when even the markers do not fit.
 */
export function fitTextExcerpt(source: ExcerptSource, limit: number, estimate: (text: string) => number, recall?: ExcerptRecall): TextExcerpt {
  const fits = (shown: number): TextExcerpt | undefined => {
    const excerpt = cut(source, shown);
    return estimate(renderTextExcerpt(excerpt, recall)) <= limit ? excerpt : undefined;
  };
  let best = fits(0);
  if (best === undefined) {
    const required = estimate(renderTextExcerpt(cut(source, 0), recall));
    throw new ContextViewError(
      "COMPACTION_LIMIT",
      `The excerpt markers of a ${source.total}-character tool result need ${required} estimated tokens but the limit is ${limit}`,
      { limitTokens: limit, requiredTokens: required, totalChars: source.total },
    );
  }
  // Grow geometrically, then bisect: the work stays proportional to the excerpt, not the text.
  let low = 0;
  let high = source.available + 1;
  for (let shown = 64; shown <= source.available; shown *= 2) {
    const excerpt = fits(shown);
    if (excerpt === undefined) {
      high = shown;
      break;
    }
    best = excerpt;
    low = shown;
  }
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    const excerpt = fits(mid);
    if (excerpt === undefined) high = mid;
    else {
      best = excerpt;
      low = mid;
    }
  }
  return best;
}
