import type { BaseMessage } from "@langchain/core/messages";
import { copyMessage, isImageBlock, type MessageKind } from "../messages.js";
import type { OlderCounts } from "./older.js";

/** Text that stands in for an image when the model takes no image input. */
export const NO_IMAGE_INPUT_PLACEHOLDER = "[image omitted: this model takes no image input; it remains in the conversation history]";

/**
 * The message with every image block replaced by a placeholder, for a model whose
 * profile says it takes no image input (a provider would reject the request).
 * Applies to every role, tool results and the current request included; counts
 * each replacement in `counts.imagesReplaced`. Returns the message itself when it
 * holds no image.
 */
export function withoutImages(message: BaseMessage, kind: MessageKind, counts: OlderCounts): BaseMessage {
  const content = message.content;
  if (typeof content === "string" || !(content as unknown[]).some(isImageBlock)) return message;
  const blocks = (content as unknown[]).map((block) => {
    if (!isImageBlock(block)) return block;
    counts.imagesReplaced++;
    return { type: "text", text: NO_IMAGE_INPUT_PLACEHOLDER };
  });
  return copyMessage(message, kind, { content: blocks as BaseMessage["content"] });
}
