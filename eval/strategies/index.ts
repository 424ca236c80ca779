import type { Strategy } from "../types.js";
import { buildContextStrategy, contextNodeStrategy } from "./contextview.js";
import { contextEditingStrategy, lastNStrategy, summarizationStrategy, trimMessagesStrategy } from "./langchain.js";

/** Every system compared, contextview first. */
export const STRATEGIES: readonly Strategy[] = [buildContextStrategy, contextNodeStrategy, trimMessagesStrategy, summarizationStrategy, contextEditingStrategy, lastNStrategy];

export { buildContextStrategy, contextNodeStrategy, contextEditingStrategy, lastNStrategy, summarizationStrategy, trimMessagesStrategy };
