import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { ContextViewError, invalidOption } from "../errors.js";
import type { Estimator, EstimatorOptions, TokenCounter } from "./types.js";
import { settingOrDefault } from "../settings/check.js";
import { safeJson, summingEstimator, toolSchemaOf } from "./tool-schema.js";

export type { TokenCounter } from "./types.js";



/**
 * An {@link Estimator} from a LangChain-style `tokenCounter(messages)`: each message
 * is counted alone (`tokenCounter([message])`, its framing included), a text as a
 * user message minus the framing of an empty one, a tool schema as the text of its
 * JSON plus `toolOverhead`. Counts are cached per message object. The counter must
 * be synchronous and return a finite non-negative number; anything else throws a
 * `ContextViewError` (`INVALID_OPTION`) naming `tokenCounter`.
 * Use it through `createEstimator({ tokenCounter })`.
 *
 * @example
 * ```ts
 * const estimator = createEstimator({ tokenCounter: (messages) => messages.reduce((n, m) => n + myCount(m), 0) });
 * ```
 */
export function estimatorFromTokenCounter(tokenCounter: TokenCounter, options: Pick<EstimatorOptions, "toolOverhead" | "scale"> = {}): Estimator {
  if (typeof tokenCounter !== "function") throw invalidOption("tokenCounter", "a function (messages) => number", tokenCounter);
  const toolOverhead = settingOrDefault("toolOverhead", options.toolOverhead);
  const scale = settingOrDefault("scale", options.scale);
  const counted = (messages: BaseMessage[]): number => {
    const n: unknown = tokenCounter(messages);
    if (typeof (n as { then?: unknown } | null)?.then === "function") {
      throw new ContextViewError("INVALID_OPTION", "Expected `tokenCounter` to return a number synchronously, got a Promise (views are built synchronously)", { field: "tokenCounter" });
    }
    if (typeof n !== "number" || !Number.isFinite(n) || n < 0) throw invalidOption("tokenCounter", "a function (messages) => number returning a finite non-negative number", n);
    return Math.ceil(scale === 1 ? n : n * scale);
  };
  let framing: number | undefined;
  const estimateText = (text: string): number => {
    if (text === "") return 0;
    framing ??= counted([new HumanMessage("")]);
    return Math.max(0, counted([new HumanMessage(text)]) - framing);
  };
  const cache = new WeakMap<object, { content: unknown; calls: unknown; tokens: number }>();
  const estimateMessage = (message: BaseMessage): number => {
    const calls = (message as { tool_calls?: unknown }).tool_calls;
    const hit = cache.get(message);
    if (hit && hit.content === message.content && hit.calls === calls) return hit.tokens;
    const tokens = counted([message]);
    cache.set(message, { content: message.content, calls, tokens });
    return tokens;
  };
  const estimateTool = (tool: unknown): number => toolOverhead + estimateText(safeJson(toolSchemaOf(tool)));
  return summingEstimator(estimateText, estimateMessage, estimateTool);
}
