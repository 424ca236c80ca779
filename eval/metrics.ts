import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { problemsOf, providersAccepting, readableText, viewProblems } from "@contextview/test-support";
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
