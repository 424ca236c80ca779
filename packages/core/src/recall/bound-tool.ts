// Whether the recall tool is bound to a model call, read from the tools the call is
// charged for: the same list in every integration (the node's `tools`, the wrapper's
// bound tools, the createAgent request's tools), whatever the tool is named.
import { toolSchemaOf } from "../estimators/tool-schema.js";

const ACTIONS = ["read", "rows", "search"];

/** The name and parameters of a tool in any of the shapes providers take: OpenAI's, Anthropic's, or `{ name, parameters }`. */
function nameAndParameters(tool: unknown): { name: unknown; parameters: unknown } | undefined {
  const schema = toolSchemaOf(tool);
  if (typeof schema !== "object" || schema === null) return undefined;
  const fn = (schema as { function?: unknown }).function;
  const body = (typeof fn === "object" && fn !== null ? fn : schema) as { name?: unknown; parameters?: unknown; input_schema?: unknown };
  return { name: body.name, parameters: body.parameters ?? body.input_schema };
}

/** True for parameters whose `action` is exactly the recall actions: `search`, `read`, `rows`. */
function hasRecallActions(parameters: unknown): boolean {
  const action = (parameters as { properties?: { action?: { enum?: unknown } } } | null)?.properties?.action;
  const values = action?.enum;
  return Array.isArray(values) && values.length === ACTIONS.length && [...values].sort().every((value, i) => value === ACTIONS[i]);
}

/**
 * The name of the recall tool among `tools`, or undefined when none is bound: a
 * tool whose `action` parameter takes exactly `search`, `read` and `rows` (the
 * schema of `createRecallTool`, under any `toolName`). Compaction notes then name
 * its calls instead of asking to call the source tool again.
 *
 * @example
 * ```ts
 * recallToolNameIn([searchTransactions, createRecallTool({ toolName: "history" })]); // "history"
 * ```
 */
export function recallToolNameIn(tools: readonly unknown[] | undefined): string | undefined {
  if (!Array.isArray(tools)) return undefined;
  for (const tool of tools) {
    const found = nameAndParameters(tool);
    if (found !== undefined && typeof found.name === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(found.name) && hasRecallActions(found.parameters)) return found.name;
  }
  return undefined;
}
