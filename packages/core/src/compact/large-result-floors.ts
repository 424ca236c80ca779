// Large JSON tool results compacted without blocking: their projections are computed
// in another thread (the LangGraph package runs a worker) and handed to the memo of
// compaction, so that the synchronous view build reads them off instead of parsing and
// projecting a payload of many megabytes on the caller's event loop.
import { ToolMessage } from "@langchain/core/messages";
import { ContextViewError, invalidOption } from "../errors.js";
import { createEstimator, portableEstimatorSpec, type Estimator, type PortableEstimatorSpec } from "../estimate.js";
import { Slicer } from "../evidence/slicer.js";
import { kindOf, toBaseMessage, type MessageInput } from "../messages.js";
import { artifactJsonInSlices } from "./artifact-json.js";
import { attemptAt, NOT_JSON, parseJsonTree, splitContent, startsJsonTree, type Memo, type TreeSource } from "./compact-tool-result.js";
import { compactionMarkerOf } from "./marker.js";
import { resolveCompactOptions, type ResolvedCompactOptions } from "./options.js";
import type { ReferenceMode } from "./project.js";
import { freshMemo, knownNotJson, memoOf, rememberNotJson, type Attempt, type Ladder } from "./result-memo.js";

/**
 * Tool results with at least this many characters of JSON content (1 MiB) are
 * computed in another thread when the manager has `largeResults`.
 *
 * @example
 * ```ts
 * if (text.length >= LARGE_RESULT_CHARS) await workerLargeResults({ text, estimator: spec, maxTokens });
 * ```
 */
export const LARGE_RESULT_CHARS = 1 << 20;
/** Characters of projection JSON one result may hand back: beyond them its ladder stops (incomplete) and the rest is computed where needed. */
const LADDER_JSON_CHARS = 1 << 23;

/**
 * One large JSON payload to compute: its text, how its tokens are counted, and the
 * largest limit it will be fitted to. Without `origin` the text is a tool result's
 * content; with it, the JSON of the artifact (or its `model_context`) compaction reads.
 */
export interface LargeResultJob {
  readonly text: string;
  readonly estimator: PortableEstimatorSpec;
  readonly maxTokens: number;
  readonly origin?: "artifact" | "model_context";
}

/**
 * What another thread computed of a large result: for a JSON payload, its
 * projections (level 0 of every reference mode, and every level of a mode whose
 * floor fits `maxTokens` until one does not); `text` when the content is not a
 * JSON object or array compaction would project.
 */
export type LargeResultFloors =
  | { readonly kind: "tree"; readonly attempts: readonly Attempt[]; readonly ladders: ReadonlyArray<readonly [ReferenceMode, Ladder]> }
  /** `notJson` when the text does not parse as JSON at all (not only nests too deep): remembered, never parsed again. */
  | { readonly kind: "text"; readonly notJson?: true };

/** Runs {@link computeLargeResultFloors} elsewhere (a worker thread): what an integration hands to the manager. */
export type LargeResultComputer = (job: LargeResultJob, signal?: AbortSignal) => Promise<LargeResultFloors>;

/**
 * Compute the projections of one large JSON content, as the compaction of a view
 * would, with default compaction options and the estimator `job.estimator` makes.
 * Pure and synchronous: meant to run in a worker thread.
 *
 * @example
 * ```ts
 * parentPort.on("message", (job) => parentPort.postMessage(computeLargeResultFloors(job)));
 * ```
 */
export function computeLargeResultFloors(job: LargeResultJob): LargeResultFloors {
  const options = resolveCompactOptions({ estimator: createEstimator(job.estimator) });
  // An artifact's JSON was read and checked as the view reads it: it is parsed as it is.
  const value = job.origin === undefined ? parseJsonTree(job.text, options) : (JSON.parse(job.text) as unknown);
  if (value === NOT_JSON) return { kind: "text", notJson: true };
  if (value === undefined) return { kind: "text" };
  const source: TreeSource = { kind: "tree", value, origin: job.origin ?? "content", trusted: false };
  const memo: Memo = freshMemo(job.text.length);
  memo.tree = { source };
  let chars = 0;
  const ladders: Array<readonly [ReferenceMode, Ladder]> = [];
  attemptAt(memo, source, options, 0, "none");
  for (const mode of ["full", "ids"] as const) {
    let attempt = attemptAt(memo, source, options, 0, mode);
    if (attempt.tokens > job.maxTokens) {
      ladders.push([mode, { top: 0, complete: true }]);
      continue;
    }
    let level = 0;
    while (attempt.shortened > 0 && attempt.tokens <= job.maxTokens && attempt.json !== undefined && chars <= LADDER_JSON_CHARS) {
      chars += attempt.json.length;
      attempt = attemptAt(memo, source, options, ++level, mode);
    }
    ladders.push([mode, { top: level, complete: attempt.shortened === 0 || attempt.tokens > job.maxTokens }]);
  }
  return { kind: "tree", attempts: [...memo.attempts.values()], ladders };
}

/**
 * Have `compute` (another thread) work out the compaction of every large JSON tool
 * result among `messages` (1 MiB of content text or more) that the memo of compaction
 * does not hold yet, and hand the results to that memo: the view built next for these
 * messages with this estimator reads them off. A result with an artifact sends the
 * JSON of what compaction reads of it, read and written in slices that yield to the
 * event loop. Only for estimators that count by default ({@link portableEstimatorSpec});
 * results compacted before, contents known not to be JSON, and computations that fail
 * are left to the view.
 *
 * @example
 * ```ts
 * await precomputeLargeResults(messages, estimator, 16000, runInWorker, signal);
 * buildContext({ messages, estimator, budget }); // parses no large result
 * ```
 */
export async function precomputeLargeResults(
  messages: readonly MessageInput[],
  estimator: Estimator,
  maxTokens: number,
  compute: LargeResultComputer,
  signal?: AbortSignal,
): Promise<number> {
  const spec = portableEstimatorSpec(estimator);
  if (spec === undefined) return 0;
  const options = resolveCompactOptions({ estimator });
  const slicer = new Slicer(signal);
  let computed = 0;
  for (let i = 0; i < messages.length; i++) {
    if (kindOf(messages[i], i) !== "tool") continue;
    const message = toBaseMessage(messages[i] as MessageInput, i) as ToolMessage;
    if (!ToolMessage.isInstance(message) || compactionMarkerOf(message) !== undefined) continue;
    const { text } = splitContent(message.content);
    if (text.length < LARGE_RESULT_CHARS) continue;
    if (message.artifact === undefined && (!startsJsonTree(text) || knownNotJson(text))) continue;
    const memo = memoOf<unknown>(text, message.artifact, undefined, options);
    if (memo.tree !== undefined || memo.precomputed !== undefined || memo.attempts.size > 0) continue;
    const job = message.artifact === undefined ? { text } : await artifactJob(message.artifact, options, slicer);
    if (job === undefined) continue;
    // A request aborted while the job was made is not sent: a computation started now would never hear of it.
    signal?.throwIfAborted();
    let floors: LargeResultFloors;
    try {
      floors = await compute({ ...job, estimator: spec, maxTokens }, signal);
    } catch {
      if (signal?.aborted === true) throw signal.reason;
      continue;
    }
    if (floors.kind === "text" && floors.notJson === true && job.origin === undefined) rememberNotJson(text);
    // Another build may have compacted it meanwhile: what it found stays.
    if (floors.kind !== "tree" || memo.tree !== undefined || memo.attempts.size > 0) continue;
    for (const attempt of floors.attempts) memo.attempts.set(`${attempt.mode}:${attempt.level}`, attempt);
    memo.precomputed = { ladders: new Map(floors.ladders), origin: job.origin ?? "content" };
    computed++;
  }
  return computed;
}

/**
 * What to send of a result with an artifact: the JSON of the payload compaction reads
 * of it when that is an object or array; nothing for an artifact the view reads as
 * text, or refuses (the view then says why).
 */
async function artifactJob(artifact: unknown, options: ResolvedCompactOptions, slicer: Slicer): Promise<Pick<LargeResultJob, "text" | "origin"> | undefined> {
  try {
    return await artifactJsonInSlices(artifact, options, slicer);
  } catch (error) {
    if (ContextViewError.isInstance(error) && error.code === "INVALID_TOOL_RESULT") return undefined;
    throw error;
  }
}

/**
 * The step of a manager that runs {@link precomputeLargeResults} before each build
 * with `compute` (its `largeResults` option), or does nothing without one; throws
 * `INVALID_OPTION` for a `compute` that is not a function.
 *
 * @example
 * ```ts
 * const precompute = largeResultStep(options.largeResults);
 * await precompute(messages, estimator, limit, signal); // then build the view
 * ```
 */
export function largeResultStep(compute: unknown): (messages: readonly MessageInput[], estimator: Estimator, maxTokens: number, signal?: AbortSignal) => Promise<void> {
  if (compute === undefined) return async () => undefined;
  if (typeof compute !== "function") throw invalidOption("largeResults", "a function (job, signal) => Promise of its floors", compute);
  return async (messages, estimator, maxTokens, signal) => {
    await precomputeLargeResults(messages, estimator, maxTokens, compute as LargeResultComputer, signal);
  };
}
