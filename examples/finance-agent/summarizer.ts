import type { Summarizer } from "@contextview/core";

/**
 * A deterministic stand-in for `chatModelSummarizer(model)`, so the example runs
 * without a network: it keeps the user's requests and decisions from the transcript,
 * folded into the previous summary, within a fixed size.
 */
export const extractiveSummarizer: Summarizer = async (transcript, { previousSummary }) => {
  const kept = transcript
    .split("\n")
    .filter((line) => line.startsWith("user:"))
    .map((line) => `- ${line.slice(5).trim().slice(0, 140)}`);
  const lines = [...(previousSummary ? previousSummary.split("\n").filter((line) => line.startsWith("- ")) : []), ...kept];
  // Keep the newest requests when the summary would grow past ~3,000 characters.
  let body = lines.join("\n");
  while (body.length > 3000) body = body.slice(body.indexOf("\n") + 1);
  return `Goal: track spending against the budget notes.\nRequests so far:\n${body}`;
};
