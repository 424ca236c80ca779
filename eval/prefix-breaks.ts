import { createEstimator, type Estimator } from "@contextview/core";
import { newTokens, openAiCache, type PromptBlock } from "./cache.js";

/**
 * Why one model call re-sent tokens that an earlier call had shown: the first block
 * where its prompt stops repeating the previous call's, and what happened to it.
 */
export interface PrefixBreak {
  /** Index of the model call. */
  call: number;
  /** Tokens of the call that were shown before and not served by the cache (OpenAI-style model); see {@link prefixBreaks}. */
  resent: number;
  /** Equal leading blocks of this prompt and the previous one. */
  same: number;
  /** The previous call's block at the break, and this call's (undefined past the end). */
  before?: PromptBlock;
  after?: PromptBlock;
  /** What happened at the break, one of {@link BREAK_CAUSES}. */
  cause: BreakCause;
}

/** The causes {@link prefixBreaks} tells apart, in the order reports list them. */
export const BREAK_CAUSES = [
  "tool result changed form",
  "summary or evidence updated",
  "user message changed form",
  "label of a kept message changed",
  "older messages left the view",
  "other message changed",
  "cache minimum and steps",
] as const;

/** One of {@link BREAK_CAUSES}. */
export type BreakCause = (typeof BREAK_CAUSES)[number];

/** How summaries begin: contextview's summary and evidence, langchain's summarizationMiddleware. */
const SUMMARY_MARKERS = ["Summary of the earlier part", "contextview_evidence", "Here is a summary of the conversation to date"];
const LABEL_MARKERS = ["[Pinned", "[Earlier in this conversation"];

function roleOf(block: PromptBlock): string {
  return block.text.slice(0, block.text.indexOf("\u0000"));
}

function bodyOf(block: PromptBlock): string {
  return block.text.slice(block.text.indexOf("\u0000") + 1);
}

/** What happened to the previous call's block `before`, given the block now in its place. */
function causeOf(before: PromptBlock | undefined, after: PromptBlock | undefined, next: readonly PromptBlock[]): BreakCause {
  // Every block repeated: the prefix was whole, and only the 1,024-token minimum or the 128-token steps cut it.
  if (before === undefined) return "cache minimum and steps";
  const body = bodyOf(before);
  if (SUMMARY_MARKERS.some((m) => body.includes(m))) return "summary or evidence updated";
  if (after !== undefined && after.shows === before.shows) return roleOf(before) === "tool" ? "tool result changed form" : "other message changed";
  if (after !== undefined && LABEL_MARKERS.some((m) => body.startsWith(m) || bodyOf(after).startsWith(m))) return "label of a kept message changed";
  if (roleOf(before) === "human" && after !== undefined && roleOf(after) === "human" && commonStart(body, bodyOf(after)) >= 16) return "user message changed form";
  if (!next.some((b) => b.shows === before.shows)) return "older messages left the view";
  return "other message changed";
}

function commonStart(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * Every call of a conversation that re-sent tokens, with the first block where its
 * prompt left the previous call's and the cause. Re-sent tokens are what the
 * OpenAI-style model of `eval/cache.ts` did not serve less the call's new tokens
 * ({@link newTokens}), so the breaks of a conversation add up to its "re-sent" share.
 *
 * @example
 * ```ts
 * const breaks = prefixBreaks(run.calls.map((c) => promptBlocks(c.view, toolTokens)));
 * resentByCause(breaks).get("summary or evidence updated");
 * ```
 */
export function prefixBreaks(prompts: readonly (readonly PromptBlock[])[], estimator: Estimator = createEstimator()): PrefixBreak[] {
  const fresh = newTokens(prompts, estimator);
  const breaks: PrefixBreak[] = [];
  prompts.forEach((next, call) => {
    const previous = prompts[call - 1];
    if (previous === undefined) return;
    const cache = openAiCache(previous, next, estimator);
    // Not clamped per call, so the breaks add up to the eval's "re-sent" column (a call
    // whose cached prefix reached into a block counted new nets slightly below zero).
    const resent = cache.prompt - cache.cached - (fresh[call] ?? 0);
    if (resent === 0) return;
    let same = 0;
    while (same < Math.min(previous.length, next.length) && previous[same]!.key === next[same]!.key) same++;
    const before = same < previous.length ? previous[same] : undefined;
    const after = next[same];
    breaks.push({ call, resent, same, ...(before && { before }), ...(after && { after }), cause: causeOf(before, after, next) });
  });
  return breaks;
}

/** Re-sent tokens per cause, every cause of {@link BREAK_CAUSES} present (0 when none). */
export function resentByCause(breaks: readonly PrefixBreak[]): Map<BreakCause, number> {
  const out = new Map<BreakCause, number>(BREAK_CAUSES.map((c) => [c, 0]));
  for (const b of breaks) out.set(b.cause, (out.get(b.cause) ?? 0) + b.resent);
  return out;
}
