import type { BaseMessage, MessageContent } from "@langchain/core/messages";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { invalidOption } from "./errors.js";
import { estimateTextTokens } from "./estimators/text-tokens.js";
import { estimatorFromTokenCounter, type TokenCounter } from "./estimators/token-counter.js";
import { blockText, isImageBlock, toolCallsOf } from "./messages.js";

/**
 * Estimates tokens. Deterministic: the same input always gives the same number.
 * Build one with {@link createEstimator}, or write your own to plug in a tokenizer.
 */
export interface Estimator {
  /** Tokens of a plain text. */
  estimateText(text: string): number;
  /** Tokens of one message: content, tool calls and their arguments, ids, overhead. */
  estimateMessage(message: BaseMessage): number;
  /** Sum of {@link Estimator.estimateMessage} over a list. */
  estimateMessages(messages: readonly BaseMessage[]): number;
  /** Tokens of the tool schemas bound to the model call. */
  estimateTools(tools: readonly unknown[]): number;
}

/** Options of {@link createEstimator}. */
export interface EstimatorOptions {
  /**
   * Counts the tokens of a text. Replaces the default digit- and symbol-aware
   * estimate ({@link estimateTextTokens}); see `createTiktokenEstimator` for an exact count.
   * @default undefined (estimateTextTokens)
   */
  tokenizer?: (text: string) => number;
  /**
   * A LangChain-style `tokenCounter(messages) => number` (as `trimMessages` takes),
   * called with one message at a time; it replaces `tokenizer` and the per-message
   * and image overheads (the counter frames each message itself). Must be synchronous.
   * @default undefined
   */
  tokenCounter?: TokenCounter;
  /**
   * Tokens added per message for role and framing.
   * @default 4
   */
  messageOverhead?: number;
  /**
   * Tokens charged per image, whatever its encoded size.
   * @default 1024
   */
  imageTokens?: number;
  /**
   * Tokens added per tool call and per tool schema.
   * @default 8
   */
  toolOverhead?: number;
  /**
   * Multiplies every estimate (calibration against reported usage); rounded up.
   * @default 1
   */
  scale?: number;
}

/** Defaults of {@link EstimatorOptions}. */
export const DEFAULT_ESTIMATOR_OPTIONS = Object.freeze({ messageOverhead: 4, imageTokens: 1024, toolOverhead: 8, scale: 1 });

const hasBuffer = typeof (globalThis as { Buffer?: unknown }).Buffer === "function";

/** UTF-8 length of a string; lone surrogates count as the 3-byte replacement character. */
export function utf8Length(text: string): number {
  if (hasBuffer) return Buffer.byteLength(text, "utf8");
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** JSON text of a value, or a marker when it cannot be serialized (cycles, BigInt). */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

function checkCount(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) throw invalidOption(field, "a non-negative integer", value);
  return value;
}

/**
 * Create the default estimator: {@link estimateTextTokens} per text (digit- and
 * symbol-aware, within 0.95 of js-tiktoken on the eval's views), a per-message
 * overhead, a fixed allowance per image, tool-call names and arguments,
 * `tool_call_id`, content-block arrays and tool schemas.
 *
 * Results are cached per message object (and rechecked against its content), so
 * estimating the same checkpoint messages again is cheap.
 *
 * @example
 * ```ts
 * const estimator = createEstimator({ imageTokens: 765 });
 * estimator.estimateMessage(new HumanMessage("hello")); // ceil(1.15) + 4 = 6
 * // With a real tokenizer:
 * const tiktoken = createEstimator({ tokenizer: (text) => encoder.encode(text).length });
 * ```
 */
export function createEstimator(options: EstimatorOptions = {}): Estimator {
  if (options.tokenCounter !== undefined) return estimatorFromTokenCounter(options.tokenCounter, options);
  const messageOverhead = checkCount("messageOverhead", options.messageOverhead, DEFAULT_ESTIMATOR_OPTIONS.messageOverhead);
  const imageTokens = checkCount("imageTokens", options.imageTokens, DEFAULT_ESTIMATOR_OPTIONS.imageTokens);
  const toolOverhead = checkCount("toolOverhead", options.toolOverhead, DEFAULT_ESTIMATOR_OPTIONS.toolOverhead);
  const scale = options.scale ?? 1;
  if (typeof scale !== "number" || !Number.isFinite(scale) || scale <= 0) throw invalidOption("scale", "a positive finite number", scale);
  const tokenizer = options.tokenizer;
  if (tokenizer !== undefined && typeof tokenizer !== "function") throw invalidOption("tokenizer", "a function (text) => number", tokenizer);

  const count = tokenizer ? (text: string) => (text ? tokenizer(text) : 0) : estimateTextTokens;
  const scaled = scale === 1 ? (n: number) => n : (n: number) => Math.ceil(n * scale);

  const contentTokens = (content: MessageContent): number => {
    if (typeof content === "string") return count(content);
    let total = 0;
    for (const block of content as unknown[]) {
      if (isImageBlock(block)) {
        total += imageTokens;
        continue;
      }
      const text = blockText(block);
      total += count(text ?? safeJson(block));
    }
    return total;
  };

  const cache = new WeakMap<object, { content: unknown; calls: unknown; tokens: number }>();
  const estimateMessage = (message: BaseMessage): number => {
    const calls = (message as { tool_calls?: unknown }).tool_calls;
    const hit = cache.get(message);
    if (hit && hit.content === message.content && hit.calls === calls) return hit.tokens;
    let tokens = messageOverhead + contentTokens(message.content ?? "");
    if (typeof message.name === "string") tokens += count(message.name);
    for (const call of toolCallsOf(message)) {
      tokens += toolOverhead + count(call.name ?? "") + count(safeJson(call.args ?? {})) + count(call.id ?? "");
    }
    const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
    if (typeof toolCallId === "string") tokens += count(toolCallId);
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
    let schema: unknown = tool;
    if (typeof tool === "object" && tool !== null && ("schema" in tool || "lc_namespace" in tool) && !("function" in tool)) {
      try {
        schema = convertToOpenAITool(tool as never);
      } catch {
        schema = tool;
      }
    }
    const tokens = scaled(toolOverhead + count(safeJson(schema)));
    if (typeof tool === "object" && tool !== null) toolCache.set(tool, tokens);
    return tokens;
  };

  return {
    estimateText: (text) => scaled(count(text)),
    estimateMessage,
    estimateMessages: (messages) => {
      let total = 0;
      for (const message of messages) total += estimateMessage(message);
      return total;
    },
    estimateTools: (tools) => {
      let total = 0;
      for (const tool of tools) total += estimateTool(tool);
      return total;
    },
  };
}
