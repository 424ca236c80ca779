import { ContextViewBaseError } from "@contextview/core";

/**
 * Every `code` a {@link ContextIntegrationError} can carry. Stable: match on it, not on messages.
 *
 * - `INVALID_OPTION`: a factory option is missing or out of range (named in the message).
 * - `INVALID_REQUEST_CONFIG`: a request's settings (runtime `context`, `configurable.context`) are invalid, or a
 *   setting or an id is where nothing reads it (the message says where it belongs).
 * - `MISSING_CONVERSATION_KEY`: a `thread_id` or user id that is given but not a non-empty string; no `thread_id`
 *   in a graph with a checkpointer; no user id with `memories`.
 * - `INVALID_STATE`: the graph state has no message list where one is expected.
 * - `MISSING_PEER_DEPENDENCY`: an optional peer dependency (`prom-client`) is not installed.
 */
export type ContextIntegrationErrorCode =
  | "INVALID_OPTION"
  | "INVALID_REQUEST_CONFIG"
  | "MISSING_CONVERSATION_KEY"
  | "INVALID_STATE"
  | "MISSING_PEER_DEPENDENCY"
  | "STREAM_STALLED";

/** Registered globally so that duplicate copies of this package agree. */
const MARK = Symbol.for("contextview.langgraph.error");

/**
 * Base class of every error `@contextview/langgraph` throws itself (a
 * `ContextViewBaseError`, as every contextview error). Errors of the
 * view (budget, messages, store) stay `@contextview/core` errors and pass through.
 *
 * `ContextIntegrationError.isInstance(err)` also recognises errors thrown by
 * another copy of this package.
 *
 * @example
 * ```ts
 * try {
 *   await graph.invoke(input, { configurable: { thread_id, user_id, context: { budget: { promptBudget: -1 } } } });
 * } catch (err) {
 *   if (ContextIntegrationError.isInstance(err) && err.code === "INVALID_REQUEST_CONFIG") {
 *     console.error(err.field, err.message); // "context.budget.promptBudget", "Expected `context.budget.promptBudget` …"
 *   }
 * }
 * ```
 */
export class ContextIntegrationError extends ContextViewBaseError<ContextIntegrationErrorCode> {
  override readonly name: string = "ContextIntegrationError";
  /** The option or config field at fault, when there is one (e.g. `context.budget.promptBudget`). */
  readonly field: string | undefined;

  constructor(code: ContextIntegrationErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause }, MARK);
    this.field = options.field;
  }

  /** True for any error of this package, whichever copy threw it. */
  static override isInstance(value: unknown): value is ContextIntegrationError {
    return ContextViewBaseError.hasClassMark(value, MARK);
  }
}
