import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { safeJson } from "../estimate.js";
import { countImages, textOf, toolCallsOf } from "../messages.js";
import { safeCutAfter, safeCutBefore } from "../text.js";
import { isSummaryMessage } from "./summary-message.js";

/** Longest tool result kept in a transcript, as head and tail, in characters. */
const RESULT_CHARS = 1200;
/** Longest tool-call arguments in a transcript, in characters. */
const ARGS_CHARS = 2000;

/** The head and tail of `text`, at most `max` UTF-16 units in all, never splitting a surrogate pair. */
function headTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const half = Math.floor(max / 2);
  const head = safeCutBefore(text, half);
  const tail = safeCutAfter(text, text.length - half);
  return `${text.slice(0, head)} […${tail - head} characters omitted…] ${text.slice(tail)}`;
}

/**
 * One transcript line per message, `role: content`, for the summarizer: tool calls
 * with their names and arguments, tool results trimmed to their head and tail,
 * images as placeholders. A previous summary is rendered as such, never as fresh
 * conversation.
 *
 * @example
 * ```ts
 * renderTranscript([new HumanMessage("hi"), new AIMessage("hello")]);
 * // ["user: hi", "assistant: hello"]
 * ```
 */
export function renderTranscript(messages: readonly BaseMessage[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    const images = countImages(message.content);
    const text = textOf(message.content).trim() + (images > 0 ? ` [${images} image(s)]` : "");
    switch (message.type) {
      case "human":
        lines.push(`user: ${text}`);
        break;
      case "ai": {
        if (isSummaryMessage(message)) {
          lines.push(`previous summary: ${text}`);
          break;
        }
        const calls = toolCallsOf(message).map((call) => `${call.name}(${headTail(safeJson(call.args ?? {}), ARGS_CHARS)})`);
        if (text) lines.push(`assistant: ${text}`);
        if (calls.length > 0) lines.push(`assistant called: ${calls.join(", ")}`);
        break;
      }
      case "tool": {
        const name = message.name ?? "tool";
        const body = typeof message.content === "string" ? message.content : safeJson(message.content);
        lines.push(`tool result (${name}): ${headTail(body, RESULT_CHARS)}`);
        break;
      }
      default:
        if (text) lines.push(`${message.type}: ${text}`);
    }
  }
  return lines;
}

/**
 * Split transcript lines into chunks of at most `maxTokens` each (a longer line is
 * trimmed to fit), in order, so the whole transcript reaches the summarizer.
 */
export function chunkTranscript(lines: readonly string[], maxTokens: number, estimator: Estimator): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let used = 0;
  for (const raw of lines) {
    let line = raw;
    let tokens = estimator.estimateText(line) + 1;
    if (tokens > maxTokens) {
      line = headTail(line, Math.max(200, maxTokens * 2));
      tokens = estimator.estimateText(line) + 1;
    }
    if (used + tokens > maxTokens && current.length > 0) {
      chunks.push(current.join("\n"));
      current = [];
      used = 0;
    }
    current.push(line);
    used += tokens;
  }
  if (current.length > 0) chunks.push(current.join("\n"));
  return chunks;
}
