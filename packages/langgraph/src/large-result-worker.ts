// The worker thread of large-results.ts: receives a large JSON tool result in slices
// (each copy between threads is short), then a job: the result's compaction floors
// (core's computeLargeResultFloors), or a recall answer on it (recall-in-worker.ts),
// posted back with the job's id.
import { parentPort } from "node:worker_threads";
import { computeLargeResultFloors, type LargeResultJob } from "@contextview/core/tool-results";
import type { WorkerJobKind } from "./large-results.js";
import { answerRecallJob, type RecallJob } from "./recall-in-worker.js";

/** The slices of each job's text received so far. */
const texts = new Map<number, string[]>();

type Message = { id: number; slice: string } | { id: number; kind: WorkerJobKind; job: object } | { id: number; cancel: true };

parentPort?.on("message", (message: Message) => {
  if ("slice" in message) {
    const slices = texts.get(message.id) ?? [];
    slices.push(message.slice);
    texts.set(message.id, slices);
    return;
  }
  const slices = texts.get(message.id);
  texts.delete(message.id);
  if ("cancel" in message) return;
  const text = slices?.join("");
  try {
    const result =
      message.kind === "floors" ? computeLargeResultFloors({ ...(message.job as Omit<LargeResultJob, "text">), text: text ?? "" }) : answerRecallJob(message.job as RecallJob, text);
    parentPort?.postMessage({ id: message.id, result });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
