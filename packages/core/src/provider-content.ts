import type { BaseMessage, MessageContent } from "@langchain/core/messages";
import { blockText, copyMessage, type MessageKind } from "./messages.js";

// What providers put in an assistant message for themselves: reasoning (Anthropic thinking
// blocks, OpenAI reasoning items) and server-side compaction. The shapes are those the
// LangChain converters produce and read back (@langchain/anthropic, @langchain/openai).

/** Block and item types that carry a model's reasoning: Anthropic's, OpenAI's and LangChain v1's. */
const REASONING_TYPES: ReadonlySet<unknown> = new Set(["thinking", "redacted_thinking", "reasoning"]);

function typeOf(value: unknown): unknown {
  return typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined;
}

/** The provider block a v1 `non_standard` block wraps, else the block itself. */
function unwrapped(block: unknown): unknown {
  return typeOf(block) === "non_standard" ? (block as { value?: unknown }).value : block;
}

/**
 * True for a content block or output item that carries reasoning: Anthropic's
 * `thinking` and `redacted_thinking`, OpenAI's and LangChain v1's `reasoning`, and a
 * v1 `non_standard` block wrapping one of them.
 *
 * @example
 * ```ts
 * isReasoningBlock({ type: "thinking", thinking: "…", signature: "EqQB…" }); // true
 * isReasoningBlock({ type: "text", text: "hi" }); // false
 * ```
 */
export function isReasoningBlock(block: unknown): boolean {
  return REASONING_TYPES.has(typeOf(unwrapped(block)));
}

/**
 * True for a provider compaction: Anthropic's `compaction` content block, OpenAI's
 * `compaction` output item, or a v1 `non_standard` block wrapping one.
 *
 * @example
 * ```ts
 * isCompactionBlock({ type: "compaction", content: "Summary of the work so far" }); // true
 * ```
 */
export function isCompactionBlock(block: unknown): boolean {
  return typeOf(unwrapped(block)) === "compaction";
}

/** `response_metadata.output` when LangChain's OpenAI converter would send it instead of the message (a non-empty list of typed items). */
export function responsesOutput(metadata: unknown): readonly Record<string, unknown>[] | undefined {
  const output = typeof metadata === "object" && metadata !== null ? (metadata as { output?: unknown }).output : undefined;
  if (!Array.isArray(output) || output.length === 0) return undefined;
  return output.every((item) => typeof typeOf(item) === "string") ? (output as Record<string, unknown>[]) : undefined;
}

/** The text parts of the output's `message` items, as LangChain read them into content. */
function outputText(output: readonly Record<string, unknown>[]): string[] {
  const texts: string[] = [];
  for (const item of output) {
    if (item["type"] !== "message" || !Array.isArray(item["content"])) continue;
    for (const part of item["content"] as unknown[]) {
      const p = part as { type?: unknown; text?: unknown };
      if (p.type === "output_text" && typeof p.text === "string") texts.push(p.text);
    }
  }
  return texts;
}

function contentTexts(content: MessageContent): string[] {
  if (typeof content === "string") return content === "" ? [] : [content];
  const texts: string[] = [];
  for (const block of content as unknown[]) {
    const text = blockText(block);
    if (text !== undefined) texts.push(text);
  }
  return texts;
}

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((text, i) => text === b[i]);
}

/**
 * The output items with their `message` items made to say `texts`: the first keeps its
 * id and phase and takes the texts, the others leave; with no text left, no message item.
 */
function withOutputText(output: readonly Record<string, unknown>[], texts: readonly string[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  let placed = false;
  for (const item of output) {
    if (item["type"] !== "message") {
      items.push(item);
      continue;
    }
    if (placed || texts.length === 0) continue;
    placed = true;
    items.push({ ...item, content: texts.map((text) => ({ type: "output_text", text, annotations: [] })) });
  }
  if (!placed && texts.length > 0) {
    items.push({ type: "message", role: "assistant", content: texts.map((text) => ({ type: "output_text", text, annotations: [] })) });
  }
  return items;
}

/** What clearing reasoning from one message removed. */
export interface ReasoningClearing {
  message: BaseMessage;
  /** Reasoning blocks or items removed; OpenAI's item, its content block and `additional_kwargs.reasoning` count once. */
  cleared: number;
}

/**
 * A copy of an older assistant message without its reasoning: Anthropic thinking and
 * redacted thinking blocks, OpenAI and v1 reasoning blocks, `additional_kwargs.reasoning`
 * and the reasoning items of `response_metadata.output` (which LangChain sends instead
 * of the content when present). Everything else is kept as it is, compaction items
 * included. Other messages, and messages without reasoning, come back as they are.
 *
 * @example
 * ```ts
 * const { message, cleared } = withoutReasoning(olderAnswer, "ai");
 * // message.content holds the text and tool_use blocks only; cleared counts what left
 * ```
 */
export function withoutReasoning(message: BaseMessage, kind: MessageKind): ReasoningClearing {
  if (kind !== "ai") return { message, cleared: 0 };
  let cleared = 0;
  let content = message.content;
  if (Array.isArray(content)) {
    const kept = (content as unknown[]).filter((block) => !isReasoningBlock(block));
    cleared += content.length - kept.length;
    if (kept.length !== content.length) content = kept as MessageContent;
  }
  const output = responsesOutput(message.response_metadata);
  const keptOutput = output?.filter((item) => !isReasoningBlock(item));
  const outputCleared = output !== undefined && keptOutput !== undefined ? output.length - keptOutput.length : 0;
  const kwargsReasoning = message.additional_kwargs["reasoning"] !== undefined;
  if (cleared === 0 && outputCleared === 0 && !kwargsReasoning) return { message, cleared: 0 };
  const copy = copyMessage(message, kind, { content });
  if (kwargsReasoning) delete copy.additional_kwargs["reasoning"];
  if (outputCleared > 0 && keptOutput !== undefined) {
    copy.response_metadata = { ...copy.response_metadata, output: keptOutput };
  }
  // OpenAI's reasoning is one item shown three ways (a content block, additional_kwargs, the output): counted once.
  return { message: copy, cleared: Math.max(cleared, outputCleared, kwargsReasoning ? 1 : 0) };
}

/**
 * True when an assistant message carries reasoning {@link withoutReasoning} would clear:
 * a reasoning content block, `additional_kwargs.reasoning`, or a reasoning item of
 * `response_metadata.output`. Reads without copying.
 *
 * @example
 * ```ts
 * holdsReasoning(new AIMessage({ content: [{ type: "thinking", thinking: "…", signature: "EqQB…" }] })); // true
 * ```
 */
export function holdsReasoning(message: BaseMessage): boolean {
  if (Array.isArray(message.content) && (message.content as unknown[]).some(isReasoningBlock)) return true;
  if (message.additional_kwargs?.["reasoning"] !== undefined) return true;
  return responsesOutput(message.response_metadata)?.some(isReasoningBlock) === true;
}

/**
 * The view's copy of an assistant message with `response_metadata.output` (which
 * LangChain's OpenAI converter sends instead of content and `tool_calls`) made to say
 * what its content says: when the view changed the text (an excerpt, a cleared
 * exchange), the output's `message` items carry the content's text; every other item,
 * a compaction item included, stays. Messages whose text is unchanged come back as
 * they are, so a message kept whole is sent byte for byte.
 *
 * @example
 * ```ts
 * const sent = withOutputMatchingContent(viewCopy); // sent.response_metadata.output says the excerpt
 * ```
 */
export function withOutputMatchingContent(message: BaseMessage): BaseMessage {
  if (message.type !== "ai") return message;
  const output = responsesOutput(message.response_metadata);
  if (output === undefined) return message;
  const texts = contentTexts(message.content);
  if (sameTexts(texts, outputText(output))) return message;
  const copy = copyMessage(message, "ai");
  copy.response_metadata = { ...copy.response_metadata, output: withOutputText(output, texts) };
  return copy;
}

/** The `encrypted_content` of an item, when it has one. */
function encryptedOf(item: unknown): string | undefined {
  const encrypted = (unwrapped(item) as { encrypted_content?: unknown } | null | undefined)?.encrypted_content;
  return typeof encrypted === "string" && encrypted !== "" ? encrypted : undefined;
}

/** What an assistant message sends encrypted beside its content, as {@link encryptedSentOf} finds it. */
export interface EncryptedItems {
  /** The `encrypted_content` of its reasoning items: the reasoning tokens they decrypt to take room. */
  reasoning: string[];
  /** The `encrypted_content` of OpenAI `compaction` items of `response_metadata.output`. */
  compaction: string[];
}

/**
 * What an assistant message sends encrypted beside its content: the `encrypted_content`
 * of the reasoning and compaction items of `response_metadata.output` (which LangChain's
 * OpenAI converter sends instead of the content when present), else of
 * `additional_kwargs.reasoning`. The provider decrypts it into what it stands for, which
 * takes room in the prompt like any other input; no text block shows it, so the
 * estimator charges it from here (see {@link reasoningTokensOf}). A compaction block in
 * the content (Anthropic's) is charged with the content.
 *
 * @example
 * ```ts
 * encryptedSentOf(loopStep).reasoning; // ["gAAAAB…"] for an OpenAI step sent with its reasoning item
 * ```
 */
export function encryptedSentOf(message: BaseMessage): EncryptedItems {
  const found: EncryptedItems = { reasoning: [], compaction: [] };
  if (message.type !== "ai") return found;
  const output = responsesOutput(message.response_metadata);
  for (const item of output ?? [message.additional_kwargs["reasoning"]]) {
    const encrypted = encryptedOf(item);
    if (encrypted === undefined) continue;
    if (isReasoningBlock(item)) found.reasoning.push(encrypted);
    else if (output !== undefined && isCompactionBlock(item)) found.compaction.push(encrypted);
  }
  return found;
}

/**
 * The reasoning tokens the provider reported for the response an assistant message
 * holds (`usage_metadata.output_token_details.reasoning`), when it reported a positive
 * whole number: what its encrypted reasoning decrypts to.
 */
export function reasoningTokensOf(message: BaseMessage): number | undefined {
  const usage = (message as { usage_metadata?: { output_token_details?: { reasoning?: unknown } } }).usage_metadata;
  const reasoning = usage?.output_token_details?.reasoning;
  return typeof reasoning === "number" && Number.isInteger(reasoning) && reasoning > 0 ? reasoning : undefined;
}

/** The fields of a message as given: an instance, a stored form (`data`) or a serialized one (`kwargs`). */
function fieldsOf(input: unknown): Record<string, unknown> | undefined {
  if (typeof input !== "object" || input === null) return undefined;
  const record = input as Record<string, unknown>;
  if ("content" in record) return record;
  const inner = record["type"] === "constructor" ? record["kwargs"] : record["data"];
  return typeof inner === "object" && inner !== null ? (inner as Record<string, unknown>) : undefined;
}

function listHoldsCompaction(list: unknown): boolean {
  return Array.isArray(list) && list.some(isCompactionBlock);
}

/**
 * True when a message, in any form `buildContext` takes, holds a provider compaction:
 * an Anthropic `compaction` content block (first in the content, where the API takes
 * it), or an OpenAI `compaction` item in
 * `additional_kwargs.tool_outputs` or `response_metadata.output`. Reads those three
 * fields only, without converting the message: cheap enough to ask of every message.
 *
 * @example
 * ```ts
 * holdsProviderCompaction(new AIMessage({ content: [{ type: "compaction", content: "So far: …" }] })); // true
 * ```
 */
export function holdsProviderCompaction(input: unknown): boolean {
  // A message instance says its role: only an assistant's may hold a compaction.
  if ((input as { lc_serializable?: unknown } | null)?.lc_serializable === true && (input as { type?: unknown }).type !== "ai") return false;
  const fields = fieldsOf(input);
  if (fields === undefined) return false;
  // Anthropic's block comes first in its message (the API refuses it anywhere else).
  const content = fields["content"];
  if (Array.isArray(content) && content.length > 0 && isCompactionBlock(content[0])) return true;
  const kwargs = fields["additional_kwargs"] as { tool_outputs?: unknown } | undefined;
  if (typeof kwargs === "object" && kwargs !== null && listHoldsCompaction(kwargs.tool_outputs)) return true;
  const metadata = fields["response_metadata"] as { output?: unknown } | undefined;
  return typeof metadata === "object" && metadata !== null && listHoldsCompaction(metadata.output);
}
