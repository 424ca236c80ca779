import { textOf } from "@contextview/core/internal";
import { AIMessage, type AIMessageChunk, type MessageContent } from "@langchain/core/messages";

/**
 * Whether `part` is an AI message chunk, from this copy of @langchain/core or
 * another. `AIMessageChunk.isInstance` walks the prototype chain up to its own
 * `BaseMessageChunk`, so it says false for a chunk made by the other module
 * system's copy (an ES-module app beside a CommonJS library); `AIMessage.isInstance`
 * reads a `Symbol.for` brand and the `type`, which every copy shares, and only
 * chunks can `concat`.
 */
function isAIMessageChunk(part: unknown): part is AIMessageChunk {
  return AIMessage.isInstance(part) && typeof (part as { concat?: unknown }).concat === "function";
}

/**
 * The text of a streamed part when it is a content segment, else undefined. Knows
 * the shapes LangGraph and LangChain stream: an `AIMessageChunk`; a
 * `[chunk, metadata]` pair (`streamMode: "messages"`); the `["messages", [chunk, metadata]]`
 * pair of a multi-mode stream; an `on_chat_model_stream` event of
 * `streamEvents`; a plain string. Whole messages a node returns (the context node's
 * view, state updates) are not content segments: only chunks count.
 *
 * @example
 * ```ts
 * streamedText([new AIMessageChunk("Hel"), { langgraph_node: "model" }]); // "Hel"
 * streamedText({ messages: [] }); // undefined
 * ```
 */
export function streamedText(part: unknown): string | undefined {
  if (typeof part === "string") return part;
  if (isAIMessageChunk(part)) return textOf(part.content as MessageContent);
  if (Array.isArray(part) && part.length === 2) {
    if (part[0] === "messages" && Array.isArray(part[1])) return streamedText(part[1]);
    if (isAIMessageChunk(part[0])) return streamedText(part[0]);
    return undefined;
  }
  if (typeof part === "object" && part !== null && (part as { event?: unknown }).event === "on_chat_model_stream") {
    return streamedText((part as { data?: { chunk?: unknown } }).data?.chunk);
  }
  return undefined;
}
