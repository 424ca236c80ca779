import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { ContextViewError, invalidOption, refuseRenamed } from "../errors.js";
import { checkEstimator, createEstimator, type Estimator } from "../estimate.js";
import { compactToolResult, splitContent } from "./compact-tool-result.js";
import { isClearedToolResult, withCompaction } from "./marker.js";
import type { CompactToolResultOptions } from "./options.js";
import { checkRecallToolName, clearedRecallSentence } from "./recall-notes.js";
import type { ViewOptions } from "../view/types.js";
import { inlineName } from "../inline-text.js";

/**
 * Options of {@link microCompact}, named like the view's options
 * (`keepRecentToolResults`, `maxToolResultTokens` of {@link ViewOptions}).
 *
 * @example
 * ```ts
 * microCompact(messages, { keepRecentToolResults: 2, maxToolResultTokens: 1500, estimator: createEstimator({ scale: 1.1 }) });
 * ```
 */
export interface MicroCompactOptions {
  /**
   * Newest tool results kept (compacted only when over `maxToolResultTokens`); older
   * ones are cleared to a notice. `0` clears every result.
   * @default 3
   */
  keepRecentToolResults?: number;
  /**
   * Largest kept result, in estimated tokens of its text; larger ones are compacted to it.
   * @default 2000
   */
  maxToolResultTokens?: number;
  /**
   * A kept result whose references alone need more than `maxToolResultTokens` is
   * compacted to the size they need when that is at most this many tokens, and
   * cleared otherwise. (`buildContext` fits the current turn's results with
   * `compactOrNarrow` instead, which never clears.)
   * @default maxToolResultTokens (such a result is cleared)
   */
  fallbackToolResultTokens?: number;
  /**
   * How tokens are estimated.
   * @default createEstimator()
   */
  estimator?: Estimator;
  /**
   * The name of a recall tool bound to this model call (see `createRecallTool`):
   * cleared notices and compacted results then name the call of it that reads them
   * back, instead of asking to call the source tool again. The view sets it when it
   * finds the recall tool among the call's tools.
   * @default undefined (the notices name no tool)
   */
  recallToolName?: string | undefined;
  /**
   * Names of tools whose results are never cleared, as LangChain's `ClearToolUsesEdit`
   * takes them: past the newest `keepRecentToolResults` they stay (compacted when over
   * `maxToolResultTokens`, whole when they cannot be compacted). A result's tool is its
   * `name`, or the name of the call it answers in `messages`.
   * @default [] (every tool's results may be cleared)
   */
  excludeTools?: readonly string[] | undefined;
}

/**
 * What {@link microCompact} returns.
 *
 * @example
 * ```ts
 * const { messages, cleared, compacted } = microCompact(history);
 * report.toolResults = { cleared, compacted };
 * ```
 */
export interface MicroCompactResult {
  /** The same positions as the input; unchanged messages are the same objects. */
  messages: BaseMessage[];
  /** Tool results cleared by this call (results already cleared are not counted again). */
  cleared: number;
  /** Kept tool results compacted by this call. */
  compacted: number;
}

/**
 * The notice a tool result is replaced with; it names the call so the model can
 * repeat it, or, with a recall tool bound, the recall call that reads it back. One
 * text whatever cleared it (past `keepRecentToolResults`, or kept but too large to
 * compact): a result cleared while kept is cleared again once it passes the line, and
 * its notice stays byte for byte the same, so the prompt's prefix holds.
 */
function clearedNotice(message: ToolMessage, tokens: number, text: string, recall: string | undefined): string {
  const tool = message.name ? `\`${inlineName(message.name)}\`` : "tool";
  const back = recall === undefined || !message.tool_call_id ? "; call the tool again if you need it." : `. ${clearedRecallSentence(message, text, recall)}`;
  return (
    `[Older ${tool} result cleared from this view (tool_call_id ${message.tool_call_id}, about ${tokens} tokens). ` +
    `The original is kept in the conversation checkpoint${back}]`
  );
}

/**
 * A kept result that cannot be compacted (its references exceed the limit, or its
 * artifact is unsafe to project) is cleared rather than failing the whole view:
 * the notice still counts it and says how to get it back.
 */
function compactOrClear(message: ToolMessage, tokens: number, text: string, limit: number, fallback: number, options: CompactToolResultOptions): ToolMessage {
  try {
    return compactToolResult(message, limit, options);
  } catch (error) {
    if (!ContextViewError.isInstance(error) || (error.code !== "COMPACTION_LIMIT" && error.code !== "INVALID_TOOL_RESULT")) throw error;
    const required = error.details["requiredTokens"];
    if (error.code === "COMPACTION_LIMIT" && typeof required === "number" && required <= fallback && required < tokens) {
      return compactToolResult(message, required, options);
    }
    return withCompaction(message, clearedNotice(message, tokens, text, options.recallToolName), { form: "cleared", originalTokens: tokens });
  }
}

/** A result of a tool in `excludeTools` over the limit: compacted when it can be, kept whole when not — never cleared. */
function compactOrKeep(message: ToolMessage, limit: number, options: CompactToolResultOptions): ToolMessage {
  try {
    return compactToolResult(message, limit, options);
  } catch (error) {
    if (!ContextViewError.isInstance(error) || (error.code !== "COMPACTION_LIMIT" && error.code !== "INVALID_TOOL_RESULT")) throw error;
    return message;
  }
}

/**
 * `excludeTools` checked: an array of non-empty strings, as a set; empty when absent.
 *
 * @example
 * ```ts
 * checkExcludeTools(["read_file"], "excludeTools"); // Set { "read_file" }
 * ```
 */
export function checkExcludeTools(value: unknown, field: string): ReadonlySet<string> {
  if (value === undefined) return NO_TOOLS;
  if (!Array.isArray(value)) throw invalidOption(field, "an array of tool names", value);
  value.forEach((name, i) => {
    if (typeof name !== "string" || name === "") throw invalidOption(`${field}[${i}]`, "a tool name (a non-empty string)", name);
  });
  return value.length === 0 ? NO_TOOLS : new Set(value as string[]);
}
const NO_TOOLS: ReadonlySet<string> = new Set();

/** The tool each result of `messages` answers, by `tool_call_id`, from the calls among them (results name theirs too). */
function toolNames(messages: readonly BaseMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    for (const call of (message as { tool_calls?: readonly { id?: string; name?: string }[] }).tool_calls ?? []) {
      if (typeof call.id === "string" && typeof call.name === "string") names.set(call.id, call.name);
    }
  }
  return names;
}

let defaultEstimator: Estimator | undefined;

/** The 0.x names of microCompact's options. */
const RENAMED = { keepRecent: "keepRecentToolResults", maxResultTokens: "maxToolResultTokens", fallbackResultTokens: "fallbackToolResultTokens" };

function checkCount(field: string, value: number | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min) throw invalidOption(field, min === 0 ? "a non-negative integer" : "a positive integer", value);
  return value;
}

/**
 * Micro-compaction: clear every tool result but the newest `keepRecentToolResults`
 * to a notice that keeps `tool_call_id`, the tool name and the pairing with its
 * call, and compact kept results over `maxToolResultTokens` with {@link compactToolResult}
 * (structurally when the payload has structure, beginning and end otherwise).
 *
 * Positions never change. Idempotent: a cleared notice is recognised (see
 * {@link isClearedToolResult}) and left as it is, and a compacted result that
 * fits is not compacted again. Unchanged messages are returned as the same
 * objects; changed ones are new ToolMessages. The input is not mutated.
 *
 * A kept result that cannot be compacted (its references alone exceed
 * `maxToolResultTokens`, or its artifact is cyclic, too deep…) is cleared, and counted
 * in `cleared`, instead of failing the view.
 *
 * @example
 * ```ts
 * const { messages, cleared, compacted } = microCompact(history, { keepRecentToolResults: 2, maxToolResultTokens: 1500 });
 * ```
 */
export function microCompact(messages: readonly BaseMessage[], options: MicroCompactOptions = {}): MicroCompactResult {
  if (!Array.isArray(messages)) throw invalidOption("messages", "an array of messages", messages);
  refuseRenamed(options, RENAMED);
  const keepRecent = checkCount("keepRecentToolResults", options.keepRecentToolResults, 3, 0);
  const maxResultTokens = checkCount("maxToolResultTokens", options.maxToolResultTokens, 2000, 1);
  const fallbackResultTokens = Math.max(maxResultTokens, checkCount("fallbackToolResultTokens", options.fallbackToolResultTokens, maxResultTokens, 1));
  const estimator = checkEstimator(options.estimator, "estimator") ?? (defaultEstimator ??= createEstimator());
  const recallToolName = checkRecallToolName(options.recallToolName);
  const compactOptions: CompactToolResultOptions = recallToolName === undefined ? { estimator } : { estimator, recallToolName };
  const excluded = checkExcludeTools(options.excludeTools, "excludeTools");
  const calledTools = excluded.size === 0 ? undefined : toolNames(messages);
  const isExcluded = (message: ToolMessage) => calledTools !== undefined && excluded.has(message.name ?? calledTools.get(message.tool_call_id) ?? "");

  let toolResults = 0;
  for (const message of messages) if (ToolMessage.isInstance(message)) toolResults++;
  const firstKept = toolResults - keepRecent;

  const out: BaseMessage[] = [];
  let cleared = 0;
  let compacted = 0;
  let seen = 0;
  for (const message of messages) {
    if (!ToolMessage.isInstance(message)) {
      out.push(message);
      continue;
    }
    const position = seen++;
    if (isClearedToolResult(message)) {
      out.push(message);
      continue;
    }
    const text = splitContent(message.content).text;
    const tokens = estimator.estimateText(text);
    if (isExcluded(message)) {
      const kept = tokens > maxResultTokens ? compactOrKeep(message, maxResultTokens, compactOptions) : message;
      out.push(kept);
      if (kept !== message) compacted++;
    } else if (position < firstKept) {
      out.push(withCompaction(message, clearedNotice(message, tokens, text, recallToolName), { form: "cleared", originalTokens: tokens }));
      cleared++;
    } else if (tokens > maxResultTokens) {
      const compact = compactOrClear(message, tokens, text, maxResultTokens, fallbackResultTokens, compactOptions);
      out.push(compact);
      if (isClearedToolResult(compact)) cleared++;
      else compacted++;
    } else {
      out.push(message);
    }
  }
  return { messages: out, cleared, compacted };
}
