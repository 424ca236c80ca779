import type { RunnableConfig } from "@langchain/core/runnables";
import type { StructuredToolInterface } from "@langchain/core/tools";
import type { MessageInput } from "../messages.js";

/**
 * Decides whether the caller of one request may use admin groups. Called with the
 * request's `RunnableConfig` (read the authenticated user from `config.configurable`).
 * A throw counts as "no": admin tools fail closed.
 */
export type AuthorizeTools = (config: RunnableConfig) => boolean;

/** A group of tools the router binds together. */
export interface ToolGroup {
  /** Stable id, shown to the model by `discover_tool_groups`: lower case, digits, `_` or `-`. */
  name: string;
  /** One line for the model: what the group is for. */
  description: string;
  /**
   * Words or phrases of a request that select the group. Matched by whole words,
   * case-insensitively, tolerating `s`/`es`/`ed`/`ing` endings ("payment" matches "payments").
   */
  keywords: readonly string[];
  /** The LangChain tools of the group (`tool()`, `DynamicStructuredTool`, …). */
  tools: readonly StructuredToolInterface[];
  /**
   * Offered, and run, only for callers that `authorize(config)` allows.
   * @default false
   */
  admin?: boolean;
  /**
   * Bound on every call, whatever the request says.
   * @default false
   */
  always?: boolean;
}

/** Options of {@link createToolRouter}. Validated once, when the router is created. */
export interface ToolRouterOptions {
  /** The groups, in the order their tools are bound. Group and tool names are unique. */
  groups: readonly ToolGroup[];
  /**
   * Who may use admin groups. Without it no caller may: admin groups are never
   * offered and their tools always answer with an error result.
   * @default () => false
   */
  authorize?: AuthorizeTools;
  /**
   * A request of at most this many words that names no group itself is a follow-up
   * ("yes, do that", "and for March?"): it keeps the groups of the turn it answers and
   * those the assistant's last message there names. `0` turns follow-ups off.
   * @default 8
   */
  followUpMaxWords?: number;
  /**
   * How many turns back a chain of follow-ups may inherit groups from.
   * @default 3
   */
  followUpDepth?: number;
  /**
   * Bind the `discover_tool_groups` tool on every call, so the model can list the
   * groups or enable more for its next call.
   * @default true
   */
  discovery?: boolean;
}

/**
 * Why a group is selected. Content-free: `keywords` are the group's configured
 * keywords that matched, never words of a message.
 *
 * - `keyword`: the user's request names one of the group's keywords.
 * - `answered`: the request is a follow-up and the assistant message it answers names one.
 * - `grant`: `discover_tool_groups` enabled the group in that turn (read from its tool result).
 * - `always`: the group is bound on every call.
 */
export interface RouteReason {
  group: string;
  source: "keyword" | "answered" | "grant" | "always";
  /** Configured keywords that matched; empty for `grant` and `always`. */
  keywords: readonly string[];
  /** 0 for the current request; n when inherited from the turn n back through follow-ups. */
  turnsBack: number;
}

/** What one model call binds: the same for the context node, the model and its fallbacks. */
export interface ToolSelection {
  /** Selected group names, in the configured order. */
  groups: readonly string[];
  /** The tools to bind and to charge: `discover_tool_groups` first, then each selected group's tools (admin ones guarded). */
  tools: readonly StructuredToolInterface[];
  /** Why each group is selected, ordered by group then `turnsBack`. */
  reasons: readonly RouteReason[];
  /** Admin groups that would have been selected but the caller is not authorized for. */
  withheld: readonly string[];
  /** The current request was read as a follow-up of the turn before. */
  followUp: boolean;
}

/** Input of {@link ToolRouter.select}. */
export interface SelectToolsInput {
  /** The full checkpoint messages, oldest first (the newest human message is the request). */
  messages: readonly MessageInput[];
  /** The request's config, passed to `authorize`. @default {} */
  config?: RunnableConfig | undefined;
}

/** The log record of one selection (`tool_routing`): names and configured keywords only. */
export interface ToolRoutingRecord {
  event: "tool_routing";
  groups: readonly string[];
  /** Names of the bound tools, in binding order. */
  toolNames: readonly string[];
  reasons: readonly RouteReason[];
  withheld: readonly string[];
  followUp: boolean;
}

/** A tool router; see {@link createToolRouter}. */
export interface ToolRouter {
  /** The configured groups' names, descriptions and admin flags (no tools). */
  readonly groups: readonly { name: string; description: string; admin: boolean }[];
  /** `discover_tool_groups`, or `undefined` with `discovery: false`. */
  readonly discoveryTool: StructuredToolInterface | undefined;
  /**
   * Every tool of every group (admin tools guarded) plus `discover_tool_groups`:
   * give these to the ToolNode, so a call runs only through the guard.
   */
  readonly tools: readonly StructuredToolInterface[];
  /** Select the groups for one model call. Pure: the same messages and config give the same selection. */
  select(input: SelectToolsInput): ToolSelection;
  /** True when `config` may use admin groups (`authorize`, failing closed). */
  isAuthorized(config: RunnableConfig | undefined): boolean;
}
