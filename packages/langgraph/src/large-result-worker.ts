// The worker thread of large-results.ts: receives a large JSON tool result in slices
// (each copy between threads is short), computes its compaction with core's
// computeLargeResultFloors and posts the projections back with the job's id.
import { parentPort } from "node:worker_threads";
import { computeLargeResultFloors, type LargeResultJob } from "@contextview/core";

/** The slices of each job's text received so far. */
const texts = new Map<number, string[]>();

parentPort?.on("message", (message: { id: number; slice: string } | { id: number; job: Omit<LargeResultJob, "text"> } | { id: number; cancel: true }) => {
  if ("slice" in message) {
    const slices = texts.get(message.id) ?? [];
    slices.push(message.slice);
    texts.set(message.id, slices);
    return;
  }
  const text = (texts.get(message.id) ?? []).join("");
  texts.delete(message.id);
  if ("cancel" in message) return;
  try {
    parentPort?.postMessage({ id: message.id, floors: computeLargeResultFloors({ ...message.job, text }) });
  } catch (error) {
    parentPort?.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) });
  }
});
