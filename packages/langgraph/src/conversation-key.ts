import type { ConversationKey } from "@contextview/core/store";
import type { RunnableConfig } from "@langchain/core/runnables";
import { describeValue } from "@contextview/core/internal";
import { ContextIntegrationError } from "./errors.js";
import { runtimeContextOf, type RequestConfig } from "./runtime-context.js";

/**
 * What keys a request's stored state (see `report.scope`): `user` — the thread of one
 * user; `thread` — the thread alone, as LangGraph keys its checkpoints (no user id);
 * `stateless` — no thread id, nothing read from or written to the store.
 */
export type ConversationScope = "user" | "thread" | "stateless";

/**
 * The user id under which the state of a request without a user is kept: the thread
 * alone is its scope. Not a valid user id of a request (it is refused), so no user's
 * state is ever mixed with it.
 *
 * @example
 * ```ts
 * await deleteConversation({ checkpointer, store }, { threadId: "t-1" }); // deletes (NO_USER_ID, "t-1")
 * ```
 */
export const NO_USER_ID = "(no user)";

/** The conversation id of stateless requests: it names them in logs and never reaches a store. */
export const NO_THREAD_ID = "(no thread)";

/** The key of a request and what it scopes. */
export interface RequestKey {
  key: ConversationKey;
  scope: ConversationScope;
}

const absent = (value: unknown): boolean => value === undefined || value === null;

function expectedString(field: string, value: unknown, what: string): ContextIntegrationError {
  const message = `Expected \`${field}\` to be a non-empty string (${what}) or absent, got ${describeValue(value)}`;
  return new ContextIntegrationError("MISSING_CONVERSATION_KEY", message, { field });
}

/** The thread id, or undefined; refuses one given in the runtime context only, and a checkpointer without one. */
function threadIdOf(configurable: Record<string, unknown>, context: Record<string, unknown> | undefined): string | undefined {
  const threadId = configurable["thread_id"];
  if (!absent(threadId)) {
    if (typeof threadId !== "string" || threadId === "") throw expectedString("config.configurable.thread_id", threadId, "the conversation");
    return threadId;
  }
  for (const name of ["thread_id", "threadId"]) {
    if (absent(context?.[name])) continue;
    throw new ContextIntegrationError(
      "INVALID_REQUEST_CONFIG",
      `Found \`context.${name}\` but no \`config.configurable.thread_id\`: ` +
        "LangGraph reads the thread id from `configurable` only; pass `{ configurable: { thread_id } }`",
      { field: `context.${name}` },
    );
  }
  // LangGraph sets its checkpointer in `configurable`; it would fail to save this run's checkpoint after our view.
  if (!absent(configurable["__pregel_checkpointer"])) {
    throw new ContextIntegrationError(
      "MISSING_CONVERSATION_KEY",
      "Expected `config.configurable.thread_id` to be a non-empty string: this graph has a checkpointer, which keeps each conversation under its thread id",
      { field: "config.configurable.thread_id" },
    );
  }
  return undefined;
}

/** The user id from `configurable.user_id` or the runtime context (`userId`, `user_id`), or undefined; two different ones are an error. */
function givenUserId(configurable: Record<string, unknown>, context: Record<string, unknown> | undefined): string | undefined {
  const given: [string, unknown][] = [
    ["config.configurable.user_id", configurable["user_id"]],
    ["context.userId", context?.["userId"]],
    ["context.user_id", context?.["user_id"]],
  ];
  let found: [string, string] | undefined;
  for (const [field, value] of given) {
    if (absent(value)) continue;
    if (typeof value !== "string" || value === "") throw expectedString(field, value, "the authenticated user");
    if (found !== undefined && found[1] !== value) {
      const message = `\`${found[0]}\` (${describeValue(found[1])}) and \`${field}\` (${describeValue(value)}) name two different users: give one`;
      throw new ContextIntegrationError("INVALID_REQUEST_CONFIG", message, { field });
    }
    found ??= [field, value];
  }
  if (found === undefined && !absent(configurable["userId"])) {
    throw new ContextIntegrationError(
      "INVALID_REQUEST_CONFIG",
      "Found `config.configurable.userId` but no user id where it is read: pass `configurable.user_id` or the runtime `context.userId`",
      { field: "config.configurable.userId" },
    );
  }
  return found?.[1];
}

/**
 * The conversation key of a request and its scope. The thread is
 * `config.configurable.thread_id`; the user comes from `resolveUserId(config)` when
 * that option is given, else from `config.configurable.user_id` or the runtime
 * `context.userId` (or `context.user_id`). Either may be absent:
 *
 * - no user id: the thread alone is the scope, as for LangGraph's checkpoint (the state
 *   is kept under {@link NO_USER_ID}), so callers that share a thread id share it;
 * - no thread id (and no checkpointer): the request is stateless.
 *
 * A value that is given but not a non-empty string, an id in a place nothing reads it
 * from, and a checkpointer without a thread id are errors that name the field.
 *
 * @example
 * ```ts
 * conversationKeyOf({ configurable: { thread_id: "t-1", user_id: "u-1" } }); // { key: { userId: "u-1", conversationId: "t-1" }, scope: "user" }
 * conversationKeyOf({ configurable: { thread_id: "t-1" }, context: { userId: "u-1" } }); // the same
 * conversationKeyOf({ configurable: { thread_id: "t-1" } }); // { key: { userId: NO_USER_ID, conversationId: "t-1" }, scope: "thread" }
 * conversationKeyOf({}); // { key: { userId: NO_USER_ID, conversationId: NO_THREAD_ID }, scope: "stateless" }
 * ```
 */
export function conversationKeyOf(config: RequestConfig | undefined, resolveUserId?: (config: RunnableConfig) => string | undefined): RequestKey {
  const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
  const context = runtimeContextOf(config);
  const threadId = threadIdOf(configurable, context);
  let userId: string | undefined;
  if (resolveUserId) {
    const resolved: unknown = resolveUserId(config ?? {});
    const wrong = !absent(resolved) && (typeof resolved !== "string" || resolved === "");
    if (wrong) throw expectedString("resolveUserId(config)", resolved, "the authenticated user");
    userId = absent(resolved) ? undefined : (resolved as string);
  } else {
    userId = givenUserId(configurable, context);
  }
  if (userId === NO_USER_ID) {
    const message = `The user id ${JSON.stringify(NO_USER_ID)} is reserved for requests without a user: leave the user id out instead`;
    throw new ContextIntegrationError("INVALID_REQUEST_CONFIG", message, { field: resolveUserId ? "resolveUserId(config)" : "config.configurable.user_id" });
  }
  const scope: ConversationScope = threadId === undefined ? "stateless" : userId === undefined ? "thread" : "user";
  return { key: { userId: userId ?? NO_USER_ID, conversationId: threadId ?? NO_THREAD_ID }, scope };
}
