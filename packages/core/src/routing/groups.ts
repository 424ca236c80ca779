import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { invalidOption } from "../errors.js";
import { wordsOf } from "../lexical/words.js";
import { guardTool } from "./guard.js";
import type { ToolGroup } from "./types.js";

/** A validated group: keywords split into words, admin tools guarded. */
export interface ResolvedGroup {
  name: string;
  description: string;
  keywords: readonly { keyword: string; words: readonly string[] }[];
  /** The tools as bound and run (admin tools guarded). */
  tools: readonly StructuredToolInterface[];
  admin: boolean;
  always: boolean;
}

const GROUP_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

function isTool(value: unknown): value is StructuredToolInterface {
  if (typeof value !== "object" || value === null) return false;
  const tool = value as { name?: unknown; invoke?: unknown; schema?: unknown };
  return typeof tool.name === "string" && tool.name !== "" && typeof tool.invoke === "function" && tool.schema !== undefined;
}

/**
 * Validate the groups once. Names are unique (groups and tools alike, the discovery
 * tool's name included); every keyword has at least one word.
 */
export function resolveGroups(groups: unknown, reservedToolName: string, isAuthorized: (config: RunnableConfig) => boolean): ResolvedGroup[] {
  if (!Array.isArray(groups)) throw invalidOption("groups", "an array of tool groups", groups);
  const groupNames = new Set<string>();
  const toolNames = new Set<string>([reservedToolName]);
  return groups.map((value: unknown, g): ResolvedGroup => {
    const at = `groups[${g}]`;
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidOption(at, "a tool group object", value);
    const group = value as Partial<ToolGroup>;
    if (typeof group.name !== "string" || !GROUP_NAME.test(group.name)) {
      throw invalidOption(`${at}.name`, "a name of lower-case letters, digits, `_` or `-` (at most 64, starting with a letter)", group.name);
    }
    if (groupNames.has(group.name)) throw invalidOption(`${at}.name`, "unique among groups", group.name);
    groupNames.add(group.name);
    if (typeof group.description !== "string" || group.description.trim() === "") throw invalidOption(`${at}.description`, "a non-empty string", group.description);
    if (!Array.isArray(group.keywords)) throw invalidOption(`${at}.keywords`, "an array of words or phrases", group.keywords);
    const keywords = group.keywords.map((keyword: unknown, k) => {
      const words = typeof keyword === "string" ? wordsOf(keyword) : [];
      if (words.length === 0) throw invalidOption(`${at}.keywords[${k}]`, "a word or phrase with at least one letter or digit", keyword);
      return { keyword: keyword as string, words };
    });
    if (!Array.isArray(group.tools)) throw invalidOption(`${at}.tools`, "an array of LangChain tools", group.tools);
    for (const [t, tool] of group.tools.entries()) {
      if (!isTool(tool)) throw invalidOption(`${at}.tools[${t}]`, "a LangChain tool with a name and a schema", tool);
      if (toolNames.has(tool.name)) throw invalidOption(`${at}.tools[${t}].name`, "unique among all groups' tools and `discover_tool_groups`", tool.name);
      toolNames.add(tool.name);
    }
    for (const flag of ["admin", "always"] as const) {
      if (group[flag] !== undefined && typeof group[flag] !== "boolean") throw invalidOption(`${at}.${flag}`, "a boolean", group[flag]);
    }
    const admin = group.admin === true;
    const name = group.name;
    return {
      name,
      description: group.description.trim(),
      keywords,
      tools: admin ? group.tools.map((tool) => guardTool(tool, name, isAuthorized)) : [...group.tools],
      admin,
      always: group.always === true,
    };
  });
}
