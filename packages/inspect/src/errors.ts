/**
 * Every `code` an inspector error can carry. Stable: match on it, not on messages.
 *
 * - `INVALID_ARGUMENT`: a command-line argument or option is missing or malformed.
 * - `MISSING_PACKAGE`: an optional package the request needs is not installed.
 * - `NOT_FOUND`: the checkpoint file, thread or view records asked for do not exist.
 */
export type InspectErrorCode = "INVALID_ARGUMENT" | "MISSING_PACKAGE" | "NOT_FOUND";

const MARK = Symbol.for("contextview.inspect.error");

/**
 * The error class of `@contextview/inspect`, with a stable `code` and the `field`
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
export class InspectError extends Error {
  override readonly name = "InspectError";
  readonly code: InspectErrorCode;
  readonly field: string | undefined;

  constructor(code: InspectErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.field = options.field;
    Object.defineProperty(this, MARK, { value: true, enumerable: false });
  }

  /** True for an InspectError, also from another copy of this package. */
  static isInstance(value: unknown): value is InspectError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARK] === true;
  }
}
