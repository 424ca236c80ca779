import { ContextViewError } from "../errors.js";

/**
 * How a store reports a compaction-state read or write it could not do (the model
 * call goes on without the cache): the application's `onCompactionError`, checked
 * once, or `fallback`. A reporter that throws is ignored: a failing reporter must not
 * turn "no cache" into a failed model call.
 *
 * @example
 * ```ts
 * this.report = compactionErrorReporter(options.onCompactionError, (error) => process.emitWarning(error));
 * ```
 */
export function compactionErrorReporter(option: unknown, fallback: (error: ContextViewError) => void): (error: ContextViewError) => void {
  if (option !== undefined && typeof option !== "function") {
    throw new ContextViewError("INVALID_OPTION", "Expected `onCompactionError` to be a function (error) => void", { field: "onCompactionError" });
  }
  const report = (option as ((error: ContextViewError) => void) | undefined) ?? fallback;
  return (error) => {
    try {
      report(error);
    } catch {
      // Ignored, as above.
    }
  };
}
