import type { BaseMessage } from "@langchain/core/messages";
import { ContextViewError, describeValue } from "../errors.js";
import { copyMessage, kindOf, type MessageInput } from "../messages.js";

/**
 * The field of `additional_kwargs` that pins a message: `true` keeps the message in
 * every view (see {@link pinMessage}). Providers' converters ignore unknown
 * `additional_kwargs` fields, and the field survives LangGraph checkpoints. Whoever
 * writes a message can set it, a client too: `trustPinField: false` makes it pin nothing.
 *
 * @example
 * ```ts
 * new HumanMessage({ content: "Never touch prod.", additional_kwargs: { [PIN_FIELD]: true } }); // same as pinMessage(…)
 * ```
 */
export const PIN_FIELD = "contextview_pinned";

/**
 * A copy of `message` marked as pinned: it stays in every view, in the pinned block
 * after the opening request, once its turn has left the view (within `pinnedBudget`).
 * Pinning a tool result pins its call and all the call's results; pinning a
 * tool-calling AI message pins its results. The copy keeps the id, so returning it
 * from a node pins a message already in the state (the messages reducer replaces
 * a message by id). The original is not touched. With `trustPinField: false` the
 * field it writes pins nothing (pin with the factory's `pin` predicate instead).
 *
 * @example
 * ```ts
 * await graph.invoke({ messages: [pinMessage(new HumanMessage("Constraint: never use the prod database."))] }, config);
 * ```
 */
export function pinMessage<T extends BaseMessage>(message: T): BaseMessage {
  if (message === null || typeof message !== "object" || typeof (message as BaseMessage).type !== "string") {
    throw new ContextViewError("INVALID_MESSAGES", `Expected \`message\` to be a chat message (BaseMessage), got ${describeValue(message)}`, { field: "message" });
  }
  const copy = copyMessage(message, kindOf(message, 0));
  copy.additional_kwargs = { ...copy.additional_kwargs, [PIN_FIELD]: true };
  return copy;
}

/**
 * True when a message, as given or serialized by LangChain/LangGraph, carries the
 * pin field. Reads a few fields only; never constructs or validates the message.
 */
export function isMarkedPinned(value: MessageInput | undefined): boolean {
  if (typeof value !== "object" || value === null) return false;
  // Called on every message of a conversation: BaseMessages always carry their own
  // `additional_kwargs`, so they cost one field read and one key lookup.
  const own = (value as { additional_kwargs?: unknown }).additional_kwargs;
  if (own !== undefined) return pinnedIn(own);
  // Serialized forms: { lc: 1, type: "constructor", kwargs } and { type, data }.
  const record = value as Record<string, unknown>;
  const nested = (record["kwargs"] ?? record["data"]) as Record<string, unknown> | undefined;
  return typeof nested === "object" && nested !== null && pinnedIn(nested["additional_kwargs"]);
}

function pinnedIn(kwargs: unknown): boolean {
  return typeof kwargs === "object" && kwargs !== null && (kwargs as Record<string, unknown>)[PIN_FIELD] === true;
}
