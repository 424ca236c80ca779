import { kindOf, textOf, toBaseMessage, type MessageInput } from "../messages.js";

/**
 * The text the user typed in one message: its string content, or its text blocks.
 * Attachments (file, image, audio and document blocks) are left out, so a pasted
 * PDF never steers routing or memory retrieval.
 *
 * @example
 * ```ts
 * messageText(new HumanMessage({ content: [{ type: "text", text: "Summarize this" }, { type: "file", mimeType: "application/pdf", data }] }));
 * // "Summarize this"
 * ```
 */
export function messageText(message: MessageInput, index = 0): string {
  return textOf(toBaseMessage(message, index).content);
}

/**
 * The index of the newest human message (the current request), or `-1` when there is none.
 *
 * @example
 * ```ts
 * currentRequestIndex([new HumanMessage("hi"), new AIMessage("hello")]); // 0
 * ```
 */
export function currentRequestIndex(messages: readonly MessageInput[], before = messages.length): number {
  for (let i = before - 1; i >= 0; i--) if (kindOf(messages[i], i) === "human") return i;
  return -1;
}

/**
 * The user's request: the typed text of the newest human message, without its
 * attachments; `""` when there is no human message. This is the query routing and
 * memory selection read.
 *
 * @example
 * ```ts
 * const query = requestText(state.messages);
 * const { texts } = selectMemories(saved, query);
 * ```
 */
export function requestText(messages: readonly MessageInput[]): string {
  const index = currentRequestIndex(messages);
  return index < 0 ? "" : messageText(messages[index] as MessageInput, index);
}
