import type { BaseMessage } from "@langchain/core/messages";

// The estimator's types, in a module of their own: the estimators and estimate.ts both use them.

/** A LangChain-style token counter, as `trimMessages` and `summarizationMiddleware` take: messages in, tokens out. */
export type TokenCounter = (messages: BaseMessage[]) => number;

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
   * estimate (`estimateTextTokens`); see `createTiktokenEstimator` for an exact count.
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
