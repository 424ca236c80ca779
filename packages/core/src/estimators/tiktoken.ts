import { invalidOption } from "../errors.js";
import { createEstimator, type Estimator, type EstimatorOptions } from "../estimate.js";
import { estimateTextTokens } from "./text-tokens.js";

/**
 * What the tiktoken estimator needs of an encoding: js-tiktoken's `Tiktoken`
 * (`getEncoding("o200k_base")`, or `new Tiktoken(o200k_base)` from `js-tiktoken/lite`).
 */
export interface TiktokenEncoding {
  encode(text: string, allowedSpecial?: "all" | string[], disallowedSpecial?: "all" | string[]): number[];
}

/** Options of {@link createTiktokenEstimator}: the framing of `createEstimator` plus a length guard. */
export interface TiktokenEstimatorOptions extends Omit<EstimatorOptions, "tokenizer" | "tokenCounter"> {
  /**
   * Longest text, in UTF-16 characters, encoded exactly. A longer text (a raw tool
   * result of megabytes; js-tiktoken encodes about 1 MB in 3 s) is charged the
   * default estimate instead: it is compacted or excerpted before it enters a
   * view, and what the view keeps is counted exactly. `Infinity` encodes everything.
   * @default 50000
   */
  maxExactChars?: number;
}

/** Texts up to this length are remembered, so ids, names and labels are encoded once. */
const CACHED_TEXT_CHARS = 1000;
const CACHED_TEXTS = 4096;

/**
 * An estimator that counts text with a real tokenizer (js-tiktoken's `o200k_base`
 * for GPT-4o and later, `cl100k_base` for GPT-4 and GPT-3.5), with the same
 * interface and overheads as {@link createEstimator} (per message, per image, per
 * tool call and schema). The encoding is passed in, so `@contextview/core` never
 * loads js-tiktoken itself (an optional peer: install it next to core). Messages
 * are encoded only when the view's walk reads them, newest first, and each message
 * once (cached per object), so a long conversation costs what the view keeps.
 * Special-token text such as `<|endoftext|>` is counted as plain text, never
 * rejected.
 *
 * @example
 * ```ts
 * import { getEncoding } from "js-tiktoken";
 * const estimator = createTiktokenEstimator(getEncoding("o200k_base"));
 * const node = createContextNode({ store, estimator, budget: { safetyReserve: 512 } });
 * ```
 */
export function createTiktokenEstimator(encoding: TiktokenEncoding, options: TiktokenEstimatorOptions = {}): Estimator {
  if (typeof encoding !== "object" || encoding === null || typeof encoding.encode !== "function") {
    throw invalidOption("encoding", 'a js-tiktoken encoding (getEncoding("o200k_base"))', encoding);
  }
  const { maxExactChars = 50_000, ...framing } = options;
  if (!(maxExactChars === Number.POSITIVE_INFINITY || (Number.isSafeInteger(maxExactChars) && maxExactChars > 0))) {
    throw invalidOption("maxExactChars", "a positive integer or Infinity", maxExactChars);
  }
  const cache = new Map<string, number>();
  const tokenizer = (text: string): number => {
    if (text.length > maxExactChars) return estimateTextTokens(text);
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const tokens = encoding.encode(text, [], []).length;
    if (text.length <= CACHED_TEXT_CHARS) {
      if (cache.size >= CACHED_TEXTS) cache.delete(cache.keys().next().value as string);
      cache.set(text, tokens);
    }
    return tokens;
  };
  return createEstimator({ ...framing, tokenizer });
}
