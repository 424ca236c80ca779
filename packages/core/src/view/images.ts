import type { BaseMessage } from "@langchain/core/messages";
import { copyMessage, isImageBlock, type MessageKind } from "../messages.js";
import { IMAGE_PLACEHOLDER, type OlderCounts } from "./older.js";

/** Text that stands in for an image when the model takes no image input. */
export const NO_IMAGE_INPUT_PLACEHOLDER = "[image omitted: this model takes no image input; it remains in the conversation history]";

/**
 * The message with every image block replaced by a placeholder: by default
 * {@link NO_IMAGE_INPUT_PLACEHOLDER}, for a model whose profile says it takes no
 * image input (a provider would reject the request), which applies to every role,
 * tool results and the current request included. Counts each replacement in
 * `counts.imagesReplaced`. Returns the message itself when it holds no image.
 */
export function withoutImages(message: BaseMessage, kind: MessageKind, counts: OlderCounts, placeholder = NO_IMAGE_INPUT_PLACEHOLDER): BaseMessage {
  const content = message.content;
  if (typeof content === "string" || !(content as unknown[]).some(isImageBlock)) return message;
  const blocks = (content as unknown[]).map((block) => {
    if (!isImageBlock(block)) return block;
    counts.imagesReplaced++;
    return { type: "text", text: placeholder };
  });
  return copyMessage(message, kind, { content: blocks as BaseMessage["content"] });
}

/** What decides the images of a pinned copy: the view options `imageInputs` and `pinnedImages`. */
export interface PinnedImageChoice {
  readonly imageInputs?: boolean | undefined;
  readonly pinnedImages?: boolean | undefined;
}

/**
 * A pinned copy's images: {@link IMAGE_PLACEHOLDER}s, as in older turns (the pinned
 * block is sent on every call, so an image would cost its allowance every time),
 * unless `pinnedImages` keeps them; {@link NO_IMAGE_INPUT_PLACEHOLDER}s when the
 * model takes no image input. Counts each replacement in `counts.imagesReplaced`.
 */
export function pinnedCopy(images: PinnedImageChoice, message: BaseMessage, kind: MessageKind, counts: OlderCounts): BaseMessage {
  if (images.imageInputs === false) return withoutImages(message, kind, counts);
  return images.pinnedImages === true ? message : withoutImages(message, kind, counts, IMAGE_PLACEHOLDER);
}
