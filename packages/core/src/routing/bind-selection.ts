import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessageChunk } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { invalidOption } from "../errors.js";
import type { ToolSelection } from "./types.js";

/** Options of {@link bindSelection}. */
export interface BindSelectionOptions {
  /**
   * Models tried in order when the primary fails; each is bound to the same selected tools.
   * @default []
   */
  fallbacks?: readonly BaseChatModel[];
}

/** A chat model bound to a selection (with its fallbacks). */
export type SelectedModel = Runnable<BaseLanguageModelInput, AIMessageChunk>;

function bind(model: unknown, field: string, selection: ToolSelection): SelectedModel {
  const bindTools = (model as { bindTools?: unknown } | null)?.bindTools;
  if (typeof bindTools !== "function") throw invalidOption(field, "a chat model with `bindTools`", model);
  // Some providers reject an empty tool list; an unbound model is the same request.
  if (selection.tools.length === 0) return model as SelectedModel;
  return (model as BaseChatModel).bindTools?.([...selection.tools]) as SelectedModel;
}

/**
 * Bind the selected tools to the primary model and to every fallback, so whichever
 * model answers sees exactly the schemas the view was charged for.
 *
 * @example
 * ```ts
 * const selection = router.select({ messages: state.messages, config });
 * const reply = await bindSelection(primary, selection, { fallbacks: [backup] }).invoke(state.llmInputMessages, config);
 * ```
 */
export function bindSelection(model: BaseChatModel, selection: ToolSelection, options: BindSelectionOptions = {}): SelectedModel {
  const primary = bind(model, "model", selection);
  const fallbacks = options.fallbacks ?? [];
  if (!Array.isArray(fallbacks)) throw invalidOption("fallbacks", "an array of chat models", fallbacks);
  if (fallbacks.length === 0) return primary;
  return primary.withFallbacks(fallbacks.map((fallback, i) => bind(fallback, `fallbacks[${i}]`, selection))) as unknown as SelectedModel;
}
