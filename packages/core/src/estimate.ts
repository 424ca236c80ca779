import type { BaseMessage, MessageContent } from "@langchain/core/messages";
import { ContextViewError, describeValue, invalidOption } from "./errors.js";
import { estimateTextTokens } from "./estimators/text-tokens.js";
import { boundedTextCount } from "./estimators/large-text.js";
import { estimatorFromTokenCounter } from "./estimators/token-counter.js";
import { safeJson, summingEstimator, toolSchemaOf } from "./estimators/tool-schema.js";

export { safeJson } from "./estimators/tool-schema.js";
import { blockText, isImageBlock, toolCallIdOf, toolCallsOf } from "./messages.js";
import { encryptedSentOf, reasoningTokensOf } from "./provider-content.js";
import { settingOrDefault } from "./settings/check.js";
import { SETTINGS_SPEC } from "./settings/spec.js";

export type { Estimator, EstimatorOptions } from "./estimators/types.js";
import type { Estimator, EstimatorOptions } from "./estimators/types.js";

/** Defaults of {@link EstimatorOptions} (read from `SETTINGS_SPEC`). */
export const DEFAULT_ESTIMATOR_OPTIONS = Object.freeze({
  messageOverhead: SETTINGS_SPEC.messageOverhead.default,
  imageTokens: SETTINGS_SPEC.imageTokens.default,
  toolOverhead: SETTINGS_SPEC.toolOverhead.default,
  scale: SETTINGS_SPEC.scale.default,
});

/**
 * JSON text of a message part (a content block, tool-call arguments), as a provider
 * would send it. A part `JSON.stringify` refuses (a cycle, a BigInt, a throwing
 * `toJSON`) cannot reach a model, so it is refused with `INVALID_MESSAGES` naming
 * `field`, rather than estimated at the size of a marker.
 *
 * @example
 * ```ts
 * jsonText({ type: "data", n: 1 }, "content[0]"); // '{"type":"data","n":1}'
 * jsonText({ n: 1n }, "tool_calls[0].args"); // throws INVALID_MESSAGES
 * ```
 */
export function jsonText(value: unknown, field: string): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch (cause) {
    throw new ContextViewError(
      "INVALID_MESSAGES",
      `Expected \`${field}\` to serialize to JSON, got a value JSON.stringify refuses (${refusal(cause)})`,
      { field },
      { cause },
    );
  }
}

function refusal(cause: unknown): string {
  const text = cause instanceof Error ? cause.message : "";
  if (/circular/i.test(text)) return "a cycle";
  if (/bigint/i.test(text)) return "a BigInt";
  return `${cause instanceof Error ? cause.name : typeof cause} thrown`;
}

/** Longest timer Node honours: a longer delay fires after about 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A token count as an estimator must return it: a finite, non-negative integer (a safe one). */
function checkTokens(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new ContextViewError("INVALID_OPTION", `Expected \`${field}\` to return a non-negative integer, got ${describeValue(value)}`, { field });
  }
  return value;
}

const ESTIMATOR_METHODS = ["estimateText", "estimateMessage", "estimateMessages", "estimateTools"] as const;

/**
 * A caller's estimator, checked once for its four methods and wrapped so that every
 * result is checked too: a count that is not a finite, non-negative integer
 * (`undefined`, `NaN`, an array, `-1`, `1.5`) throws `INVALID_OPTION` naming the
 * method, instead of letting a huge message through. `undefined` gives `undefined`.
 * The same estimator and field give the same wrapper on every call.
 *
 * @example
 * ```ts
 * const estimator = checkEstimator(options.estimator, "estimator") ?? createEstimator();
 * ```
 */
export function checkEstimator(value: unknown, field: string): Estimator | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || ESTIMATOR_METHODS.some((name) => typeof (value as Record<string, unknown>)[name] !== "function")) {
    throw invalidOption(field, "an Estimator (estimateText, estimateMessage, estimateMessages, estimateTools)", value);
  }
  const estimator = value as Estimator;
  if (checked.has(estimator)) return estimator;
  const known = wrappers.get(estimator)?.get(field);
  if (known !== undefined) return known;
  const wrapped: Estimator = {
    estimateText: (text) => checkTokens(`${field}.estimateText`, estimator.estimateText(text)),
    estimateMessage: (message) => checkTokens(`${field}.estimateMessage`, estimator.estimateMessage(message)),
    estimateMessages: (messages) => checkTokens(`${field}.estimateMessages`, estimator.estimateMessages(messages)),
    estimateTools: (tools) => checkTokens(`${field}.estimateTools`, estimator.estimateTools(tools)),
  };
  checked.add(wrapped);
  const byField = wrappers.get(estimator) ?? new Map<string, Estimator>();
  wrappers.set(estimator, byField.set(field, wrapped));
  return wrapped;
}

/** Estimators whose results are known to be checked: ours, and wrapped ones. */
const checked = new WeakSet<Estimator>();
/**
 * The wrapper of each caller's estimator, per field its errors name: the same estimator
 * gets the same wrapper on every call, so what is kept under it (the recall stage's line
 * estimates) carries over from one `buildContext` call to the next.
 */
const wrappers = new WeakMap<Estimator, Map<string, Estimator>>();
/** Estimators made by {@link createEstimator} without a tokenizer: the options that remake them. */
const portable = new WeakMap<Estimator, PortableEstimatorSpec>();

/**
 * Create the default estimator: {@link estimateTextTokens} per text (digit- and
 * symbol-aware, within 0.95 of js-tiktoken on the eval's views), a per-message
 * overhead, a fixed allowance per image, tool-call names and arguments,
 * `tool_call_id`, content-block arrays and tool schemas, and what an assistant message
 * sends encrypted beside its content (OpenAI's reasoning items: the reported reasoning
 * tokens, else the encrypted text; a compaction item: its encrypted text).
 *
 * Results are cached per message object (and rechecked against its content), so
 * estimating the same checkpoint messages again is cheap; texts of 64 Ki characters
 * or more are remembered by value (copies of a message share them), and a text over
 * 4 Mi characters is estimated from samples (see {@link boundedTextCount}).
 *
 * @example
 * ```ts
 * const estimator = createEstimator({ imageTokens: 765 });
 * estimator.estimateMessage(new HumanMessage("hello")); // ceil(1.15) + 4 = 6
 * // With a real tokenizer:
 * const tiktoken = createEstimator({ tokenizer: (text) => encoder.encode(text).length });
 * ```
 */
// size: a factory: option checks, then the estimator object whose methods share one memo
export function createEstimator(options: EstimatorOptions = {}): Estimator {
  if (options.tokenCounter !== undefined) return estimatorFromTokenCounter(options.tokenCounter, options);
  const messageOverhead = settingOrDefault("messageOverhead", options.messageOverhead);
  const imageTokens = settingOrDefault("imageTokens", options.imageTokens);
  const toolOverhead = settingOrDefault("toolOverhead", options.toolOverhead);
  const scale = settingOrDefault("scale", options.scale);
  const tokenizer = options.tokenizer;
  if (tokenizer !== undefined && typeof tokenizer !== "function") throw invalidOption("tokenizer", "a function (text) => number", tokenizer);

  // A 50 MB result is estimated from samples, and every large text once, however often a view asks.
  const count = boundedTextCount(tokenizer ? (text: string) => (text ? checkTokens("tokenizer", tokenizer(text)) : 0) : estimateTextTokens);
  const scaled = scale === 1 ? (n: number) => n : (n: number) => Math.ceil(n * scale);

  const contentTokens = (content: MessageContent): number => {
    if (typeof content === "string") return count(content);
    if (!Array.isArray(content)) throw new ContextViewError("INVALID_MESSAGES", `Expected \`content\` to be a string or an array of content blocks, got ${describeValue(content)}`, { field: "content" });
    let total = 0;
    for (let j = 0; j < content.length; j++) {
      const block: unknown = content[j];
      if (isImageBlock(block)) {
        total += imageTokens;
        continue;
      }
      const text = blockText(block);
      total += count(text ?? jsonText(block, `content[${j}]`));
    }
    return total;
  };

  // Encrypted items sent beside the content (OpenAI's reasoning items in a tool loop, a
  // compaction item) are decrypted into what they stand for: reasoning costs the reported
  // reasoning tokens when the message has them, else — and a compaction item always — its
  // encrypted text counted as text (longer than what it stands for).
  const encryptedTokens = (message: BaseMessage): number => {
    const { reasoning, compaction } = encryptedSentOf(message);
    const counted = (texts: readonly string[]) => texts.reduce((sum, text) => sum + count(text), 0);
    const reasoningTokens = reasoning.length === 0 ? 0 : (reasoningTokensOf(message) ?? counted(reasoning));
    return reasoningTokens + counted(compaction);
  };

  const cache = new WeakMap<object, { content: unknown; calls: unknown; tokens: number }>();
  const estimateMessage = (message: BaseMessage): number => {
    const calls = (message as { tool_calls?: unknown }).tool_calls;
    const hit = cache.get(message);
    if (hit && hit.content === message.content && hit.calls === calls) return hit.tokens;
    let tokens = messageOverhead + contentTokens(message.content ?? "");
    if (typeof message.name === "string") tokens += count(message.name);
    toolCallsOf(message).forEach((call, j) => {
      tokens += toolOverhead + count(call.name ?? "") + count(jsonText(call.args ?? {}, `tool_calls[${j}].args`)) + count(call.id ?? "");
    });
    const toolCallId = toolCallIdOf(message);
    if (toolCallId !== undefined) tokens += count(toolCallId);
    tokens += encryptedTokens(message);
    tokens = scaled(tokens);
    cache.set(message, { content: message.content, calls, tokens });
    return tokens;
  };

  const toolCache = new WeakMap<object, number>();
  const estimateTool = (tool: unknown): number => {
    if (typeof tool === "object" && tool !== null) {
      const hit = toolCache.get(tool);
      if (hit !== undefined) return hit;
    }
    const tokens = scaled(toolOverhead + count(safeJson(toolSchemaOf(tool))));
    if (typeof tool === "object" && tool !== null) toolCache.set(tool, tokens);
    return tokens;
  };

  const estimator = summingEstimator((text) => scaled(count(text)), estimateMessage, estimateTool);
  checked.add(estimator);
  if (tokenizer === undefined) portable.set(estimator, { messageOverhead, imageTokens, toolOverhead, scale });
  return estimator;
}

/** The options of a default-counting estimator, from which another thread makes one that counts the same. */
export interface PortableEstimatorSpec {
  readonly messageOverhead: number;
  readonly imageTokens: number;
  readonly toolOverhead: number;
  readonly scale: number;
}


/**
 * The options that make an estimator counting exactly as `estimator` does, in
 * another thread or process: defined for estimators {@link createEstimator} made
 * with the default count (no `tokenizer` or `tokenCounter`), undefined otherwise.
 *
 * @example
 * ```ts
 * const spec = portableEstimatorSpec(createEstimator({ scale: 1.2 }));
 * createEstimator(spec).estimateText("same count"); // in a worker
 * ```
 */
export function portableEstimatorSpec(estimator: Estimator): PortableEstimatorSpec | undefined {
  return portable.get(estimator);
}

/**
 * The least tokens a default count gives a character: a word of eight letters and one space,
 * 1.08 for nine characters (0.12), is the cheapest run of `estimateTextTokens`; a tenth leaves a margin.
 */
const LEAST_TOKENS_PER_CHAR = 0.1;

/**
 * A bound below `estimator.estimateText(text)` read off the text's length alone: for an
 * estimator {@link createEstimator} made with the default count, a tenth of a token a character
 * (scaled); 0 for any other, whose count is not known. A view skips estimating a text this
 * bound already puts over the room (a tool result of a megabyte in a prompt of 16,000 tokens).
 *
 * @example
 * ```ts
 * textTokensAtLeast(createEstimator(), "x".repeat(1_000_000)); // 100000
 * textTokensAtLeast(createEstimator({ tokenizer }), "x".repeat(1_000_000)); // 0
 * ```
 */
export function textTokensAtLeast(estimator: Estimator, text: string): number {
  const spec = portable.get(estimator);
  return spec === undefined ? 0 : Math.floor(text.length * LEAST_TOKENS_PER_CHAR * spec.scale);
}
