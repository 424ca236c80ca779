import type { BaseMessage, MessageContent } from "@langchain/core/messages";
import { copyMessage, type MessageKind } from "../messages.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { turnHash } from "./select.js";

/**
 * Anthropic's limit of `cache_control` breakpoints per request.
 *
 * @example
 * ```ts
 * const left = ANTHROPIC_MAX_BREAKPOINTS - countCacheBreakpoints(view.messages) - 1; // one for the request level
 * ```
 */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/** The fewest tokens of a prefix Anthropic caches (Claude Sonnet and Opus; Haiku needs 2,048). */
export const ANTHROPIC_MIN_CACHED = 1024;

/**
 * Breakpoints left for others: one for a request-level `cache_control` (the
 * automatic breakpoint on the last block that langchain's
 * `anthropicPromptCachingMiddleware` asks `ChatAnthropic` for).
 */
export const RESERVED_BREAKPOINTS = 1;

/** The marker Anthropic reads on a content block. */
export const CACHE_CONTROL = Object.freeze({ type: "ephemeral" as const });

const hasCacheControl = (block: unknown) => block !== null && typeof block === "object" && "cache_control" in block;

/**
 * `cache_control` markers already on the content blocks of a list of messages.
 *
 * @example
 * ```ts
 * countCacheBreakpoints([new SystemMessage({ content: [{ type: "text", text: "…", cache_control: { type: "ephemeral" } }] })]); // 1
 * ```
 */
export function countCacheBreakpoints(messages: readonly BaseMessage[]): number {
  let count = 0;
  for (const message of messages) if (Array.isArray(message.content)) for (const block of message.content) if (hasCacheControl(block)) count++;
  return count;
}

/**
 * The content with `cache_control` on its last block (a string becomes one text
 * block); `"marked"` when that block already has one; null when there is nothing to mark.
 */
function markedContent(content: MessageContent): MessageContent | "marked" | null {
  if (typeof content === "string") return content === "" ? null : [{ type: "text", text: content, cache_control: { ...CACHE_CONTROL } }];
  const blocks = content as unknown[];
  const last = blocks[blocks.length - 1];
  if (last === null || typeof last !== "object") return null;
  if (hasCacheControl(last)) return "marked";
  const text = (last as { type?: unknown; text?: unknown }).type === "text" ? (last as { text?: unknown }).text : undefined;
  if (text === "") return null;
  return [...blocks.slice(0, -1), { ...(last as object), cache_control: { ...CACHE_CONTROL } }] as MessageContent;
}

/**
 * A copy of a view with Anthropic cache breakpoints — `cache_control: { type:
 * "ephemeral" }` on the last content block — at the given message indices, in
 * priority order. A message with nothing to mark (an AI message with tool calls and
 * no text, say) passes the breakpoint to the nearest earlier message that has.
 * At most {@link ANTHROPIC_MAX_BREAKPOINTS} in all: breakpoints already on the
 * messages and {@link RESERVED_BREAKPOINTS} count first. Unmarked messages are the
 * same objects; marked ones are copies. The estimate is unchanged: only the form of
 * the content changes, not its text.
 *
 * @example
 * ```ts
 * const marked = markCacheBreakpoints(view.messages, [headEnd, olderEnd]);
 * ```
 */
export function markCacheBreakpoints(messages: readonly BaseMessage[], ends: readonly number[]): BaseMessage[] {
  const out = [...messages];
  let left = ANTHROPIC_MAX_BREAKPOINTS - RESERVED_BREAKPOINTS - countCacheBreakpoints(messages);
  const marked = new Set<number>();
  for (const end of ends) {
    if (left <= 0) break;
    for (let i = Math.min(end, out.length - 1); i >= 0; i--) {
      if (marked.has(i)) break;
      const message = out[i] as BaseMessage;
      const content = markedContent(message.content);
      if (content === "marked") break;
      if (content === null) continue;
      out[i] = copyMessage(message, message.type as MessageKind, { content });
      marked.add(i);
      left--;
      break;
    }
  }
  return out;
}

/**
 * Where a view marks its breakpoints, in order of use: the end of the head (`headEnd`) and
 * of the older turns (`olderEnd`), both moving in steps; with a band of turns kept with
 * their results cleared before the ones shown whole (`band`, newest first, right after the
 * head; see `clearedBand`), also its end, which holds while the turns after it change form.
 * A head of fewer than {@link ANTHROPIC_MIN_CACHED} tokens (`headTokens`, the tool schemas
 * included) is never cached: its breakpoint goes to an anchor inside the band (see
 * {@link bandAnchorEnd}).
 *
 * @example
 * ```ts
 * const marked = markCacheBreakpoints(messages, breakpointEnds(headEnd, olderEnd, chosen.cleared, headTokens));
 * ```
 */
export function breakpointEnds(headEnd: number, olderEnd: number, band: readonly PreparedTurn[], headTokens: number): number[] {
  const bandEnd = headEnd + band.reduce((sum, turn) => sum + turn.messages.length, 0);
  if (bandEnd <= headEnd || bandEnd >= olderEnd) return [headEnd, olderEnd];
  const inBand = headTokens < ANTHROPIC_MIN_CACHED ? bandAnchorEnd(band, headEnd) : undefined;
  return [inBand ?? headEnd, olderEnd, bandEnd];
}

/**
 * Where to mark an Anthropic breakpoint inside the band (see `clearedBand`): the end
 * of its newest turn, but its last, whose key hashes to at least two trailing zero bits.
 * The band grows at its end, so that turn holds while up to about four turns join after
 * it, and the next such turn is found within Anthropic's 20-block lookback of it. Undefined
 * when no turn qualifies.
 *
 * @param cleared - The band's turns, newest first (`ChosenOlderTurns.cleared`).
 * @param headEnd - Index in the view of the message right before the band.
 *
 * @example
 * ```ts
 * const mid = bandAnchorEnd(chosen.cleared, headEnd); // 41, say
 * ```
 */
export function bandAnchorEnd(cleared: readonly PreparedTurn[], headEnd: number): number | undefined {
  let at = headEnd;
  let found: number | undefined;
  for (let k = cleared.length - 1; k >= 1; k--) {
    const turn = cleared[k] as PreparedTurn;
    at += turn.messages.length;
    if ((turnHash(turn.key) & 3) === 0) found = at;
  }
  return found;
}
