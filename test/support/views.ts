import { createEstimator } from "@contextview/core";
import type { BaseMessage } from "@langchain/core/messages";
import { brokenExchanges } from "./thread.js";

const estimator = createEstimator();

/**
 * Every view the model received fits `limit` by an independent estimate (messages
 * plus bound tools), keeps its exchanges whole, starts with a user message after
 * any system message, and ends with the current request or its tool results.
 */
export function checkViews(calls: readonly BaseMessage[][], limit: number, tools: readonly unknown[]): void {
  const toolTokens = estimator.estimateTools(tools);
  calls.forEach((view, i) => {
    const tokens = estimator.estimateMessages(view) + toolTokens;
    if (tokens > limit) throw new Error(`view ${i} is over budget: ${tokens} > ${limit}`);
    const problems = brokenExchanges(view);
    if (problems.length > 0) throw new Error(`view ${i} has a broken exchange: ${problems.join("; ")}`);
    const first = view.find((m) => m.type !== "system");
    if (first?.type !== "human") throw new Error(`view ${i} does not start with a user message`);
    if (view.slice(1).some((m) => m.type === "system")) throw new Error(`view ${i} has a system message after the head`);
  });
}
