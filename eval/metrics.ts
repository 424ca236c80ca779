import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { problemsOf, providersAccepting, readableText, viewProblems } from "@contextview/test-support";
import { SUMMARY_MARKER } from "../packages/core/src/summarize/summary-message.js";
import type { RequiredFact } from "./types.js";

/** Which required facts appear, whole, in the readable text of a view. */
export function factsKept(view: readonly BaseMessage[], facts: readonly RequiredFact[]): boolean[] {
  const text = readableText(view);
  return facts.map((fact) => text.includes(fact.text));
}

/**
 * Tool-call exchanges broken in a view: an AI message whose calls are not all
 * answered by the tool results right after it, or a tool result without its call
 * in the AI message before its run of results (the laws "tool calls answered" and
 * "no orphan tool result" of the tests' checker).
 */
export function brokenExchanges(view: readonly BaseMessage[]): number {
  const problems = viewProblems({}, view);
  return problemsOf("tool calls answered", problems).length + problemsOf("no orphan tool result", problems).length;
}

/**
 * Provider ordering problems of a view: the rules all three share (a system message
 * after the start; no user message first after the system prompt, an empty view
 * included; an AI tool-call message not after a user message or tool results; a view
 * that ends with an assistant message, nothing to answer), then each breach of
 * OpenAI's, Anthropic's and Gemini's own rules (`gemini: message 4: …`), counted for a
 * provider only when `history`, the conversation the view was built from, passes that
 * provider's rules itself.
 */
export function orderViolations(view: readonly BaseMessage[], history: readonly BaseMessage[]): string[] {
  return viewProblems({ requireUserMessage: true, awaitsAnswer: true, providers: providersAccepting(history) }, view)
    .filter((p) => p.law === "provider order" || p.law === "something to answer")
    .map((p) => p.detail);
}

/** Whether the current request (the newest user message of the history) reached the view whole. */
export function requestKept(view: readonly BaseMessage[], history: readonly BaseMessage[]): boolean {
  return problemsOf("current request whole", viewProblems({ conversation: history }, view)).length === 0;
}

/** Quantiles of a list of numbers (nearest rank). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/**
 * Results of the current turn (after the newest user message of `history`) that a
 * view shows cleared: missing, or a JSON result replaced by text that is not JSON
 * (a clearing notice). Each one leaves the model nothing to answer from but calling
 * the same tool again: a tool re-call caused by clearing.
 */
export function clearedCurrentResults(view: readonly BaseMessage[], history: readonly BaseMessage[]): number {
  let start = history.length;
  while (start > 0 && history[start - 1]?.type !== "human") start--;
  const shown = new Map<string, string>();
  for (const message of view) if (message.type === "tool") shown.set((message as ToolMessage).tool_call_id, readableText([message]));
  let cleared = 0;
  for (const message of history.slice(start)) {
    if (message.type !== "tool") continue;
    const original = readableText([message]);
    const text = shown.get((message as ToolMessage).tool_call_id);
    if (text === undefined) cleared++;
    else if (isJson(original) && !isJson(text)) cleared++;
    else if (!isJson(original) && !text.includes(original.slice(0, 32))) cleared++;
  }
  return cleared;
}

function isJson(text: string): boolean {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The share of the limit a view may leave unused while a turn it leaves out would fit in some form (issue 48). */
export const IDLE_SHARE = 0.25;

/**
 * Whether a view stands idle: it leaves more than {@link IDLE_SHARE} of the limit unused
 * (`used` counts the view and the tool schemas) while the newest turn of `history` it
 * leaves out would fit that room with its tool results cleared (each result a one-line
 * notice; every other message whole). Turns before the current request only; fixtures
 * give every message an id. A turn is left out when the view shows no message of it (by
 * id) and no summary the view shows stands for it (see {@link summarizedBefore}): a turn
 * in its summary is in one of its forms, as issue 48 counts forms (whole, compacted,
 * cleared, excerpt, summary, left out).
 *
 * @example
 * ```ts
 * idleView(call.view, history, limit, used, count); // true: 3,100 of 8,000 tokens unused, the turn before the kept ones fits cleared in 900
 * ```
 */
export function idleView(view: readonly BaseMessage[], history: readonly BaseMessage[], limit: number, used: number, count: (messages: readonly BaseMessage[]) => number): boolean {
  const unused = limit - used;
  if (unused <= IDLE_SHARE * limit) return false;
  const shown = new Set<string>();
  for (const message of view) if (message.id !== undefined) shown.add(message.id);
  const summarized = summarizedBefore(view, history);
  let end = history.length;
  while (end > 0 && history[end - 1]?.type !== "human") end--;
  // `end - 1` is the current request; walk the turns before it, newest first.
  let stop = end - 1;
  while (stop > 0) {
    let start = stop - 1;
    while (start > 0 && history[start]?.type !== "human") start--;
    const turn = history.slice(start, stop);
    // The summary stands for this turn and every one before it.
    if (stop <= summarized) return false;
    stop = start;
    if (turn.some((message) => message.id !== undefined && shown.has(message.id))) continue;
    const cleared = turn.map((message) => (message.type === "tool" ? new ToolMessage({ tool_call_id: (message as ToolMessage).tool_call_id, content: "[result cleared]" }) : message));
    return count(cleared) <= unused;
  }
  return false;
}

/**
 * How many of the first messages of `history` a summary shown in `view` stands for; 0
 * without one. contextview's summary says so itself (`response_metadata.contextview_summary.prefixN`,
 * see docs/summarizing.md); LangChain's `summarizationMiddleware` puts its summary (a user
 * message, `additional_kwargs.lc_source: "summarization"`) in place of every message before
 * the oldest one it kept, the first message after it in the view.
 *
 * @example
 * ```ts
 * summarizedBefore([summary, ...history.slice(12)], history); // 12
 * ```
 */
export function summarizedBefore(view: readonly BaseMessage[], history: readonly BaseMessage[]): number {
  for (const [k, message] of view.entries()) {
    const marker = (message.response_metadata as Record<string, unknown> | undefined)?.[SUMMARY_MARKER] as { prefixN?: unknown } | undefined;
    if (typeof marker?.prefixN === "number") return marker.prefixN;
    if (message.type !== "human" || (message.additional_kwargs as Record<string, unknown> | undefined)?.lc_source !== "summarization") continue;
    const after = view.slice(k + 1).find((m) => m.id !== undefined);
    const at = after === undefined ? -1 : history.findIndex((m) => m.id === after.id);
    return at < 0 ? history.length : at;
  }
  return 0;
}
