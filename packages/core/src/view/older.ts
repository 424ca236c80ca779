import type { BaseMessage, MessageContent } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { blockText, copyMessage, isImageBlock, toolCallsOf, type MessageKind } from "../messages.js";
import { safeCutBefore } from "../text.js";

/** Text that stands in for an image in an older turn. */
export const IMAGE_PLACEHOLDER = "[image omitted from this older turn; it remains in the conversation history]";

/** Allowance for the excerpt marker itself, on top of the excerpt's limit. */
export const EXCERPT_MARKER_TOKENS = 20;

/** Counts of what bounding older messages changed. */
export interface OlderCounts {
  excerpted: number;
  imagesReplaced: number;
}

/**
 * A prefix of `text` of at most `maxChars` UTF-16 units, never splitting a
 * surrogate pair, followed by a marker with the omitted character count.
 */
export function excerptText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = safeCutBefore(text, Math.max(0, maxChars));
  return `${text.slice(0, end)}\n[… excerpt: ${text.length - end} of ${text.length} characters omitted]`;
}

/**
 * A copy of an older message fit for the view: long text becomes an excerpt, the
 * prose of a tool-calling AI message is shortened, images become placeholders.
 * Tool-call arguments and tool results are never changed here.
 */
export function boundOlderMessage(
  message: BaseMessage,
  kind: MessageKind,
  limits: { maxTextTokens: number; maxProseTokens: number },
  estimator: Estimator,
  counts: OlderCounts,
): BaseMessage {
  if (kind === "tool" || kind === "system") return copyMessage(message, kind);
  const maxTokens = kind === "ai" && toolCallsOf(message).length > 0 ? limits.maxProseTokens : limits.maxTextTokens;
  const local: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  const content = boundContent(message.content, maxTokens, estimator, local);
  if (content === message.content) return copyMessage(message, kind);
  const bounded = copyMessage(message, kind, { content });
  // Markers are text too: a bound that would make the message larger leaves it as it was.
  if (estimator.estimateMessage(bounded) > estimator.estimateMessage(message)) return copyMessage(message, kind);
  counts.excerpted += local.excerpted;
  counts.imagesReplaced += local.imagesReplaced;
  return bounded;
}

function boundContent(content: MessageContent, maxTokens: number, estimator: Estimator, counts: OlderCounts): MessageContent {
  if (typeof content === "string") {
    if (estimator.estimateText(content) <= maxTokens) return content;
    counts.excerpted++;
    return fitExcerpt(content, maxTokens, estimator);
  }
  let changed = false;
  let remaining = maxTokens;
  /** The limit is spent: text blocks after it leave together. */
  let excerpted = false;
  /** Some text was cut or left out: the message is counted as excerpted. */
  let cut = false;
  // Text blocks after the limit is spent leave together, under one marker, not one marker each.
  let omittedBlocks = 0;
  let omittedChars = 0;
  const blocks: unknown[] = [];
  for (const block of content as unknown[]) {
    if (isImageBlock(block)) {
      counts.imagesReplaced++;
      blocks.push({ type: "text", text: IMAGE_PLACEHOLDER });
      changed = true;
      continue;
    }
    const text = blockText(block);
    if (text === undefined) {
      blocks.push(block);
      continue;
    }
    if (excerpted) {
      omittedBlocks++;
      omittedChars += text.length;
      continue;
    }
    const tokens = estimator.estimateText(text);
    if (tokens <= remaining) {
      remaining -= tokens;
      blocks.push(block);
      continue;
    }
    excerpted = true;
    // A text within the marker's allowance is kept whole (see fitExcerpt): not an excerpt.
    const fitted = fitExcerpt(text, remaining, estimator);
    if (fitted !== text) cut = true;
    blocks.push(fitted === text ? block : { type: "text", text: fitted });
    remaining = 0;
  }
  if (omittedBlocks > 0) {
    blocks.push({ type: "text", text: `[… excerpt: ${omittedBlocks} more text blocks (${omittedChars} characters) omitted]` });
    cut = true;
  }
  if (cut) counts.excerpted++;
  return changed || cut ? (blocks as MessageContent) : content;
}

/**
 * The longest marked excerpt of `text` whose estimate stays within `maxTokens`
 * (plus {@link EXCERPT_MARKER_TOKENS} for its marker); `text` itself when it fits.
 *
 * @example
 * ```ts
 * fitExcerpt("a long reply …", 200, createEstimator()); // at most ~220 estimated tokens, marked when cut
 * ```
 */
export function fitExcerpt(text: string, maxTokens: number, estimator: Estimator): string {
  // Three ASCII characters a token; multibyte text needs fewer, so shrink until it fits.
  let chars = maxTokens * 3;
  let out = excerptText(text, chars);
  while (chars > 0 && estimator.estimateText(out) > maxTokens + EXCERPT_MARKER_TOKENS) {
    chars = Math.floor(chars / 2);
    out = excerptText(text, chars);
  }
  return out;
}
