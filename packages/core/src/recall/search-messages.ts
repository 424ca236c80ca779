import { conversationIndex } from "../lexical/conversation-index.js";
import { searchTerms, termOccurrences } from "../lexical/search-terms.js";
import { kindOf, newestRequestIndex, textOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";
import { clipEcho, jsonLine } from "../inline-text.js";
import { readableText } from "./read-message.js";
import { providerReadFrom } from "../view/provider-head.js";
import { fits, messageLabel, nextCall, RECALLED_LABEL, recallError, type RecallAnswer, type RecallContext, type RecalledMessage } from "./recalled-text.js";

/** What `search` asks for. */
export interface SearchRequest {
  query: string | undefined;
  /** Matches to skip (the previous answer's next offset). @default 0 */
  offset?: number | undefined;
  /** Most matches to list; the answer's bound may list fewer. @default 8 */
  limit?: number | undefined;
}

export const DEFAULT_SEARCH_LIMIT = 8;
/** Longest excerpt of one match, in characters. */
const EXCERPT_CHARS = 240;

/**
 * Rank the conversation's messages against `query` with its lexical index (BM25
 * over {@link searchTerms}) and list the best: index, role, id and an excerpt around
 * the first query term each holds. The tool's own answers and the calls that asked
 * for them are left out, so a search never finds itself, and so is the newest user
 * message (the request being answered, which the model has in view).
 */
export function searchMessages(messages: readonly MessageInput[], request: SearchRequest, context: RecallContext): RecallAnswer {
  const query = typeof request.query === "string" ? request.query.trim() : "";
  const terms = searchTerms(query);
  if (terms.length === 0) return recallError("`query` needs at least one word, id or number to search for.");
  const offset = request.offset ?? 0;
  const limit = request.limit ?? DEFAULT_SEARCH_LIMIT;
  if (!Number.isSafeInteger(offset) || offset < 0) return recallError(`\`offset\` must be a non-negative integer, got ${String(request.offset)}.`);
  if (!Number.isSafeInteger(limit) || limit < 1) return recallError(`\`limit\` must be a positive integer, got ${String(request.limit)}.`);

  const own = messages.map((message, index) => isOwnMessage(message, index, context.toolName));
  // The request the model is answering is in its view already: a search never lists it first.
  const answering = newestRequestIndex(messages);
  // Nothing before a provider's compaction: no view sends it.
  const from = providerReadFrom(messages);
  const ranked = conversationIndex(messages).rank(terms, (index) => index >= from && own[index] !== true && index !== answering, messages.length);
  const echoed = jsonLine(clipEcho(query, 200));
  if (ranked.length === 0) return { text: [RECALLED_LABEL, `No message of this conversation matches ${echoed}.`].join("\n"), error: false };
  if (offset >= ranked.length) return recallError(`\`offset\` ${offset} is past the last match (${ranked.length} messages match ${echoed}).`);

  const lines = [RECALLED_LABEL, `Messages matching ${echoed}, best first (${ranked.length} match):`];
  const footer = (shownTo: number): string[] => {
    const out: string[] = [];
    if (shownTo < ranked.length) out.push(`[Matches ${shownTo + 1}-${ranked.length} not shown. For more, ${nextCall(context, { action: "search", query, offset: shownTo })}.]`);
    out.push(`[To read a message whole, call \`${context.toolName}\` with {"action":"read","message":<its index>}.]`);
    return out;
  };
  let shown = offset;
  const last = Math.min(ranked.length, offset + limit);
  for (let k = offset; k < last; k++) {
    const { index, score } = ranked[k]!;
    const message: RecalledMessage = { index, kind: kindOf(messages[index], index), message: toBaseMessage(messages[index] as MessageInput, index) };
    const entry = [`${k + 1}. ${messageLabel(message, context)} · score ${score.toFixed(2)}`, `   ${jsonLine(excerptOf(readableText(message), terms))}`];
    if (!fits(context, [...lines, ...entry, ...footer(k + 1)])) break;
    lines.push(...entry);
    shown = k + 1;
  }
  if (shown === offset) return recallError(`the first match does not fit \`maxToolResultTokens\` (${context.maxTokens}); raise it.`);
  return { text: [...lines, ...footer(shown)].join("\n"), error: false };
}

/** Index of the newest user message (the request being answered), or -1. */
/** A tool result of the recall tool itself, or an assistant message whose only calls are to it. */
function isOwnMessage(value: MessageInput, index: number, toolName: string): boolean {
  const kind = kindOf(value, index);
  if (kind !== "tool" && kind !== "ai") return false;
  const message = toBaseMessage(value, index);
  if (kind === "tool") return message.name === toolName;
  const calls = toolCallsOf(message);
  return calls.length > 0 && calls.every((call) => call.name === toolName) && textOf(message.content).trim() === "";
}

/** About {@link EXCERPT_CHARS} characters around the first query term the text holds (see `termOccurrences`; its beginning when none is found). */
function excerptOf(text: string, terms: readonly string[]): string {
  if (text.length <= EXCERPT_CHARS) return text;
  const lower = text.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const found = termOccurrences(lower, term, 1)[0];
    if (found !== undefined && (at < 0 || found < at)) at = found;
  }
  const start = Math.max(0, Math.min(text.length - EXCERPT_CHARS, at < 0 ? 0 : at - EXCERPT_CHARS / 3));
  const end = Math.min(text.length, start + EXCERPT_CHARS);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}
