import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { textOf, toolCallIdOf, toolCallsOf } from "../messages.js";
import { SETTINGS_SPEC } from "../settings/spec.js";

/** How much of the newest history {@link findSafeCut} keeps verbatim: recent turns are what the model answers from. */
export interface KeepOptions {
  /**
   * Keep at least this many estimated tokens of the newest messages.
   * @default 2000 in findSafeCut; the context manager uses 15% of the prompt limit
   */
  keepMinTokens?: number;
  /**
   * …and at least this many messages with text (user messages, AI replies).
   * @default 4
   */
  keepMinText?: number;
  /**
   * Stop gathering at this many tokens even if the minimums are not met.
   * @default 6000 in findSafeCut; the context manager uses 40% of the prompt limit
   */
  keepMaxTokens?: number;
}

/**
 * Defaults of {@link KeepOptions} in {@link findSafeCut} itself. The context manager
 * passes its own: `keepMinTokens` and `keepMaxTokens` are shares of the prompt limit
 * there (see `SETTINGS_SPEC`), so a large budget keeps a matching tail.
 */
export const DEFAULT_KEEP: Readonly<Required<KeepOptions>> = Object.freeze({ keepMinTokens: 2000, keepMinText: SETTINGS_SPEC.keepMinText.default, keepMaxTokens: 6000 });

/**
 * The forbidden-cut table: `table[c]` is true when keeping `messages[c..]` would
 * separate a tool call from one of its results. Orphans (a call with no result, a
 * result with no call) do not constrain. Length `messages.length + 1`.
 *
 * @example
 * ```ts
 * forbiddenCuts([human, aiWithCall, toolResult]); // [false, false, true, false]
 * ```
 */
export function forbiddenCuts(messages: readonly BaseMessage[]): boolean[] {
  const n = messages.length;
  const callAt = new Map<string, number>();
  messages.forEach((message, i) => {
    for (const call of toolCallsOf(message)) if (call.id) callAt.set(call.id, i);
  });
  // A call at i answered at j forbids every cut in (i, j].
  const span = new Array<number>(n + 1).fill(0);
  messages.forEach((message, j) => {
    const id = toolCallIdOf(message);
    if (message.type !== "tool" || id === undefined) return;
    const i = callAt.get(id);
    if (i === undefined || i >= j) return;
    span[i + 1] = (span[i + 1] as number) + 1;
    span[j + 1] = (span[j + 1] as number) - 1;
  });
  const table = new Array<boolean>(n + 1);
  let open = 0;
  for (let c = 0; c <= n; c++) {
    open += span[c] as number;
    table[c] = open > 0;
  }
  return table;
}

/** True when cutting at `c` keeps every call with its results (0 and n are not cuts). */
export function isSafeCut(messages: readonly BaseMessage[], c: number, table = forbiddenCuts(messages)): boolean {
  return c > 0 && c < messages.length && table[c] === false;
}

/**
 * Where the kept tail starts: `messages[cut..]` stay, `messages[minCut, cut)` are
 * summarized. Gathers whole messages from the end until at least `keepMinTokens`
 * and `keepMinText` text messages are kept; past `keepMaxTokens` it settles on the
 * previous safe position. A cut never lands after `maxCut` (the current request
 * stays whole) nor on a forbidden position. Returns `null` when no safe cut exists.
 *
 * @example
 * ```ts
 * const cut = findSafeCut(messages, 1, currentStart, estimator, { keepMinTokens: 1000 });
 * ```
 */
export function findSafeCut(
  messages: readonly BaseMessage[],
  minCut: number,
  maxCut: number,
  estimator: Estimator,
  keep: KeepOptions = {},
): number | null {
  const keepMinTokens = keep.keepMinTokens ?? DEFAULT_KEEP.keepMinTokens;
  const keepMinText = keep.keepMinText ?? DEFAULT_KEEP.keepMinText;
  const keepMaxTokens = keep.keepMaxTokens ?? DEFAULT_KEEP.keepMaxTokens;
  const table = forbiddenCuts(messages);
  const safe = (c: number) => c > minCut && c <= maxCut && c < messages.length && table[c] === false;
  let tokens = 0;
  let texts = 0;
  let lastSafe: number | null = null;
  for (let c = messages.length - 1; c > minCut; c--) {
    const message = messages[c] as BaseMessage;
    tokens += estimator.estimateMessage(message);
    if ((message.type === "human" || (message.type === "ai" && toolCallsOf(message).length === 0)) && textOf(message.content).trim() !== "") texts++;
    if (!safe(c)) continue;
    if (tokens > keepMaxTokens) return lastSafe ?? c;
    lastSafe = c;
    if (tokens >= keepMinTokens && texts >= keepMinText) return c;
  }
  return lastSafe;
}
