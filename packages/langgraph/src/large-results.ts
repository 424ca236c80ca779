// One worker thread per process, started on the first large JSON tool result and ended
// after a while without one, that computes the compaction of large results for every
// context node, wrapper and middleware of the process (see core's precomputeLargeResults),
// and the recall tool's answers on them (recall-in-worker.ts).
import type { LargeResultComputer, LargeResultFloors, LargeResultJob } from "@contextview/core/tool-results";
import { Worker } from "node:worker_threads";

/** An idle worker ends after this long; the next large result starts another. */
const IDLE_MS = 30_000;

/** What the worker computes: a large result's compaction floors, or a recall answer on one. */
export type WorkerJobKind = "floors" | "recall";

interface Pending {
  /** The thread the job was sent to: only its failure fails the job. */
  thread: Worker;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

let worker: Worker | undefined;
let idle: ReturnType<typeof setTimeout> | undefined;
let nextId = 0;
const pending = new Map<number, Pending>();

/** The worker: the built JavaScript beside this file, or (running from the sources) the TypeScript file, loaded through tsx's require hook. */
function newWorker(): Worker {
  const file = require.resolve("./large-result-worker.js");
  if (!file.endsWith(".ts")) return new Worker(file);
  const tsx = require.resolve("tsx/cjs/api");
  return new Worker(`require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(file)});`, { eval: true });
}

/** Fail the jobs sent to `thread` (a thread that ended after another started leaves the other's jobs alone). */
function failAll(thread: Worker, error: Error): void {
  for (const [id, job] of pending) {
    if (job.thread !== thread) continue;
    pending.delete(id);
    job.reject(error);
  }
}

function started(): Worker {
  if (worker !== undefined) return worker;
  const thread = newWorker();
  thread.on("message", (message: { id: number; result?: unknown; error?: string }) => {
    const job = pending.get(message.id);
    if (job === undefined) return;
    pending.delete(message.id);
    if ("result" in message) job.resolve(message.result);
    else job.reject(new Error(message.error ?? "the large-result worker failed"));
    settle();
  });
  const gone = (error: Error) => {
    if (worker === thread) worker = undefined;
    failAll(thread, error);
  };
  thread.on("error", gone);
  thread.on("exit", (code) => gone(new Error(`the large-result worker exited (code ${code})`)));
  worker = thread;
  return thread;
}

/** While jobs wait, the worker keeps the process alive (an awaited build must finish); idle, it does not, and ends after {@link IDLE_MS}. */
function settle(): void {
  if (worker === undefined) return;
  if (idle !== undefined) clearTimeout(idle);
  idle = undefined;
  if (pending.size > 0) {
    worker.ref();
    return;
  }
  worker.unref();
  const thread = worker;
  idle = setTimeout(() => {
    if (worker === thread && pending.size === 0) {
      worker = undefined;
      void thread.terminate();
    }
  }, IDLE_MS);
  idle.unref();
}

/**
 * Computes the compaction of a large JSON tool result in this process's worker
 * thread (core's `computeLargeResultFloors`): the `largeResults` the LangGraph
 * integrations give their manager unless `largeResultWorker: false`. The text is
 * copied to the worker once; only the projections come back. Rejects when the
 * worker cannot start or fails (the view then compacts the result itself) and
 * when `signal` aborts.
 *
 * @example
 * ```ts
 * createContextManager({ largeResults: workerLargeResults });
 * ```
 */
export const workerLargeResults: LargeResultComputer = ({ text, ...job }: LargeResultJob, signal?: AbortSignal) =>
  runInWorker("floors", text, job, signal) as Promise<LargeResultFloors>;

/**
 * Run one job in this process's worker thread: `text`, when given, is copied in
 * slices first (the event loop runs between them), then the job; resolves with what
 * the worker computed. Rejects when the worker cannot start or fails, and when
 * `signal` aborts.
 *
 * @example
 * ```ts
 * const floors = await runInWorker("floors", text, { estimator: spec, maxTokens: 16000 });
 * ```
 */
export function runInWorker(kind: WorkerJobKind, text: string | undefined, job: object, signal?: AbortSignal): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    let thread: Worker;
    try {
      thread = started();
    } catch (error) {
      reject(error as Error);
      return;
    }
    const id = nextId++;
    const onAbort = () => {
      pending.delete(id);
      settle();
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    pending.set(id, {
      thread,
      resolve: (result) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(result);
      },
      reject: (error) => {
        signal?.removeEventListener("abort", onAbort);
        reject(error);
      },
    });
    settle();
    void send(thread, id, kind, text ?? "", job, signal).catch((error: unknown) => pending.get(id)?.reject(error as Error));
  });
}

/** Characters copied to the worker at once: one copy of a slice takes a few milliseconds. */
const SLICE_CHARS = 1 << 19;

/** Post the text in slices, yielding to the event loop between them, then the job itself. */
async function send(thread: Worker, id: number, kind: WorkerJobKind, text: string, job: object, signal: AbortSignal | undefined): Promise<void> {
  for (let at = 0; at < text.length; at += SLICE_CHARS) {
    if (signal?.aborted === true || !pending.has(id)) {
      thread.postMessage({ id, cancel: true });
      return;
    }
    // A slice may end inside a surrogate pair: the worker joins the slices before reading them.
    thread.postMessage({ id, slice: text.slice(at, at + SLICE_CHARS) });
    await new Promise((resolve) => setImmediate(resolve));
  }
  thread.postMessage({ id, kind, job });
}

/**
 * End this process's large-result worker now (the next large result starts another):
 * its waiting jobs are rejected, and their views compact the results themselves.
 * For tests and shutdown; an idle worker ends by itself.
 *
 * @example
 * ```ts
 * await stopLargeResultWorker();
 * ```
 */
export async function stopLargeResultWorker(): Promise<void> {
  const thread = worker;
  if (thread === undefined) return;
  worker = undefined;
  if (idle !== undefined) clearTimeout(idle);
  idle = undefined;
  await thread.terminate();
}
