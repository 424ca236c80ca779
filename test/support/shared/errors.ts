/**
 * What `run` throws: the error itself when `isInstance` accepts it (or none is given);
 * any other error is thrown on, and a `run` that throws nothing fails the test.
 *
 * @example
 * ```ts
 * const error = thrownBy(() => buildContext({ messages: [], clearStep: 0 }), (e) => ContextViewError.isInstance(e));
 * expect(error.field).toBe("clearStep");
 * ```
 */
export function thrownBy<E = unknown>(run: () => unknown, isInstance?: (error: unknown) => boolean): E {
  try {
    run();
  } catch (error) {
    if (isInstance === undefined || isInstance(error)) return error as E;
    throw error;
  }
  throw new Error("expected an error");
}
