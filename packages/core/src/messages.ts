// size: the one reader of messages (kinds, conversion from dicts and stored forms, tool calls, copies) is kept in one file so that every stage reads a message the same way; content blocks are in message-content.ts.
import {
  AIMessage,
  BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
  coerceMessageLikeToMessage,
  isBaseMessage,
  mapStoredMessageToChatMessage,
  type MessageContent,
  type StoredMessage,
} from "@langchain/core/messages";
import { ContextViewError, describeValue } from "./errors.js";
import { contentToolCalls, holdsToolCallBlock } from "./message-content.js";

/** The four roles a view is made of. */
export type MessageKind = "system" | "human" | "ai" | "tool";

/**
 * What `buildContext` accepts as a message: a LangChain `BaseMessage`, or the dicts
 * LangChain and LangGraph serialize them to (`{ lc: 1, type: "constructor", … }`,
 * `{ type, data }`, `{ type, content }` or `{ role, content }`).
 */
export type MessageInput = BaseMessage | Record<string, unknown>;

const TYPE_KIND: Readonly<Record<string, MessageKind>> = {
  human: "human",
  user: "human",
  ai: "ai",
  assistant: "ai",
  system: "system",
  developer: "system",
  tool: "tool",
};

const CLASS_KIND: Readonly<Record<string, MessageKind>> = {
  HumanMessage: "human",
  HumanMessageChunk: "human",
  AIMessage: "ai",
  AIMessageChunk: "ai",
  SystemMessage: "system",
  SystemMessageChunk: "system",
  ToolMessage: "tool",
  ToolMessageChunk: "tool",
};

function invalidMessage(index: number, expected: string, got: unknown): ContextViewError {
  return new ContextViewError("INVALID_MESSAGES", `Expected \`messages[${index}]\` to be ${expected}, got ${describeValue(got)}`, { index });
}

/** Throws `INVALID_MESSAGES` unless `messages` is an array (of anything; each element is checked when read). */
export function checkMessageArray(messages: unknown): asserts messages is readonly unknown[] {
  if (!Array.isArray(messages)) {
    throw new ContextViewError("INVALID_MESSAGES", `Expected \`messages\` to be an array of chat messages, got ${describeValue(messages)}`, { field: "messages" });
  }
}

/**
 * The role of a message without constructing it; throws `INVALID_MESSAGES` naming
 * the index for anything that is not a chat message. Cheap: reads a few fields,
 * with a fast path for LangChain messages (`buildContext` calls it on every message).
 */
export function kindOf(value: unknown, index: number): MessageKind {
  if (typeof value === "object" && value !== null) {
    const fast = fastKind(value as { type?: unknown; tool_call_id?: unknown; lc_serializable?: unknown });
    if (fast !== undefined) return fast;
  }
  return slowKind(value, index);
}

/** Message instances carry `type` and, for tools, `tool_call_id` as own string fields. */
function fastKind(value: { type?: unknown; tool_call_id?: unknown; lc_serializable?: unknown }): MessageKind | undefined {
  if (value.lc_serializable !== true) return undefined;
  switch (value.type) {
    case "human":
      return "human";
    case "ai":
      return "ai";
    case "system":
      return "system";
    case "tool":
      return typeof value.tool_call_id === "string" && value.tool_call_id !== "" ? "tool" : undefined;
    default:
      return undefined;
  }
}

function slowKind(value: unknown, index: number): MessageKind {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidMessage(index, "a chat message (BaseMessage or a serialized message dict)", value);
  }
  const record = value as Record<string, unknown>;
  const type = record["type"];
  let kind: MessageKind | undefined;
  if (type === "constructor" && Array.isArray(record["id"])) {
    const id = record["id"] as unknown[];
    kind = CLASS_KIND[String(id[id.length - 1])];
  } else if (typeof type === "string") {
    kind = TYPE_KIND[type];
    if (type === "generic") kind = TYPE_KIND[String(record["role"])];
  } else if (typeof record["role"] === "string") {
    kind = TYPE_KIND[record["role"] as string];
  }
  if (kind === undefined) {
    throw invalidMessage(index, "a message of role human, ai, system or tool", value);
  }
  if (kind === "tool") {
    const id = isBaseMessage(value) ? (value as ToolMessage).tool_call_id : toolCallIdOfDict(record);
    if (typeof id !== "string" || id === "") {
      throw new ContextViewError(
        "INVALID_MESSAGES",
        `Expected \`messages[${index}].tool_call_id\` to be a non-empty string on a ToolMessage, got ${describeValue(id)}`,
        { index, field: "tool_call_id" },
      );
    }
  }
  return kind;
}

function toolCallIdOfDict(record: Record<string, unknown>): unknown {
  return record["tool_call_id"] ?? messageFields(record)["tool_call_id"];
}

/**
 * A `BaseMessage` for any accepted input. BaseMessages are returned as they are,
 * except LangChain's `ChatMessage` (`type: "generic"`), which becomes the message
 * of its role (`user`, `assistant`, `system`, `developer`, `tool`). Dicts are
 * copied before LangChain's constructors fill in their defaults, so the caller's
 * objects are never changed. Content that is neither a string nor an array of
 * blocks is refused with `INVALID_MESSAGES` naming `messages[index].content`.
 */
export function toBaseMessage(value: MessageInput, index: number): BaseMessage {
  let message: BaseMessage;
  if (isBaseMessage(value)) message = value;
  else {
    const record = value as Record<string, unknown>;
    try {
      if (typeof record["type"] === "string" && record["type"] !== "constructor" && typeof record["data"] === "object" && record["data"] !== null && !("content" in record)) {
        message = mapStoredMessageToChatMessage({ ...record, data: { ...(record["data"] as object) } } as unknown as StoredMessage);
      } else if (record["type"] === "constructor" && typeof record["kwargs"] === "object" && record["kwargs"] !== null) {
        message = coerceMessageLikeToMessage({ ...record, kwargs: { ...(record["kwargs"] as object) } } as never);
      } else {
        message = coerceMessageLikeToMessage({ ...record } as never);
      }
    } catch (cause) {
      throw new ContextViewError("INVALID_MESSAGES", `Could not read \`messages[${index}]\` as a chat message: ${(cause as Error).message}`, { index }, { cause });
    }
  }
  if (message.type === "generic") message = fromChatMessage(message, index);
  const content: unknown = message.content;
  if (typeof content !== "string" && !Array.isArray(content)) {
    throw new ContextViewError("INVALID_MESSAGES", `Expected \`messages[${index}].content\` to be a string or an array of content blocks, got ${describeValue(content)}`, {
      index,
      field: `messages[${index}].content`,
    });
  }
  return message;
}

/** A ChatMessage as the message of its role (its kind was checked by {@link kindOf}). */
function fromChatMessage(message: BaseMessage, index: number): BaseMessage {
  const role = (message as unknown as { role?: unknown }).role;
  const kind = typeof role === "string" ? TYPE_KIND[role] : undefined;
  if (kind === undefined) throw invalidMessage(index, "a message of role user, assistant, system or tool", message);
  const fields: Record<string, unknown> = {
    content: message.content,
    additional_kwargs: { ...message.additional_kwargs },
    response_metadata: { ...message.response_metadata },
  };
  if (message.id !== undefined) fields["id"] = message.id;
  if (message.name !== undefined) fields["name"] = message.name;
  switch (kind) {
    case "human":
      return new HumanMessage(fields as never);
    case "system":
      return new SystemMessage(fields as never);
    case "ai":
      return new AIMessage(fields as never);
    case "tool":
      return new ToolMessage({ ...fields, tool_call_id: toolCallIdOfDict(message as unknown as Record<string, unknown>) } as never);
  }
}

/**
 * Tool calls of a message read by {@link toBaseMessage} (never undefined). This is
 * the one rule for "has tool calls": the view pairs these calls with their results
 * (law 3), so `invalid_tool_calls` and a legacy `additional_kwargs.function_call`,
 * which no ToolMessage can answer in the view, do not make a tool-calling message.
 *
 * An assistant message's `tool_calls`, then the calls its content blocks hold that
 * `tool_calls` lacks (see {@link contentToolCalls}): a raw Anthropic `tool_use` or a
 * v1 `tool_call` block is sent to the provider as a call whatever `tool_calls` says,
 * so it is a call here too, read the way LangChain derives `tool_calls` from it. With
 * its results it is an exchange; without them it is an unfinished call, left out and
 * counted; its prose is never evidence.
 *
 * @example
 * ```ts
 * toolCallsOf(new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: {} }] })).length; // 1
 * toolCallsOf(new AIMessage({ content: [{ type: "tool_use", id: "toolu_1", name: "search", input: {} }] })).length; // 1
 * ```
 */
export function toolCallsOf(message: BaseMessage): NonNullable<AIMessage["tool_calls"]> {
  const calls = (message as AIMessage).tool_calls ?? [];
  if (message.type !== "ai" || !Array.isArray(message.content)) return calls;
  const extra = contentToolCalls(message.content, calls);
  return extra.length === 0 ? calls : [...calls, ...extra];
}

/**
 * The `tool_call_id` of a ToolMessage (the call it answers), else undefined.
 *
 * @example
 * ```ts
 * toolCallIdOf(new ToolMessage({ content: "42", tool_call_id: "call-1" })); // "call-1"
 * ```
 */
export function toolCallIdOf(message: BaseMessage): string | undefined {
  const id = (message as { tool_call_id?: unknown }).tool_call_id;
  return typeof id === "string" ? id : undefined;
}

/**
 * The record holding a message's fields, whatever shape it was serialized in: the
 * message itself, the `kwargs` of an `lc` constructor dict, the `data` of a stored
 * `{ type, data }` dict, or a plain `{ type | role, content, … }` dict.
 *
 * @example
 * ```ts
 * messageFields({ type: "human", data: { id: "h1", content: "hi" } }); // { id: "h1", content: "hi" }
 * ```
 */
export function messageFields(value: object): Record<string, unknown> {
  if (isBaseMessage(value)) return value as unknown as Record<string, unknown>;
  const record = value as Record<string, unknown>;
  if (record["type"] === "constructor" && typeof record["kwargs"] === "object" && record["kwargs"] !== null) {
    return record["kwargs"] as Record<string, unknown>;
  }
  if (typeof record["data"] === "object" && record["data"] !== null && !("content" in record)) return record["data"] as Record<string, unknown>;
  return record;
}

function nonEmpty(list: unknown): boolean {
  return Array.isArray(list) && list.length > 0;
}

/**
 * False only when LangChain's constructors cannot give the dict tool calls: none of
 * `tool_calls`, OpenAI's `additional_kwargs.tool_calls`, `tool_call_chunks`,
 * `contentBlocks`, v1 output, or a tool-call content block (`tool_use`, …).
 */
function mayHoldToolCalls(fields: Record<string, unknown>): boolean {
  const extra = fields["additional_kwargs"] as Record<string, unknown> | undefined;
  const metadata = fields["response_metadata"] as Record<string, unknown> | undefined;
  return (
    nonEmpty(fields["tool_calls"]) ||
    nonEmpty(extra?.["tool_calls"]) ||
    nonEmpty(fields["tool_call_chunks"]) ||
    fields["contentBlocks"] !== undefined ||
    metadata?.["output_version"] === "v1" ||
    holdsToolCallBlock(fields["content"])
  );
}

/**
 * {@link toolCallsOf} is not empty for this input, read as the view reads it, without
 * constructing a message for dicts that cannot hold calls (most of a checkpoint).
 *
 * @example
 * ```ts
 * hasToolCalls({ type: "ai", content: "", tool_calls: [{ id: "c1", name: "search", args: {} }] }, 0); // true
 * hasToolCalls({ type: "ai", content: "", invalid_tool_calls: [{ id: "c1", name: "search", args: "{", error: "bad" }] }, 0); // false
 * ```
 */
export function hasToolCalls(value: MessageInput, index: number): boolean {
  if (isBaseMessage(value)) {
    if (value.type !== "generic") return toolCallsOf(value).length > 0;
  } else if (!mayHoldToolCalls(messageFields(value))) return false;
  return toolCallsOf(toBaseMessage(value, index)).length > 0;
}

/**
 * Index of the current request — the newest user message at or after `from` — or -1
 * when there is none. Reads roles from the newest message back, through `kind` when
 * the caller remembers the roles it read.
 *
 * @example
 * ```ts
 * newestRequestIndex([new HumanMessage("a"), new AIMessage("b"), new HumanMessage("c")]); // 2
 * ```
 */
export function newestRequestIndex(messages: readonly unknown[], from = 0, kind: (index: number) => MessageKind = (i) => kindOf(messages[i], i)): number {
  for (let i = messages.length - 1; i >= from; i--) if (kind(i) === "human") return i;
  return -1;
}

/** Fields that may be replaced when copying a message. */
export interface MessagePatch {
  content?: MessageContent;
  tool_calls?: AIMessage["tool_calls"];
}

/**
 * A fresh message of the same role carrying the same fields (content arrays are
 * copied, blocks shared), with `patch` applied. The original is not touched.
 * AIMessageChunks become AIMessages; an AI copy's `tool_calls` are {@link toolCallsOf}.
 */
export function copyMessage(message: BaseMessage, kind: MessageKind, patch: MessagePatch = {}): BaseMessage {
  const content = patch.content ?? (Array.isArray(message.content) ? [...message.content] : message.content);
  const base: Record<string, unknown> = {
    content,
    additional_kwargs: { ...message.additional_kwargs },
    response_metadata: { ...message.response_metadata },
  };
  if (message.id !== undefined) base["id"] = message.id;
  if (message.name !== undefined) base["name"] = message.name;
  switch (kind) {
    case "human":
      return new HumanMessage(base as never);
    case "system":
      return new SystemMessage(base as never);
    case "ai": {
      const ai = message as AIMessage;
      // Calls read from content blocks move into `tool_calls` (every provider adapter reads
      // those); the blocks stay. A call without an id stays read from its block only, so
      // a copy holds the same calls as its original.
      const calls = patch.tool_calls ?? toolCallsOf(message).filter((call, j) => j < (ai.tool_calls?.length ?? 0) || call.id !== undefined);
      base["tool_calls"] = calls.map((call) => ({ ...call }));
      if (ai.invalid_tool_calls?.length) base["invalid_tool_calls"] = ai.invalid_tool_calls.map((call) => ({ ...call }));
      if (ai.usage_metadata !== undefined) base["usage_metadata"] = { ...(ai.usage_metadata as object) };
      return new AIMessage(base as never);
    }
    case "tool": {
      const tool = message as ToolMessage;
      base["tool_call_id"] = tool.tool_call_id;
      if (tool.artifact !== undefined) base["artifact"] = tool.artifact;
      if (tool.status !== undefined) base["status"] = tool.status;
      if (tool.metadata !== undefined) base["metadata"] = { ...tool.metadata };
      return new ToolMessage(base as never);
    }
  }
}

export { blockText, countImages, isImageBlock, textOf } from "./message-content.js";
