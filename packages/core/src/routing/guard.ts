import type { CallbackManagerForToolRun } from "@langchain/core/callbacks/manager";
import { ToolMessage, type ToolCall } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { DynamicStructuredTool, type StructuredToolInterface } from "@langchain/core/tools";

/** Artifact of the error result a guarded tool returns instead of running. */
export interface DeniedToolArtifact {
  type: "contextview.tool_denied";
  tool: string;
  group: string;
}

/**
 * Wrap an admin tool so that it runs only when `isAuthorized(config)` says so for
 * the call's own config. Otherwise the tool is not run and the call gets an error
 * `ToolMessage` (`status: "error"`), whatever the model asked. The wrapper has the
 * tool's name, description and schema, so binding and charging it is the same as
 * binding the tool itself.
 *
 * @example
 * ```ts
 * const guarded = guardTool(deleteUserData, "admin", (config) => config.configurable?.role === "admin");
 * const toolNode = new ToolNode([guarded]);
 * ```
 */
export function guardTool(inner: StructuredToolInterface, group: string, isAuthorized: (config: RunnableConfig) => boolean): StructuredToolInterface {
  const guard = async (input: unknown, runManager: CallbackManagerForToolRun | undefined, config: RunnableConfig | undefined): Promise<unknown> => {
    const call = (config as { toolCall?: ToolCall } | undefined)?.toolCall;
    if (!isAuthorized(config ?? {})) {
      const content = `Error: the tool \`${inner.name}\` (group \`${group}\`) is not available to this caller; it was not run.`;
      if (call?.id === undefined) return content;
      const artifact: DeniedToolArtifact = { type: "contextview.tool_denied", tool: inner.name, group };
      return new ToolMessage({ content, status: "error", tool_call_id: call.id, name: inner.name, artifact });
    }
    // Handing the tool call on lets the tool build its own ToolMessage (and artifact).
    const child = runManager?.getChild();
    return inner.invoke((call ?? input) as never, child === undefined ? config : { ...config, callbacks: child });
  };
  return new DynamicStructuredTool({
    name: inner.name,
    description: inner.description,
    schema: inner.schema as never,
    func: guard as never,
    ...(inner.returnDirect === undefined ? {} : { returnDirect: inner.returnDirect }),
  }) as unknown as StructuredToolInterface;
}
