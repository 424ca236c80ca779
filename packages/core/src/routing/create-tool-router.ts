import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { invalidOption } from "../errors.js";
import { checkMessageArray } from "../messages.js";
import { createDiscoveryTool, DISCOVER_TOOL_NAME } from "./discovery.js";
import { resolveGroups } from "./groups.js";
import { chooseGroups } from "./select.js";
import type { AuthorizeTools, SelectToolsInput, ToolRouter, ToolRouterOptions, ToolRoutingRecord, ToolSelection } from "./types.js";

/**
 * Defaults of {@link ToolRouterOptions}.
 *
 * @example
 * ```ts
 * DEFAULT_ROUTER_OPTIONS.followUpMaxWords; // 8
 * ```
 */
export const DEFAULT_ROUTER_OPTIONS = Object.freeze({ followUpMaxWords: 8, followUpDepth: 3, discovery: true });

const denyAll: AuthorizeTools = () => false;

function count(field: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) throw invalidOption(field, "a non-negative integer", value);
  return value;
}

/**
 * Create a tool router: each model call binds the groups selected lexically from the
 * current request and its follow-up context, plus `discover_tool_groups` so the
 * model can list the groups or enable more for its next call.
 *
 * `select({ messages, config })` is a pure function of the checkpoint messages and
 * the request's config: the context node, the model node and any fallback model
 * compute the same selection independently. Grants live in the ToolMessage
 * artifacts of `discover_tool_groups`, so they are read back from the checkpoint
 * (a new process honours them; another conversation never sees them). Admin groups
 * are offered only when `authorize(config)` allows, and their tools (in
 * `router.tools`) answer unauthorized calls with an error result without running.
 *
 * @example
 * ```ts
 * const router = createToolRouter({
 *   groups: [
 *     { name: "transactions", description: "Search and categorize transactions.", keywords: ["transaction", "spending", "payment"], tools: [searchTransactions] },
 *     { name: "admin", description: "Manage user data.", keywords: ["delete", "purge"], tools: [deleteUserData], admin: true },
 *   ],
 *   authorize: (config) => config.configurable?.role === "admin",
 * });
 * const toolNode = new ToolNode([...router.tools]);
 * // in the model node:
 * const selection = router.select({ messages: state.messages, config });
 * const reply = await bindSelection(model, selection, { fallbacks: [backup] }).invoke(state.llmInputMessages, config);
 * ```
 */
export function createToolRouter(options: ToolRouterOptions): ToolRouter {
  if (typeof options !== "object" || options === null) throw invalidOption("options", "an object with `groups`", options);
  const authorize = options.authorize ?? denyAll;
  if (typeof authorize !== "function") throw invalidOption("authorize", "a function (config) => boolean", authorize);
  const followUpMaxWords = count("followUpMaxWords", options.followUpMaxWords, DEFAULT_ROUTER_OPTIONS.followUpMaxWords);
  const followUpDepth = count("followUpDepth", options.followUpDepth, DEFAULT_ROUTER_OPTIONS.followUpDepth);
  const discovery = options.discovery ?? DEFAULT_ROUTER_OPTIONS.discovery;
  if (typeof discovery !== "boolean") throw invalidOption("discovery", "a boolean", discovery);

  const isAuthorized = (config: RunnableConfig | undefined): boolean => {
    try {
      return authorize(config ?? {}) === true;
    } catch {
      // Fail closed: an authorizer that cannot decide denies.
      return false;
    }
  };
  const groups = resolveGroups(options.groups, DISCOVER_TOOL_NAME, isAuthorized);
  const discoveryTool = discovery ? createDiscoveryTool(groups, isAuthorized) : undefined;
  const lead: StructuredToolInterface[] = discoveryTool ? [discoveryTool] : [];
  const allTools = Object.freeze([...lead, ...groups.flatMap((group) => group.tools)]);

  const select = (input: SelectToolsInput): ToolSelection => {
    checkMessageArray((input as Partial<SelectToolsInput> | null | undefined)?.messages);
    const allowed = groups.some((group) => group.admin) && isAuthorized(input.config);
    const choice = chooseGroups(input.messages, { groups, followUpMaxWords, followUpDepth, allowed });
    return {
      groups: choice.groups.map((group) => group.name),
      tools: [...lead, ...choice.groups.flatMap((group) => group.tools)],
      reasons: choice.reasons,
      withheld: choice.withheld,
      followUp: choice.followUp,
    };
  };

  return {
    groups: Object.freeze(groups.map((group) => Object.freeze({ name: group.name, description: group.description, admin: group.admin }))),
    discoveryTool,
    tools: allTools,
    select,
    isAuthorized,
  };
}

/**
 * The `tool_routing` log record of a selection: group and tool names, configured
 * keywords, never message content.
 *
 * @example
 * ```ts
 * logger.info(routingRecord(router.select({ messages, config })), "tool_routing");
 * ```
 */
export function routingRecord(selection: ToolSelection): ToolRoutingRecord {
  return {
    event: "tool_routing",
    groups: [...selection.groups],
    toolNames: selection.tools.map((tool) => tool.name),
    reasons: selection.reasons.map((reason) => ({ ...reason, keywords: [...reason.keywords] })),
    withheld: [...selection.withheld],
    followUp: selection.followUp,
  };
}
