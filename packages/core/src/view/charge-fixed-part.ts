import { SystemMessage } from "@langchain/core/messages";
import { ContextViewError, describeValue } from "../errors.js";
import type { Estimator } from "../estimate.js";
import { textOf, toBaseMessage, type MessageInput } from "../messages.js";
import { memoryBlockCost, renderMemoryBlock } from "../memories/memory-block.js";
import type { BuildContextInput } from "./types.js";

/** The part of the view charged before any message: system prompt, memories, tool schemas. */
export interface FixedPart {
  /** The system message of the view (prompt and memories), or null when both are empty. */
  systemMessage: SystemMessage | null;
  /** The system prompt's text ("" when none). */
  systemText: string;
  systemTokens: number;
  memoryTokens: number;
  toolTokens: number;
  /** Memories given and kept within `memoryBudget`. */
  memoriesKept: number;
  /** Everything above, in estimated tokens. */
  tokens: number;
}

/**
 * Charge the fixed part of the view: the first source of {@link buildContext}, mandatory. The system
 * prompt (or the leading system messages `[0, lead)`), the saved memories that fit
 * `memoryBudget` in order, and the bound tool schemas.
 *
 * @example
 * ```ts
 * const fixed = chargeFixedPart(input, messages, walk.lead, budget.memoryBudget, estimator);
 * const room = budget.promptLimit - fixed.tokens;
 * ```
 */
export function chargeFixedPart(
  input: BuildContextInput,
  source: readonly MessageInput[],
  lead: number,
  memoryBudget: number,
  estimator: Estimator,
): FixedPart {
  const systemText = systemPromptText(input.systemPrompt, source, lead);
  const memories = selectMemoriesInOrder(listOption("memories", input.memories), memoryBudget, estimator);
  const systemContent = [systemText, memories.block].filter((part) => part !== "").join("\n\n");
  const systemMessage = systemContent === "" ? null : new SystemMessage(systemContent);
  const systemTokens = systemText === "" ? 0 : estimator.estimateMessage(new SystemMessage(systemText));
  const systemTotal = systemMessage ? estimator.estimateMessage(systemMessage) : 0;
  const toolTokens = estimator.estimateTools(listOption("tools", input.tools));
  return {
    systemMessage,
    systemText,
    systemTokens,
    memoryTokens: systemTotal - systemTokens,
    toolTokens,
    memoriesKept: memories.kept,
    tokens: systemTotal + toolTokens,
  };
}

/** An optional list option: `undefined` is empty; anything but an array is refused naming the field. */
function listOption<T>(field: string, value: readonly T[] | undefined): readonly T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ContextViewError("INVALID_OPTION", `Expected \`${field}\` to be an array, got ${describeValue(value)}`, { field });
  return value;
}

function systemPromptText(systemPrompt: BuildContextInput["systemPrompt"], source: readonly MessageInput[], lead: number): string {
  if (systemPrompt !== undefined) {
    if (typeof systemPrompt === "string") return systemPrompt;
    if (systemPrompt !== null && typeof systemPrompt === "object" && "content" in systemPrompt) return textOf(systemPrompt.content);
    throw new ContextViewError("INVALID_OPTION", `Expected \`systemPrompt\` to be a string or a SystemMessage, got ${describeValue(systemPrompt)}`, { field: "systemPrompt" });
  }
  const parts: string[] = [];
  for (let i = 0; i < lead; i++) parts.push(textOf(toBaseMessage(source[i] as MessageInput, i).content));
  return parts.filter((part) => part !== "").join("\n\n");
}

function selectMemoriesInOrder(memories: readonly string[], budgetTokens: number, estimator: Estimator): { block: string; kept: number } {
  if (!Array.isArray(memories)) throw new ContextViewError("INVALID_OPTION", `Expected \`memories\` to be an array of strings, got ${describeValue(memories)}`, { field: "memories" });
  memories.forEach((memory, index) => {
    if (typeof memory !== "string") throw new ContextViewError("INVALID_OPTION", `Expected \`memories[${index}]\` to be a string, got ${describeValue(memory)}`, { field: `memories[${index}]` });
  });
  let used = memoryBlockCost.header(estimator);
  const kept: string[] = [];
  for (const memory of memories) {
    const tokens = memoryBlockCost.line(estimator, memory);
    if (used + tokens > budgetTokens) break;
    used += tokens;
    kept.push(memory);
  }
  return { block: renderMemoryBlock(kept), kept: kept.length };
}
