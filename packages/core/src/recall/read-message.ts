import { splitContent } from "../compact/compact-tool-result.js";
import { textOf, toolCallsOf } from "../messages.js";
import { fenced } from "../inline-text.js";
import { longestFitting, messageLabel, nextCall, RECALLED_LABEL, recallError, referenceOf } from "./recalled-text.js";
import type { RecallAnswer, RecallContext, RecalledMessage } from "./recalled-text.js";

/** What `read` asks for: one message, and a character range of its text. */
export interface ReadRequest {
  /** An index, a message id or a tool result's `tool_call_id`. */
  message: number | string | undefined;
  /** First character (UTF-16 units) of the range. @default 0 */
  offset?: number | undefined;
  /** Most characters to return; the answer's bound may return fewer. @default as many as fit */
  length?: number | undefined;
}

/**
 * The text a read pages through: the message's content text (a tool result's as the
 * tool returned it, read as compaction reads it, so an excerpt's character range
 * names the same characters), then an assistant message's tool calls with their arguments.
 */
export function readableText({ kind, message }: RecalledMessage): string {
  const text = kind === "tool" ? splitContent(message.content).text : textOf(message.content);
  if (kind !== "ai") return text;
  const calls = toolCallsOf(message).map((call) => `[tool call \`${call.name}\` (id ${call.id ?? "none"}): ${JSON.stringify(call.args ?? {})}]`);
  return [text, ...calls].filter((part) => part !== "").join("\n");
}

/**
 * Read one message back: its text from `offset`, as much as fits the bound; an
 * answer that stops short says the exact call that reads on.
 */
export function readMessage(selected: RecalledMessage, request: ReadRequest, context: RecallContext): RecallAnswer {
  const offset = request.offset ?? 0;
  const text = readableText(selected);
  if (!Number.isSafeInteger(offset) || offset < 0) return recallError(`\`offset\` must be a non-negative integer, got ${String(request.offset)}.`);
  if (request.length !== undefined && (!Number.isSafeInteger(request.length) || request.length < 1)) return recallError(`\`length\` must be a positive integer, got ${String(request.length)}.`);
  if (offset > 0 && offset >= text.length) return recallError(`\`offset\` ${offset} is past the end of message ${selected.index} (${text.length} characters).`);
  const reference = referenceOf(request.message, selected.index);
  const artifact: unknown = (selected.message as { artifact?: unknown }).artifact;
  const hasArtifact = selected.kind === "tool" && artifact !== undefined && artifact !== null;
  const rest = text.slice(offset);
  const wanted = Math.min(rest.length, request.length ?? rest.length);

  const render = (shown: string): string[] => {
    const end = offset + shown.length;
    // Fenced: a line of the text that looks like a label or a role line of ours stays inside the text.
    const lines = [RECALLED_LABEL, `${messageLabel(selected, context)} · characters ${offset}-${end} of ${text.length}, between the fences:`, fenced(shown)];
    if (end < text.length) lines.push(`[Characters ${end}-${text.length} not shown. To read on, ${nextCall(context, { action: "read", message: reference, offset: end })}.]`);
    if (hasArtifact) lines.push(`[This tool result also has an artifact; read its rows with ${nextCall(context, { action: "rows", message: reference })}.]`);
    return lines;
  };
  const length = longestFitting(context, rest, wanted, render);
  return { text: render(rest.slice(0, length)).join("\n"), error: false };
}
