import type { RunnableConfig } from "@langchain/core/runnables";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { kindOf, toBaseMessage, toolCallIdOf, toolCallsOf, type MessageInput } from "../messages.js";
import type { ResolvedGroup } from "./groups.js";

/** Name of the discovery tool the router binds. */
export const DISCOVER_TOOL_NAME = "discover_tool_groups";

/** `type` of the artifact `discover_tool_groups` returns. */
export const TOOL_GROUPS_ARTIFACT = "contextview.tool_groups";

/**
 * The artifact of a `discover_tool_groups` result: the grant. It lives in that
 * turn's ToolMessage, so it is stored with the checkpoint and read back from it;
 * nothing is kept in memory between calls.
 */
export interface ToolGroupsArtifact {
  type: typeof TOOL_GROUPS_ARTIFACT;
  version: 1;
  /** Groups enabled for the next calls of this turn (and of follow-ups that inherit it). */
  enabled: string[];
  /** Groups listed to the caller. */
  listed: string[];
  /** Requested names that do not exist or are not available to the caller. */
  unavailable: number;
}

const MAX_REQUESTED = 32;
const MAX_NAME = 64;

/**
 * The `discover_tool_groups` tool: without arguments it lists the groups the caller
 * may use; with `enable` it enables those groups for the next model call. Admin
 * groups are listed and enabled only for authorized callers; for anyone else they
 * do not exist.
 *
 * @example
 * ```ts
 * const discovery = createDiscoveryTool(groups, isAuthorized); // router.discoveryTool is this tool
 * ```
 */
export function createDiscoveryTool(groups: readonly ResolvedGroup[], isAuthorized: (config: RunnableConfig) => boolean): StructuredToolInterface {
  const schema = {
    type: "object",
    properties: {
      enable: {
        type: "array",
        items: { type: "string", maxLength: MAX_NAME },
        maxItems: MAX_REQUESTED,
        description: "Names of tool groups to enable for your next call. Leave out to list the groups.",
      },
    },
    additionalProperties: false,
  } as const;
  return tool(
    async (input: { enable?: string[] }, config: RunnableConfig): Promise<[string, ToolGroupsArtifact]> => {
      const allowed = isAuthorized(config);
      const visible = groups.filter((group) => !group.admin || allowed);
      const listed = visible.map((group) => group.name);
      const requested = new Set(input.enable ?? []);
      if (requested.size === 0) {
        const lines = visible.map((group) => `- ${group.name}: ${group.description}`);
        const content = `Tool groups you can enable (call ${DISCOVER_TOOL_NAME} with \`enable\`):\n${lines.join("\n")}`;
        return [content, { type: TOOL_GROUPS_ARTIFACT, version: 1, enabled: [], listed, unavailable: 0 }];
      }
      const enabled = listed.filter((name) => requested.has(name));
      const unavailable = [...requested].filter((name) => !enabled.includes(name));
      const parts = [enabled.length > 0 ? `Enabled for your next call: ${enabled.join(", ")}.` : "No group enabled."];
      if (unavailable.length > 0) parts.push(`Not available: ${unavailable.join(", ")}. Call ${DISCOVER_TOOL_NAME} without arguments to list the groups.`);
      return [parts.join(" "), { type: TOOL_GROUPS_ARTIFACT, version: 1, enabled, listed, unavailable: unavailable.length }];
    },
    {
      name: DISCOVER_TOOL_NAME,
      description: "List the tool groups you can use, or enable more groups for your next call when the tools you have do not fit the request.",
      schema,
      responseFormat: "content_and_artifact",
    },
  ) as unknown as StructuredToolInterface;
}

/**
 * True for a well-formed grant artifact.
 *
 * @example
 * ```ts
 * isToolGroupsArtifact(toolMessage.artifact); // true for a discover_tool_groups result
 * ```
 */
export function isToolGroupsArtifact(value: unknown): value is ToolGroupsArtifact {
  if (typeof value !== "object" || value === null) return false;
  const artifact = value as Partial<ToolGroupsArtifact>;
  return artifact.type === TOOL_GROUPS_ARTIFACT && artifact.version === 1 && Array.isArray(artifact.enabled) && artifact.enabled.every((name) => typeof name === "string");
}

/**
 * Groups granted by `discover_tool_groups` results in `messages[from, to)`. A result
 * counts only when it answers a `discover_tool_groups` call of an AI message in the
 * same range, did not fail, and carries a well-formed artifact; anything else
 * (another tool's look-alike artifact, an orphan result) grants nothing.
 *
 * @example
 * ```ts
 * readGrants(state.messages, currentRequestIndex(state.messages), state.messages.length); // ["notes"]
 * ```
 */
export function readGrants(messages: readonly MessageInput[], from: number, to: number): string[] {
  const calls = new Set<string>();
  const granted: string[] = [];
  for (let i = from; i < to; i++) {
    const kind = kindOf(messages[i], i);
    if (kind !== "ai" && kind !== "tool") continue;
    const message = toBaseMessage(messages[i] as MessageInput, i);
    if (kind === "ai") {
      for (const call of toolCallsOf(message)) if (call.name === DISCOVER_TOOL_NAME && call.id) calls.add(call.id);
      continue;
    }
    const result = message as { status?: string; artifact?: unknown };
    if (message.name !== DISCOVER_TOOL_NAME || result.status === "error" || !calls.has(toolCallIdOf(message) ?? "")) continue;
    if (isToolGroupsArtifact(result.artifact)) granted.push(...result.artifact.enabled);
  }
  return granted;
}
