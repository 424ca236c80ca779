import type { ContextStore } from "@contextview/core";
import { NO_USER_ID } from "./conversation-key.js";
import { ContextIntegrationError } from "./errors.js";
import { describeValue } from "@contextview/core/internal";

/** A checkpointer that can delete a thread (every LangGraph saver can). */
export interface ThreadDeleter {
  deleteThread(threadId: string): Promise<void>;
}

/**
 * Delete a conversation everywhere: the context state (evidence, summary cache,
 * calibration, view records) of `(userId, threadId)`, then the thread's checkpoints and writes.
 * Without `userId`, the state of the thread's requests that had no user id (kept under
 * `NO_USER_ID`, the thread alone its scope) is deleted.
 * The context state goes first: if deleting checkpoints then fails, the next
 * request rebuilds evidence from the checkpoints that remain, whereas the other
 * order could leave evidence of a deleted conversation behind. Authorize the
 * caller before calling this; it deletes the whole thread's checkpoints.
 *
 * @example
 * ```ts
 * await deleteConversation({ checkpointer, store }, { userId: "u-1", threadId: "t-1" });
 * await deleteConversation({ checkpointer, store }, { threadId: "t-2" }); // a thread used without user ids
 * ```
 */
export async function deleteConversation(
  targets: { checkpointer: ThreadDeleter; store: Pick<ContextStore, "deleteConversation"> },
  conversation: { userId?: string; threadId: string },
): Promise<void> {
  const checkpointer = targets?.checkpointer;
  const store = targets?.store;
  if (typeof checkpointer?.deleteThread !== "function") {
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`checkpointer\` to be a LangGraph checkpointer with deleteThread(), got ${describeValue(checkpointer)}`, { field: "checkpointer" });
  }
  if (typeof store?.deleteConversation !== "function") {
    throw new ContextIntegrationError("INVALID_OPTION", `Expected \`store\` to be a ContextStore with deleteConversation(), got ${describeValue(store)}`, { field: "store" });
  }
  const { userId = NO_USER_ID, threadId } = conversation ?? ({} as { userId?: string; threadId: string });
  for (const [field, value] of [["userId", userId], ["threadId", threadId]] as const) {
    if (typeof value !== "string" || value === "") {
      throw new ContextIntegrationError("INVALID_OPTION", `Expected \`${field}\` to be a non-empty string, got ${describeValue(value)}`, { field });
    }
  }
  await store.deleteConversation(userId, threadId);
  await checkpointer.deleteThread(threadId);
}
