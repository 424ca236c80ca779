import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { buildContext, createEstimator, type BuildContextInput, type ContextView } from "@contextview/core";
import { snapshot } from "./conversation";

const estimator = createEstimator();

/**
 * DESIGN.md laws 1–5 and 7 for one view: `built` is the conversation as BaseMessages,
 * `input` what buildContext received (maybe serialized and frozen), `before` the
 * snapshot of `input.messages` taken before the build. Throws (expect) on a breach.
 */
export function expectViewLaws(built: readonly BaseMessage[], input: BuildContextInput, result: ContextView, before: string): void {
  const view = result.messages;
  // Law 1: the input is untouched.
  expect(snapshot(input.messages)).toBe(before);

  // Law 4: within the limit, and the report's total is the real estimate.
  expect(estimator.estimateMessages(view)).toBe(result.report.tokens.total);
  expect(result.report.tokens.total).toBeLessThanOrEqual(result.report.limit);
  expect(result.report.messages.kept + result.report.messages.dropped).toBe(result.report.messages.in);

  // Law 2: the newest user message is whole, and every kept tool call has its original arguments.
  const lastHuman = [...built].reverse().find((m) => m.type === "human");
  if (lastHuman) expect(view.find((m) => m.id === lastHuman.id)?.content).toEqual(lastHuman.content);
  const originalCalls = new Map(built.flatMap((m) => ((m as AIMessage).tool_calls ?? []).map((c) => [c.id, c.args] as const)));
  for (const m of view) for (const call of (m as AIMessage).tool_calls ?? []) expect(call.args).toEqual(originalCalls.get(call.id));

  // Law 3: a tool-call message is followed at once by all its results; no result without its call;
  // no tool call appears twice (providers reject repeated ids).
  const callIds: string[] = [];
  for (let i = 0; i < view.length; i++) {
    const m = view[i] as BaseMessage;
    const calls = m.type === "ai" ? ((m as AIMessage).tool_calls ?? []) : [];
    if (calls.length > 0) {
      const results = view.slice(i + 1, i + 1 + calls.length) as ToolMessage[];
      expect(results.map((r) => r.type)).toEqual(calls.map(() => "tool"));
      expect(new Set(results.map((r) => r.tool_call_id))).toEqual(new Set(calls.map((c) => c.id)));
      expect(view[i + 1 + calls.length]?.type).not.toBe("tool");
      callIds.push(...calls.map((c) => c.id as string));
      i += calls.length;
    } else {
      expect(m.type).not.toBe("tool");
    }
  }
  expect(new Set(callIds).size).toBe(callIds.length);

  // Law 5: system only first; first non-system is a user message; tool calls follow a user message or results.
  view.forEach((m, i) => {
    if (m.type === "system") expect(i).toBe(0);
  });
  const start = view[0]?.type === "system" ? 1 : 0;
  if (view.length > start) expect(view[start]?.type).toBe("human");
  view.forEach((m, i) => {
    if (m.type === "ai" && ((m as AIMessage).tool_calls?.length ?? 0) > 0) expect(["human", "tool"]).toContain(view[i - 1]?.type);
  });

  // Law 7: the same input gives the same view.
  expect(JSON.stringify(buildContext(input).messages)).toBe(JSON.stringify(view));
}
