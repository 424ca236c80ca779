import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { computeLargeResultFloors, type LargeResultComputer, type LargeResultJob } from "@contextview/core/tool-results";
import { precomputeLargeResults } from "../../src/compact/large-result-floors.js";
import { clearResultMemo } from "../../src/compact/result-memo.js";

// Shared by the large-result tests (floors computed in another thread, and their edges).

export type Row = { id: string; date: string; amount: number; payee: string };

/** Rows enough for about `chars` characters of JSON; `prefix` keeps each test's text its own. */
export function rows(chars: number, prefix: string): Row[] {
  const row = (i: number): Row => ({ id: `${prefix}-${i}`, date: `2024-01-${String((i % 28) + 1).padStart(2, "0")}`, amount: i * 1.25, payee: `Payee ${i % 40}` });
  return Array.from({ length: Math.ceil(chars / 70) }, (_, i) => row(i));
}

/** {@link rows} as one JSON text. */
export function rowsJson(chars: number, prefix: string): string {
  return JSON.stringify(rows(chars, prefix));
}

/** One question, one tool call and its result (`content`, and `artifact` when given). */
export function conversation(content: string, artifact?: unknown): BaseMessage[] {
  return [
    new HumanMessage({ id: "h1", content: "List them all." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "all" }, type: "tool_call" }] }),
    new ToolMessage({ id: "t1", tool_call_id: "c1", name: "search", content, ...(artifact === undefined ? {} : { artifact }) }),
  ];
}

/** JSON.parse calls on `text` while `run` runs. */
export function parsesOf<T>(text: string, run: () => T): { value: T; parses: number } {
  const spy = jest.spyOn(JSON, "parse");
  try {
    const value = run();
    return { value, parses: spy.mock.calls.filter(([arg]) => arg === text).length };
  } finally {
    spy.mockRestore();
  }
}

/** Computes in this thread, as the worker would (job and answer through structured clones), counting jobs. */
export function inThread(): LargeResultComputer & { jobs: LargeResultJob[] } {
  const jobs: LargeResultJob[] = [];
  return Object.assign(
    async (job: LargeResultJob) => {
      jobs.push(job);
      return structuredClone(computeLargeResultFloors(structuredClone(job)));
    },
    { jobs },
  );
}

/**
 * The view of `conversation(content)` computed in place, then again after the result was
 * computed off the thread (`inThread`): both views, the precompute count, the jobs and
 * how often the second build parsed `content`.
 */
export async function viewReadOff(content: string, budget: { promptBudget: number }) {
  const estimator = createEstimator();
  const expected = buildContext({ messages: conversation(content), budget, estimator });
  clearResultMemo();
  const compute = inThread();
  const precomputed = await precomputeLargeResults(conversation(content), estimator, budget.promptBudget, compute);
  const { value: view, parses } = parsesOf(content, () => buildContext({ messages: conversation(content), budget, estimator }));
  return { estimator, expected, compute, precomputed, view, parses };
}
