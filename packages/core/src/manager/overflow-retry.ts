/**
 * The one overflow rule of every integration: when the model call fails (or
 * answers) with a context overflow, build a smaller view and call once more; a
 * second overflow surfaces. The manager's `run`, the LangGraph node's
 * `withOverflowRecovery`, the chat-model wrapper and the agent middleware all
 * recover through these two functions.
 */

/** The steps of a model call that may overflow. */
export interface OverflowRetrySteps<T> {
  /** The detector (`isContextOverflow` by default). */
  isOverflow(errorOrResponse: unknown): boolean;
  /** Call the model with the first view. */
  call(): Promise<T>;
  /** Build the smaller view and call the model with it; whatever it throws or answers surfaces. */
  retry(): Promise<T>;
  /**
   * What of a result may say the prompt was too long (a reply's finish reason).
   * @default the result itself
   */
  replyOf?(result: T): unknown;
}

/**
 * Call, and once more through `retry` after an overflow (thrown, or said by the reply).
 *
 * @example
 * ```ts
 * const { result, recovered } = await retryOnOverflow({
 *   isOverflow: isContextOverflow,
 *   call: () => model.invoke(view.messages),
 *   retry: async () => model.invoke((await manager.build({ ...request, harder: true })).messages),
 * });
 * ```
 */
export async function retryOnOverflow<T>(steps: OverflowRetrySteps<T>): Promise<{ result: T; recovered: boolean }> {
  try {
    const result = await steps.call();
    if (!steps.isOverflow(steps.replyOf ? steps.replyOf(result) : result)) return { result, recovered: false };
  } catch (error) {
    if (!steps.isOverflow(error)) throw error;
  }
  return { result: await steps.retry(), recovered: true };
}

/**
 * Stream, and once more from `retry` after an overflow thrown before the first
 * chunk; once a chunk went out, an overflow surfaces (the caller has seen it).
 *
 * @example
 * ```ts
 * for await (const chunk of streamRetryOnOverflow({
 *   isOverflow: isContextOverflow,
 *   call: () => model.stream(view.messages),
 *   retry: async () => model.stream((await manager.build({ ...request, harder: true })).messages),
 * })) process.stdout.write(String(chunk.content));
 * ```
 */
export async function* streamRetryOnOverflow<T>(steps: {
  isOverflow(errorOrResponse: unknown): boolean;
  call(): Promise<AsyncIterable<T>>;
  retry(): Promise<AsyncIterable<T>>;
}): AsyncGenerator<T> {
  let started = false;
  try {
    for await (const chunk of await steps.call()) {
      started = true;
      yield chunk;
    }
    return;
  } catch (error) {
    if (started || !steps.isOverflow(error)) throw error;
  }
  yield* await steps.retry();
}
