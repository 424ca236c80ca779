import { chatModelSummarizer, type Summarizer } from "@contextview/core";
import { describeValue } from "@contextview/core/internal";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { ContextIntegrationError } from "./errors.js";

/** A chat model that can write summaries: anything with LangChain's `invoke(messages, options)`. */
export type SummarizerModel = Pick<BaseChatModel, "invoke">;

/** What the `summarizer` option of the integrations accepts. */
export type SummarizerOption = Summarizer | SummarizerModel | null;

/**
 * The `summarizer` option as the core manager takes it: a chat model is wrapped in
 * `chatModelSummarizer(model)` (contextview's summary prompt, its own callbacks and
 * `nostream` tags), a function is kept, `null` and `undefined` pass. Anything else is
 * `INVALID_OPTION` naming `summarizer`.
 *
 * @example
 * ```ts
 * summarizerOf(new ChatOpenAI({ model: "gpt-4.1-mini" })); // chatModelSummarizer(model)
 * summarizerOf(async (transcript) => transcript.slice(0, 200)); // the function itself
 * ```
 */
export function summarizerOf(value: unknown): Summarizer | null | undefined {
  if (value === undefined || value === null || typeof value === "function") return value as Summarizer | null | undefined;
  if (typeof value === "object" && typeof (value as { invoke?: unknown }).invoke === "function") return chatModelSummarizer(value as SummarizerModel);
  throw new ContextIntegrationError(
    "INVALID_OPTION",
    "Expected `summarizer` to be a chat model (as LangChain's summarizationMiddleware takes), " +
      `a function (transcript, context) => Promise<string | null>, or null, got ${describeValue(value)}`,
    { field: "summarizer" },
  );
}
