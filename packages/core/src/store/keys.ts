import { invalidOption } from "../errors.js";
import { isWellFormedText } from "../text.js";
import type { ConversationKey } from "./contracts.js";

function checkPart(field: "userId" | "conversationId", value: unknown): string {
  if (typeof value !== "string" || value === "") throw invalidOption(field, "a non-empty string", value);
  // SQLite keeps text as UTF-8, where two keys differing only in a lone surrogate would collide.
  if (!isWellFormedText(value)) throw invalidOption(field, "well-formed text (no lone surrogate)", value);
  return value;
}

/**
 * A checked, frozen copy of a conversation key. Throws `INVALID_OPTION` naming
 * `userId` or `conversationId` when either is not a non-empty, well-formed string.
 *
 * @example
 * ```ts
 * conversationKey("user-1", "thread-9"); // { userId: "user-1", conversationId: "thread-9" }
 * conversationKey("", "thread-9"); // throws: Expected `userId` to be a non-empty string, got ""
 * ```
 */
export function conversationKey(userId: unknown, conversationId: unknown): Readonly<ConversationKey> {
  return Object.freeze({ userId: checkPart("userId", userId), conversationId: checkPart("conversationId", conversationId) });
}

/**
 * The string a per-conversation `Map` in this process is keyed by. Unambiguous for any
 * two strings (the user id's length comes first), and cheaper than JSON. Not a stored
 * format: stores keep the two parts in their own columns.
 *
 * @example
 * ```ts
 * conversationMapKey({ userId: "user-1", conversationId: "thread-9" }); // "6:user-1thread-9"
 * ```
 */
export function conversationMapKey(key: Readonly<ConversationKey>): string {
  return `${key.userId.length}:${key.userId}${key.conversationId}`;
}

/**
 * {@link conversationKey} for a key object, as the compaction methods receive it.
 *
 * @example
 * ```ts
 * checkConversationKey({ userId: "user-1", conversationId: "thread-9" });
 * ```
 */
export function checkConversationKey(key: unknown): Readonly<ConversationKey> {
  if (typeof key !== "object" || key === null) throw invalidOption("key", "an object { userId, conversationId }", key);
  const record = key as Record<string, unknown>;
  return conversationKey(record["userId"], record["conversationId"]);
}
