import type { ConversationKey } from "@contextview/core/store";
import type { RunnableConfig } from "@langchain/core/runnables";
import { ContextIntegrationError } from "./errors.js";
import { describeValue } from "@contextview/core/internal";

/**
 * The conversation key of a request: `config.configurable.thread_id` and the
 * authenticated user, from `resolveUserId(config)` or `config.configurable.user_id`.
 * Both are required: evidence is scoped per user, so two users on one thread id
 * never share it. Throws `MISSING_CONVERSATION_KEY` naming what is missing.
 *
 * @example
 * ```ts
 * conversationKeyOf({ configurable: { thread_id: "t-1", user_id: "u-1" } }); // { userId: "u-1", conversationId: "t-1" }
 * ```
 */
export function conversationKeyOf(config: RunnableConfig | undefined, resolveUserId?: (config: RunnableConfig) => string | undefined): ConversationKey {
  const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
  const threadId = configurable["thread_id"];
  if (typeof threadId !== "string" || threadId === "") {
    throw new ContextIntegrationError(
      "MISSING_CONVERSATION_KEY",
      `Expected \`config.configurable.thread_id\` to be a non-empty string (the conversation key), got ${describeValue(threadId)}`,
      { field: "config.configurable.thread_id" },
    );
  }
  const userId = resolveUserId ? resolveUserId(config ?? {}) : configurable["user_id"];
  if (typeof userId !== "string" || userId === "") {
    const field = resolveUserId ? "resolveUserId(config)" : "config.configurable.user_id";
    throw new ContextIntegrationError(
      "MISSING_CONVERSATION_KEY",
      `Expected \`${field}\` to be a non-empty string (the authenticated user), got ${describeValue(userId)}; pass it in config.configurable or give the \`resolveUserId\` option`,
      { field },
    );
  }
  return { userId, conversationId: threadId };
}
