// The recall tool's answers on a large tool result, computed in the process's worker
// thread (large-results.ts): parsing 40 MB of JSON takes the event loop half a second or
// more, so the worker parses it once and keeps it for the calls that follow, which send
// only their request. The main thread keeps a handle per message object.
import { createEstimator, type PortableEstimatorSpec } from "@contextview/core";
import { LARGE_RESULT_CHARS } from "@contextview/core/tool-results";
import { portableEstimatorSpec, recallFromMessage, resolveRecallOptions, type RecallAnswer, type RecallContext, type RecalledMessage, type RecallRequest } from "@contextview/core/internal";
import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { runInWorker } from "./large-results.js";

/** A recall request on one large tool result, as the worker receives it. */
export interface RecallJob {
  /** The message's handle: the worker keeps its parsed result under it. */
  handle: string;
  index: number;
  message: { id?: string | undefined; tool_call_id: string; name?: string | undefined };
  request: Extract<RecallRequest, { action: "rows" }>;
  options: { toolName: string; maxToolResultTokens: number; estimator: PortableEstimatorSpec; wholeArtifacts: boolean };
}

/** The worker's answer: the recall answer, or that it no longer holds the message (then the text is sent again). */
export type RecallJobResult = { answer: RecallAnswer } | { missing: true };

/** Large results the worker keeps, most recently used last. */
const KEPT_RESULTS = 4;
const kept = new Map<string, ToolMessage>();
const contexts = new Map<string, RecallContext>();

/** In the worker: answer a job on the message kept under its handle, or made from `text`. */
export function answerRecallJob(job: RecallJob, text: string | undefined): RecallJobResult {
  let message = kept.get(job.handle);
  if (message === undefined) {
    if (text === undefined) return { missing: true };
    message = new ToolMessage({ content: text, tool_call_id: job.message.tool_call_id, ...(job.message.id === undefined ? {} : { id: job.message.id }), ...(job.message.name === undefined ? {} : { name: job.message.name }) });
  }
  kept.delete(job.handle);
  kept.set(job.handle, message);
  for (const handle of kept.keys()) if (kept.size > KEPT_RESULTS) kept.delete(handle);
  const key = JSON.stringify(job.options);
  let context = contexts.get(key);
  if (context === undefined) {
    const { estimator, ...rest } = job.options;
    contexts.set(key, (context = resolveRecallOptions({ ...rest, estimator: createEstimator(estimator) })));
  }
  return { answer: recallFromMessage({ index: job.index, kind: "tool", message }, job.request, context) };
}

const handles = new WeakMap<BaseMessage, string>();
let nextHandle = 0;

/**
 * The job for a request the worker should answer: `rows` on a tool result of at least
 * `LARGE_RESULT_CHARS` characters of text content with no artifact, under an estimator
 * another thread can rebuild and no `messageDate` (a function). Undefined otherwise.
 */
export function recallJobFor(selected: RecalledMessage, request: RecallRequest, context: RecallContext): RecallJob | undefined {
  const { message } = selected;
  if (request.action !== "rows" || !ToolMessage.isInstance(message) || typeof message.content !== "string" || message.content.length < LARGE_RESULT_CHARS) return undefined;
  const estimator = portableEstimatorSpec(context.estimator);
  if (message.artifact !== undefined || estimator === undefined || context.messageDate !== undefined) return undefined;
  let handle = handles.get(message);
  if (handle === undefined) handles.set(message, (handle = String(nextHandle++)));
  return {
    handle,
    index: selected.index,
    message: { id: message.id, tool_call_id: message.tool_call_id, name: message.name },
    request,
    options: { toolName: context.toolName, maxToolResultTokens: context.maxTokens, estimator, wholeArtifacts: context.wholeArtifacts === true },
  };
}

/** Sent once per message: later jobs on it send only their request. */
const sent = new WeakSet<BaseMessage>();

/**
 * Answer a job in the worker: the message's text goes with the first job on it (and again
 * when the worker has let it go); rejects when the worker fails.
 */
export async function recallInWorker(selected: RecalledMessage, job: RecallJob): Promise<RecallAnswer> {
  const text = selected.message.content as string;
  const first = !sent.has(selected.message);
  sent.add(selected.message);
  let result = (await runInWorker("recall", first ? text : undefined, job)) as RecallJobResult;
  if ("missing" in result) result = (await runInWorker("recall", text, job)) as RecallJobResult;
  if ("missing" in result) throw new Error("the worker did not keep the tool result");
  return result.answer;
}
