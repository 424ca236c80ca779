import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { Estimator } from "./types.js";

/**
 * JSON text of a value that need not serialize (tool schemas): a value
 * `JSON.stringify` refuses (a cycle, a BigInt) gives a short marker, never an error.
 *
 * @example
 * ```ts
 * safeJson({ n: 1n }); // "[unserializable]"
 * ```
 */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "[unserializable]";
  }
}

/** Converted schemas per tool object: the same tools are bound on every call. */
const schemas = new WeakMap<object, unknown>();

/**
 * A tool as a provider receives it, and as every estimator charges it: a LangChain
 * tool becomes its OpenAI tool schema; a schema (or anything else) is itself.
 * Converted once per tool object.
 *
 * @example
 * ```ts
 * safeJson(toolSchemaOf(searchTool)); // '{"type":"function","function":{"name":"search",…}}'
 * ```
 */
export function toolSchemaOf(tool: unknown): unknown {
  if (typeof tool !== "object" || tool === null || !("schema" in tool || "lc_namespace" in tool) || "function" in tool) return tool;
  const cached = schemas.get(tool);
  if (cached !== undefined) return cached;
  let schema: unknown;
  try {
    schema = convertToOpenAITool(tool as never);
  } catch {
    schema = tool;
  }
  schemas.set(tool, schema);
  return schema;
}

/**
 * An {@link Estimator} from its per-item parts: lists are the sums of their items.
 *
 * @example
 * ```ts
 * const estimator = summingEstimator(estimateText, estimateMessage, (tool) => 8 + estimateText(safeJson(toolSchemaOf(tool))));
 * ```
 */
export function summingEstimator(estimateText: Estimator["estimateText"], estimateMessage: Estimator["estimateMessage"], estimateTool: (tool: unknown) => number): Estimator {
  return {
    estimateText,
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
