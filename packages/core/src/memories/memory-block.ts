import type { Estimator } from "../estimate.js";

/** First line of the injected memory block; the same header `buildContext` renders. */
export const MEMORY_BLOCK_HEADER = "Saved memories about the user (facts they asked you to remember):";

/**
 * One line of the block: the memory on a single line, whitespace collapsed.
 *
 * @example
 * ```ts
 * memoryLine("Prefers  metric\nunits"); // "- Prefers metric units"
 * ```
 */
export function memoryLine(text: string): string {
  return `- ${text.replace(/\s+/g, " ").trim()}`;
}

/**
 * The memory block for the system message, or `""` for no memories.
 *
 * @example
 * ```ts
 * renderMemoryBlock(["Rent is due on the 3rd"]);
 * // "Saved memories about the user (facts they asked you to remember):\n- Rent is due on the 3rd"
 * ```
 */
export function renderMemoryBlock(texts: readonly string[]): string {
  return texts.length === 0 ? "" : [MEMORY_BLOCK_HEADER, ...texts.map(memoryLine)].join("\n");
}

/**
 * Estimated tokens of the header, and of one more line, charged the way `buildContext` charges them.
 *
 * @example
 * ```ts
 * const used = memoryBlockCost.header(estimator) + memoryBlockCost.line(estimator, "Rent is due on the 3rd");
 * ```
 */
export const memoryBlockCost = {
  header: (estimator: Estimator): number => estimator.estimateText(MEMORY_BLOCK_HEADER),
  line: (estimator: Estimator, text: string): number => estimator.estimateText(`\n${memoryLine(text)}`),
};
