import type { MessageContent } from "@langchain/core/messages";

// The content of one message: text and image blocks, read the same way everywhere.

/** True for a content block that carries an image. */
export function isImageBlock(block: unknown): boolean {
  if (typeof block !== "object" || block === null) return false;
  const b = block as Record<string, unknown>;
  if (b["type"] === "image" || b["type"] === "image_url" || b["type"] === "input_image") return true;
  const mime = b["mime_type"] ?? b["mimeType"];
  return (b["type"] === "file" || b["type"] === "media") && typeof mime === "string" && mime.startsWith("image/");
}

/** The text of a text content block (or a bare string block), else undefined. */
export function blockText(block: unknown): string | undefined {
  if (typeof block === "string") return block;
  if (typeof block !== "object" || block === null) return undefined;
  const b = block as { type?: unknown; text?: unknown };
  return typeof b.text === "string" && (b.type === "text" || b.type === undefined) ? b.text : undefined;
}

/** The plain text of a message's content: strings as they are, text blocks joined by newlines. */
export function textOf(content: MessageContent): string {
  if (typeof content === "string") return content;
  const parts: string[] = [];
  for (const block of content as unknown[]) {
    const text = blockText(block);
    if (text !== undefined) parts.push(text);
  }
  return parts.join("\n");
}

/** How many image blocks a content holds. */
export function countImages(content: MessageContent): number {
  if (typeof content === "string") return 0;
  let n = 0;
  for (const block of content) if (isImageBlock(block)) n++;
  return n;
}

/** A tool call read from a content block: the shape of LangChain's `ToolCall`. */
export interface BlockToolCall {
  /** Absent when the block has none: such a call can never be answered. */
  readonly id?: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly type: "tool_call";
}

/** Blocks that are a whole call: Anthropic's `tool_use` ({ id, name, input }) and LangChain v1's `tool_call` ({ id, name, args }). */
const CALL_BLOCKS: ReadonlySet<unknown> = new Set(["tool_use", "tool_call"]);
/** Streamed pieces of a call: Anthropic's `input_json_delta` ({ index, input | partial_json }) and LangChain v1's `tool_call_chunk`. */
const FRAGMENT_BLOCKS: ReadonlySet<unknown> = new Set(["input_json_delta", "tool_call_chunk"]);

function blockType(block: unknown): unknown {
  return typeof block === "object" && block !== null ? (block as { type?: unknown }).type : undefined;
}

/** True when `content` holds a block {@link contentToolCalls} may read as a call. */
export function holdsToolCallBlock(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  for (const block of content as unknown[]) {
    const type = blockType(block);
    if (CALL_BLOCKS.has(type) || FRAGMENT_BLOCKS.has(type)) return true;
  }
  return false;
}

/** Call arguments from a block's `input`/`args`: an object as it is, streamed JSON text parsed, anything else `{}`. */
function argsOf(value: unknown): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  if (typeof value !== "string" || value.trim() === "") return {};
  try {
    const parsed: unknown = JSON.parse(value);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const NO_CALLS: readonly BlockToolCall[] = Object.freeze([]);

/**
 * The tool calls an assistant message's content blocks hold beyond `known` (its
 * `tool_calls`), in block order. A `tool_use` or `tool_call` block is a call unless a
 * known call has its id; a streamed fragment (`input_json_delta`, `tool_call_chunk`)
 * belongs to the call with its id or to the call block with its `index`, and is a
 * call of its own (often without an id, so never answerable) otherwise. Blocks the
 * provider runs itself (`server_tool_use`, `mcp_tool_use`) carry their results in the
 * same message and are not calls here.
 *
 * @example
 * ```ts
 * contentToolCalls([{ type: "tool_use", id: "toolu_1", name: "search", input: { q: "x" } }], []);
 * // [{ id: "toolu_1", name: "search", args: { q: "x" }, type: "tool_call" }]
 * ```
 */
export function contentToolCalls(content: MessageContent, known: readonly { id?: string | undefined }[]): readonly BlockToolCall[] {
  if (!holdsToolCallBlock(content)) return NO_CALLS;
  const blocks = content as unknown as Record<string, unknown>[];
  const ids = new Set<string>();
  for (const call of known) if (typeof call.id === "string" && call.id !== "") ids.add(call.id);
  const indices = new Set<unknown>();
  const calls: BlockToolCall[] = [];
  const read = (block: Record<string, unknown>, args: unknown): void => {
    const id = typeof block["id"] === "string" && block["id"] !== "" ? block["id"] : undefined;
    const call = { name: typeof block["name"] === "string" ? block["name"] : "", args: argsOf(args), type: "tool_call" as const };
    if (id === undefined) calls.push(call);
    else {
      ids.add(id);
      calls.push({ id, ...call });
    }
  };
  for (const block of blocks) {
    if (!CALL_BLOCKS.has(blockType(block))) continue;
    if (block["index"] !== undefined) indices.add(block["index"]);
    if (typeof block["id"] === "string" && ids.has(block["id"])) continue;
    read(block, block["type"] === "tool_use" ? block["input"] : block["args"]);
  }
  for (const block of blocks) {
    if (!FRAGMENT_BLOCKS.has(blockType(block))) continue;
    if ((typeof block["id"] === "string" && ids.has(block["id"])) || (block["index"] !== undefined && indices.has(block["index"]))) continue;
    if (block["index"] !== undefined) indices.add(block["index"]);
    read(block, block["type"] === "input_json_delta" ? (block["input"] ?? block["partial_json"]) : block["args"]);
  }
  return calls;
}
