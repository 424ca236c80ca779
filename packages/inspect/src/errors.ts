import { ContextViewBaseError } from "@contextview/core";

/**
 * Every `code` an inspector error can carry. Stable: match on it, not on messages.
 *
 * - `INVALID_ARGUMENT`: a command-line argument or option is missing or malformed.
 * - `MISSING_PACKAGE`: an optional package the request needs is not installed.
 * - `NOT_FOUND`: the checkpoint file, thread or view records asked for do not exist.
 * - `BUSY`: `--serve` already has as many page builds waiting as it takes (answered with 503).
 */
export type InspectErrorCode = "INVALID_ARGUMENT" | "MISSING_PACKAGE" | "NOT_FOUND" | "BUSY";

const MARK = Symbol.for("contextview.inspect.error");

/**
 * The error class of `@contextview/inspect` (a `ContextViewBaseError`), with a stable `code` and the `field`
 * (argument or option) it is about.
 *
 * @example
 * ```ts
 * try {
 *   await openSqliteSources({ checkpoints: "missing.sqlite" });
 * } catch (error) {
 *   if (InspectError.isInstance(error) && error.code === "NOT_FOUND") console.error(error.message);
 * }
 * ```
 */
export class InspectError extends ContextViewBaseError<InspectErrorCode> {
  override readonly name = "InspectError";
  readonly field: string | undefined;

  constructor(code: InspectErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause }, MARK);
    this.field = options.field;
  }

  /** True for an InspectError, also from another copy of this package. */
  static override isInstance(value: unknown): value is InspectError {
    return ContextViewBaseError.hasClassMark(value, MARK);
  }
}
