/** `setImmediate` where there is one (Node); browsers and edge runtimes have only timers. */
const yieldToEventLoop: (resolve: () => void) => unknown =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function" ? (resolve) => setImmediate(resolve) : (resolve) => setTimeout(resolve, 0);

/**
 * Cuts long synchronous work (hashing, extraction) into slices so that an update
 * of a large history does not block the event loop: callers check `due()` between
 * small steps and `await pause()` when it is true. A pause also honours the
 * caller's AbortSignal, so a cancelled update stops before it writes anything.
 */
export class Slicer {
  private started = performance.now();

  constructor(
    private readonly signal: AbortSignal | undefined,
    /** Milliseconds of work between two pauses. */
    private readonly sliceMs = 4,
  ) {}

  /** True when the current slice has used its time. */
  due(): boolean {
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Let the event loop run, then start a new slice; rejects if the signal was aborted. */
  async pause(): Promise<void> {
    await new Promise<void>(yieldToEventLoop);
    this.signal?.throwIfAborted();
    this.started = performance.now();
  }
}
