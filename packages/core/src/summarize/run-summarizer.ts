import type { Summarizer } from "./summarizer.js";

/**
 * Why a summary failed: the summarizer threw (`error`), answered nothing visible
 * (`empty`: null, not a string, or only whitespace and invisible characters), answered
 * more than {@link MAX_SUMMARY_CHARS} (`too-long`), was slower than the timeout, or
 * the request was cancelled.
 */
export type SummaryFailureReason = "error" | "empty" | "too-long" | "timeout" | "aborted";

/** Outcome of summarizing a transcript in chunks. */
export type SummaryOutcome =
  | { ok: true; text: string; calls: number; transcriptChars: number }
  | { ok: false; reason: SummaryFailureReason; calls: number; transcriptChars: number; error?: unknown };

/** Longest summary accepted, in characters; a longer reply is junk, not a summary. */
export const MAX_SUMMARY_CHARS = 40_000;

export { isInvisibleText } from "./invisible-text.js";
import { isInvisibleText } from "./invisible-text.js";

/**
 * Fold `chunks` into one summary, chunk by chunk, each call given the running
 * summary. Any throw, null, empty, invisible or oversized reply, timeout or abort
 * fails the whole summary: a partial or error text is never returned as a summary.
 */
export async function runSummarizer(
  summarizer: Summarizer,
  chunks: readonly string[],
  previous: string | null,
  bounds: { timeoutMs: number; maxTokens: number },
  signal?: AbortSignal,
): Promise<SummaryOutcome> {
  const { timeoutMs, maxTokens } = bounds;
  let running = previous;
  let calls = 0;
  const transcriptChars = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  for (let i = 0; i < chunks.length; i++) {
    if (signal?.aborted) return { ok: false, reason: "aborted", calls, transcriptChars };
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => {
        controller.abort(new Error(`summarizer timed out after ${timeoutMs} ms`));
        resolve("timeout");
      }, timeoutMs);
    });
    calls++;
    try {
      const reply = await Promise.race([
        summarizer(chunks[i] as string, { previousSummary: running, chunk: i + 1, chunks: chunks.length, maxTokens, signal: controller.signal }),
        timeout,
      ]);
      if (reply === "timeout") return { ok: false, reason: "timeout", calls, transcriptChars };
      if (signal?.aborted) return { ok: false, reason: "aborted", calls, transcriptChars };
      if (typeof reply !== "string" || isInvisibleText(reply)) return { ok: false, reason: "empty", calls, transcriptChars };
      const text = reply.trim();
      if (text.length > MAX_SUMMARY_CHARS) return { ok: false, reason: "too-long", calls, transcriptChars };
      running = text;
    } catch (error) {
      return { ok: false, reason: signal?.aborted ? "aborted" : "error", calls, transcriptChars, error };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }
  return running === null ? { ok: false, reason: "empty", calls, transcriptChars } : { ok: true, text: running, calls, transcriptChars };
}
