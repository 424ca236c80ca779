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
