import { createEstimator, type Estimator } from "@contextview/core";
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";

/**
 * How a provider serves a prompt from its prefix cache.
 * - `openai`: automatic prefix caching — the longest common prefix with the
 *   previous call's prompt, served from 1,024 tokens on in 128-token steps.
 * - `anthropic`: explicit breakpoints — a prefix is served only up to a block
 *   boundary the previous call wrote at one of its breakpoints (`cache_control`
 *   on a content block, or the request-level automatic breakpoint on the last
 *   block that langchain's `anthropicPromptCachingMiddleware` sets), found within
 *   20 blocks before one of this call's breakpoints; at least 1,024 tokens.
 */
export type CacheModel = "openai" | "anthropic";

export const CACHE_MODELS: readonly CacheModel[] = ["openai", "anthropic"];

/** Smallest cacheable prefix of both providers (Anthropic Sonnet/Opus; Haiku needs 2,048). */
const MIN_CACHED_TOKENS = 1024;
/** OpenAI serves cached prefixes in steps of this many tokens above the minimum. */
const OPENAI_STEP = 128;
/** Anthropic looks back this many blocks from a breakpoint for an earlier cache entry. */
const ANTHROPIC_LOOKBACK = 20;

/**
 * One block of a prompt as a cache sees it: the tool schemas, then one block per
 * message. `key` is what the provider compares (role, text, tool calls and ids;
 * `cache_control` markers and message ids excluded, a string equal to one text block).
 */
export interface PromptBlock {
  key: string;
  tokens: number;
  /** Role and readable text, for the common prefix inside the first differing block. */
  text: string;
  /** Carries a block-level `cache_control` breakpoint. */
  breakpoint: boolean;
  /**
   * What the block shows, whatever its form: a tool result is its call id (whole,
   * compacted or cleared, it is the same result), anything else its key.
   */
  shows: string;
}

/** What a prefix cache did with one model call's prompt, in estimated tokens. */
export interface CallCache {
  prompt: number;
  /** Served from the cache (read). */
  cached: number;
  /** Written to the cache at a breakpoint (Anthropic bills writes above the input price). */
  written: number;
}

const defaultEstimator = createEstimator();

function stripCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripCacheControl);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (k !== "cache_control") out[k] = stripCacheControl(v);
    return out;
  }
  return value;
}

function hasCacheControl(content: unknown): boolean {
  return Array.isArray(content) && content.some((block) => block !== null && typeof block === "object" && "cache_control" in block);
}

function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (typeof b === "string" ? b : b && typeof b === "object" && (b as { type?: unknown }).type === "text" ? String((b as { text?: unknown }).text ?? "") : "\u0000")).join("");
}

/** The blocks of one model call's prompt: the tool schemas (a fixed block), then every message. */
export function promptBlocks(view: readonly BaseMessage[], toolTokens: number, estimator: Estimator = defaultEstimator): PromptBlock[] {
  const blocks: PromptBlock[] = [{ key: "tools", tokens: toolTokens, text: "", breakpoint: false, shows: "tools" }];
  for (const message of view) {
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : stripCacheControl(message.content);
    const calls = ((message as AIMessage).tool_calls ?? []).map((c) => [c.id, c.name, c.args]);
    const key = JSON.stringify([message.type, content, calls, (message as ToolMessage).tool_call_id ?? null]);
    const shows = message.type === "tool" ? `tool\u0000${(message as ToolMessage).tool_call_id}` : key;
    blocks.push({ key, tokens: estimator.estimateMessage(message), text: `${message.type}\u0000${textOfContent(message.content)}`, breakpoint: hasCacheControl(message.content), shows });
  }
  return blocks;
}

function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Leading blocks equal in both prompts. */
export function sameBlocks(previous: readonly PromptBlock[], next: readonly PromptBlock[]): number {
  const n = Math.min(previous.length, next.length);
  let i = 0;
  while (i < n && (previous[i] as PromptBlock).key === (next[i] as PromptBlock).key) i++;
  return i;
}

/**
 * Tokens of the longest common prefix of two prompts: the equal leading blocks, plus
 * the common text prefix of the first block that differs when its role is the same.
 */
export function commonPrefixTokens(previous: readonly PromptBlock[], next: readonly PromptBlock[], estimator: Estimator = defaultEstimator): number {
  const same = sameBlocks(previous, next);
  let tokens = 0;
  for (let i = 0; i < same; i++) tokens += (next[i] as PromptBlock).tokens;
  const a = previous[same];
  const b = next[same];
  if (a && b) tokens += sharedTextTokens(a, b, estimator);
  return tokens;
}

/** True when `next` is longer than `previous` and starts with at least 90% of its text (a summary that grew by a part). */
function extendsBlock(previous: PromptBlock, next: PromptBlock): boolean {
  return next.text.length > previous.text.length && commonPrefixLength(previous.text, next.text) >= 0.9 * previous.text.length;
}

/** Tokens of the text `next` shares at its start with `previous`, when their roles are the same (less than the whole block). */
function sharedTextTokens(previous: PromptBlock, next: PromptBlock, estimator: Estimator): number {
  const shared = commonPrefixLength(previous.text, next.text);
  const role = next.text.indexOf("\u0000") + 1;
  return shared > role ? Math.min(next.tokens - 1, estimator.estimateText(next.text.slice(role, shared))) : 0;
}

/** OpenAI-style automatic caching of one call given the previous call's prompt. */
export function openAiCache(previous: readonly PromptBlock[] | undefined, next: readonly PromptBlock[], estimator: Estimator = defaultEstimator): CallCache {
  const prompt = next.reduce((a, b) => a + b.tokens, 0);
  const common = previous ? commonPrefixTokens(previous, next, estimator) : 0;
  const cached = common < MIN_CACHED_TOKENS ? 0 : MIN_CACHED_TOKENS + Math.floor((common - MIN_CACHED_TOKENS) / OPENAI_STEP) * OPENAI_STEP;
  return { prompt, cached: Math.min(cached, prompt), written: 0 };
}

/**
 * Anthropic-style caching of one call given the previous call's prompt. Breakpoints
 * are the blocks marked with `cache_control` plus, when `automatic`, the last block
 * (the request-level breakpoint of `anthropicPromptCachingMiddleware`, given to
 * every system alike). Entries exist where the previous call had breakpoints.
 */
export function anthropicCache(previous: readonly PromptBlock[] | undefined, next: readonly PromptBlock[], automatic = true): CallCache {
  const ends: number[] = [];
  let sum = 0;
  for (const block of next) ends.push((sum += block.tokens));
  const prompt = sum;
  const marks = (blocks: readonly PromptBlock[]) => {
    const out = new Set<number>();
    blocks.forEach((b, i) => {
      if (b.breakpoint || (automatic && i === blocks.length - 1)) out.add(i);
    });
    return out;
  };
  const current = [...marks(next)];
  const entries = previous ? marks(previous) : new Set<number>();
  const same = previous ? sameBlocks(previous, next) : 0;
  let cached = 0;
  for (const b of current) {
    for (let j = b; j >= 0 && j > b - ANTHROPIC_LOOKBACK; j--) {
      if (j < same && entries.has(j) && (ends[j] as number) >= MIN_CACHED_TOKENS) {
        cached = Math.max(cached, ends[j] as number);
        break;
      }
    }
  }
  const last = current.length ? (ends[Math.max(...current)] as number) : 0;
  const written = last >= MIN_CACHED_TOKENS ? Math.max(0, last - cached) : 0;
  return { prompt, cached, written };
}

/**
 * Each call's new tokens: blocks that show what no earlier call of the conversation
 * showed (a new message, a new summary; a result shown before in another form is not
 * new; a block that extends the one the previous call showed in its place, or is the
 * first to differ from it, is new only past their common text). No cache can serve them, so `1 − new / prompt` over the conversation is the
 * most a system's views could be served if they never moved their prefix; the rest of
 * what is not cached was shown before and re-sent after a prefix moved.
 *
 * @example
 * ```ts
 * const fresh = newTokens(prompts); // fresh[0] is the whole first prompt
 * ```
 */
export function newTokens(prompts: readonly (readonly PromptBlock[])[], estimator: Estimator = defaultEstimator): number[] {
  const shown = new Set<string>();
  return prompts.map((blocks, i) => {
    let fresh = 0;
    const previous = prompts[i - 1];
    // The first block that differs from the previous call's: a cache serves the text it
    // shares with the block it replaces, so that text is never new.
    const first = previous ? sameBlocks(previous, blocks) : -1;
    blocks.forEach((block, j) => {
      if (shown.has(block.shows)) return;
      // A block that extends the one the previous call showed in its place (a summary
      // that grew by a part) is new only past the text they share.
      const before = previous?.[j];
      fresh += before && (j === first || extendsBlock(before, block)) ? block.tokens - sharedTextTokens(before, block, estimator) : block.tokens;
    });
    for (const block of blocks) shown.add(block.shows);
    return fresh;
  });
}

/** Each call's cache use under a model, the first call served by nothing. */
export function cacheSeries(prompts: readonly PromptBlock[][], model: CacheModel, estimator: Estimator = defaultEstimator): CallCache[] {
  return prompts.map((next, i) => (model === "openai" ? openAiCache(prompts[i - 1], next, estimator) : anthropicCache(prompts[i - 1], next)));
}

/**
 * List prices in US dollars per million tokens. `cacheWrite` is what a token
 * written to the cache costs (Anthropic: 1.25× input for the 5-minute cache);
 * without it writes cost `input`.
 */
export interface Prices {
  name: string;
  /** The cache model that matches the provider. */
  model: CacheModel;
  input: number;
  cachedInput: number;
  output: number;
  cacheWrite?: number;
  /** When the prices were read and where; list prices change, check them before quoting. */
  asOf: string;
  source: string;
}

/**
 * Two presets. Written from the providers' published list prices as remembered on
 * the date given, on a machine without network access: check them against the
 * source before quoting a cost.
 */
export const PRICE_PRESETS: readonly Prices[] = [
  { name: "openai-gpt-4.1", model: "openai", input: 2.0, cachedInput: 0.5, output: 8.0, asOf: "2025-04-14", source: "https://openai.com/api/pricing/ (GPT-4.1)" },
  {
    name: "anthropic-sonnet-4",
    model: "anthropic",
    input: 3.0,
    cachedInput: 0.3,
    cacheWrite: 3.75,
    output: 15.0,
    asOf: "2025-05-22",
    source: "https://www.anthropic.com/pricing (Claude Sonnet 4; 5-minute cache writes 1.25× input, reads 0.1×)",
  },
];

/**
 * Dollars for a conversation: every call's uncached, cached and written input, and the
 * output; and the summarizer's calls, when the system made any, at the same model's
 * uncached input and output prices (a summary is a model call too).
 */
export function conversationCost(calls: readonly CallCache[], outputTokens: number, prices: Prices, summarizer: { input: number; output: number } = { input: 0, output: 0 }): number {
  let dollars = (outputTokens * prices.output + summarizer.input * prices.input + summarizer.output * prices.output) / 1e6;
  for (const call of calls) {
    const fresh = call.prompt - call.cached - call.written;
    dollars += (fresh * prices.input + call.cached * prices.cachedInput + call.written * (prices.cacheWrite ?? prices.input)) / 1e6;
  }
  return dollars;
}
