import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { copyMessage, countImages, textOf, type MessageKind } from "../messages.js";
import { safeCutBefore } from "../text.js";
import { EXCERPT_MARKER_TOKENS } from "./older.js";

/** Smallest text, in estimated tokens, a pinned message is excerpted to before it is left out. */
export const MIN_PINNED_EXCERPT_TOKENS = 40;

/** Share of an excerpt taken from the beginning of the text; the rest comes from its end. */
const HEAD_SHARE = 0.6;

/**
 * The beginning and end of `text`, at most `maxChars` UTF-16 units in all, joined by
 * a marker with the omitted character count. Text that fits is returned as it is.
 *
 * @example
 * ```ts
 * excerptEnds("a".repeat(50) + "b".repeat(50), 10); // "aaaaaa\n[… pinned excerpt: 90 of 100 characters omitted …]\nbbbb"
 * ```
 */
export function excerptEnds(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const total = Math.max(0, maxChars);
  const head = safeCutBefore(text, Math.ceil(total * HEAD_SHARE));
  const tailStart = safeCutBefore(text, text.length - (total - head));
  const omitted = tailStart - head;
  return `${text.slice(0, head)}\n[… pinned excerpt: ${omitted} of ${text.length} characters omitted …]\n${text.slice(tailStart)}`;
}

/** The longest ends-excerpt of `text` whose estimate stays within `maxTokens` (plus its marker). */
export function fitEndsExcerpt(text: string, maxTokens: number, estimator: Estimator): string {
  // Three ASCII characters a token; multibyte text needs fewer, so shrink until it fits.
  let chars = maxTokens * 3;
  let out = excerptEnds(text, chars);
  while (chars > 0 && estimator.estimateText(out) > maxTokens + EXCERPT_MARKER_TOKENS) {
    chars = Math.floor(chars / 2);
    out = excerptEnds(text, chars);
  }
  return out;
}

/** Estimated tokens of a message's text (images and framing not included). */
export function textTokens(message: BaseMessage, estimator: Estimator): number {
  return estimator.estimateText(textOf(message.content));
}

/**
 * A copy of a pinned message whose text is at most `maxTokens` (an excerpt of its
 * beginning and end), or the message itself when it fits. Tool-call arguments are
 * never changed; images of an excerpted message are named, not kept, and counted
 * in `imagesOmitted`.
 */
export function boundPinnedText(
  message: BaseMessage,
  kind: MessageKind,
  maxTokens: number,
  estimator: Estimator,
): { message: BaseMessage; excerpted: boolean; imagesOmitted: number } {
  const text = textOf(message.content);
  if (estimator.estimateText(text) <= maxTokens) return { message, excerpted: false, imagesOmitted: 0 };
  const images = countImages(message.content);
  const note = images > 0 ? `\n[${images} image(s) of this pinned message omitted]` : "";
  return { message: copyMessage(message, kind, { content: fitEndsExcerpt(text, maxTokens, estimator) + note }), excerpted: true, imagesOmitted: images };
}
