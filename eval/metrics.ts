import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { RequiredFact } from "./types.js";

/**
 * The text of a view a model can read: every message's text content (text blocks
 * and strings, not image data) and the arguments of its tool calls. Ids, metadata
 * and artifacts are not readable and are left out.
 */
export function readableText(view: readonly BaseMessage[]): string {
  const parts: string[] = [];
  for (const message of view) {
    if (typeof message.content === "string") parts.push(message.content);
    else
      for (const block of message.content as unknown[]) {
        if (typeof block === "string") parts.push(block);
        else if (block && typeof block === "object" && (block as { type?: unknown }).type === "text") parts.push(String((block as { text?: unknown }).text ?? ""));
      }
    for (const call of (message as AIMessage).tool_calls ?? []) parts.push(JSON.stringify(call.args ?? {}));
  }
  return parts.join("\n");
}

/** Which required facts appear, whole, in the readable text of a view. */
export function factsKept(view: readonly BaseMessage[], facts: readonly RequiredFact[]): boolean[] {
  const text = readableText(view);
  return facts.map((fact) => text.includes(fact.text));
}

/**
 * Tool-call exchanges broken in a view: an AI message whose calls are not all
 * answered by the tool results right after it, or a tool result without its call
 * in the AI message before its run of results.
 */
export function brokenExchanges(view: readonly BaseMessage[]): number {
  let broken = 0;
  for (let i = 0; i < view.length; i++) {
    const message = view[i] as BaseMessage;
    const calls = message.type === "ai" ? ((message as AIMessage).tool_calls ?? []) : [];
    if (calls.length > 0) {
      const missing = new Set(calls.map((c) => c.id));
      for (let j = i + 1; j < view.length && view[j]?.type === "tool"; j++) missing.delete((view[j] as ToolMessage).tool_call_id);
      if (missing.size > 0) broken++;
    }
    if (message.type === "tool") {
      let k = i - 1;
      while (k >= 0 && view[k]?.type === "tool") k--;
      const caller = view[k] as AIMessage | undefined;
      if (caller?.type !== "ai" || !(caller.tool_calls ?? []).some((c) => c.id === (message as ToolMessage).tool_call_id)) broken++;
    }
  }
  return broken;
}

/**
 * Provider ordering problems of a view (Anthropic, Gemini, OpenAI): a system
 * message after the start; no user message first after the system prompt (an
 * empty view included); an AI tool-call message not after a user message or tool
 * results; a view that ends with an assistant message (nothing to answer).
 */
export function orderViolations(view: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  const start = view[0]?.type === "system" ? 1 : 0;
  if (view.slice(start).some((m) => m.type === "system")) problems.push("system message after the start");
  if (view[start]?.type !== "human") problems.push(view.length === start ? "no message besides the system prompt" : `first message is ${view[start]?.type}, not a user message`);
  for (let i = start + 1; i < view.length; i++) {
    const message = view[i] as AIMessage;
    if (message.type === "ai" && (message.tool_calls?.length ?? 0) > 0 && view[i - 1]?.type !== "human" && view[i - 1]?.type !== "tool") problems.push(`tool-call message ${i} follows ${view[i - 1]?.type}`);
  }
  if (view.at(-1)?.type === "ai") problems.push("ends with an assistant message");
  return problems;
}

/** Whether the current request (the newest user message of the history) reached the view whole. */
export function requestKept(view: readonly BaseMessage[], history: readonly BaseMessage[]): boolean {
  const request = [...history].reverse().find((m) => m.type === "human");
  if (!request) return true;
  const want = readableText([request]);
  return readableText(view).includes(want);
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
