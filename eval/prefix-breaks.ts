import { createEstimator, type Estimator } from "@contextview/core";
import { newTokens, openAiCache, sameBlocks, type PromptBlock } from "./cache.js";

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

/**
 * What happened at the first block where `next` left `previous` (`same` blocks
 * equal). A block replaced in place (the blocks after it line up again) changed
 * form; otherwise blocks were inserted before kept ones (a label) or left the view
 * (turns dropped — summarized when a summary appears in their place).
 */
function causeOf(previous: readonly PromptBlock[], next: readonly PromptBlock[], same: number): BreakCause {
  const before = previous[same];
  const after = next[same];
  // Every block repeated: the prefix was whole, and only the 1,024-token minimum or the 128-token steps cut it.
  if (before === undefined) return "cache minimum and steps";
  if (isSummary(before)) return "summary or evidence updated";
  if (after !== undefined && after.shows === before.shows && roleOf(before) === "tool") return "tool result changed form";
  const inPlace = after !== undefined && (same + 1 >= previous.length || previous[same + 1]!.key === next[same + 1]?.key);
  if (inPlace) {
    if (isLabel(before) || isLabel(after)) return "label of a kept message changed";
    return roleOf(before) === "human" ? "user message changed form" : "other message changed";
  }
  const shown = new Set(next.map((b) => b.shows));
  if (previous.slice(same).some((b) => !shown.has(b.shows))) {
    const earlier = new Set(previous.map((b) => b.key));
    return next.slice(same).some((b) => isSummary(b) && !earlier.has(b.key)) ? "summary or evidence updated" : "older messages left the view";
  }
  return after !== undefined && isLabel(after) ? "label of a kept message changed" : "other message changed";
}

const isSummary = (block: PromptBlock) => SUMMARY_MARKERS.some((m) => bodyOf(block).includes(m));
const isLabel = (block: PromptBlock) => LABEL_MARKERS.some((m) => bodyOf(block).startsWith(m));

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
export function prefixBreaks(prompts: readonly (readonly PromptBlock[])[], estimator: Estimator = createEstimator(), fresh: readonly number[] = newTokens(prompts, estimator)): PrefixBreak[] {
  const breaks: PrefixBreak[] = [];
  prompts.forEach((next, call) => {
    const previous = prompts[call - 1];
    if (previous === undefined) return;
    const cache = openAiCache(previous, next, estimator);
    // New tokens lie past the cached prefix (see newTokens), so this is never negative.
    const resent = cache.prompt - cache.cached - (fresh[call] ?? 0);
    if (resent === 0) return;
    const same = sameBlocks(previous, next);
    const before = previous[same];
    const after = next[same];
    breaks.push({ call, resent, same, ...(before && { before }), ...(after && { after }), cause: causeOf(previous, next, same) });
  });
  return breaks;
}

/** Re-sent tokens per cause, every cause of {@link BREAK_CAUSES} present (0 when none). */
export function resentByCause(breaks: readonly PrefixBreak[]): Map<BreakCause, number> {
  const out = new Map<BreakCause, number>(BREAK_CAUSES.map((c) => [c, 0]));
  for (const b of breaks) out.set(b.cause, (out.get(b.cause) ?? 0) + b.resent);
  return out;
}
