import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { answersOf, callPoints, cloneMessage, ReplayChatModel, replayTools, userTurns } from "../replay.js";
import type { LoadedFixture, Fixture, RunContext, StrategyRun } from "../types.js";

/** Accumulates the time spent inside middleware hooks, excluding the model call they wrap. */
export class HookTimer {
  private pending = 0;
  readonly perCall: number[] = [];

  add(ms: number): void {
    this.pending += ms;
  }

  /** Closes the current model call's measurement. */
  take(): void {
    this.perCall.push(this.pending);
    this.pending = 0;
  }

  /**
   * A copy of a langchain middleware whose `beforeModel` and `wrapModelCall`
   * hooks report their own time (the handler they call is not counted).
   */
  wrap<T>(middleware: T): T {
    const source = middleware as Record<string, unknown>;
    const out: Record<string | symbol, unknown> = { ...(middleware as object) };
    const before = source["beforeModel"];
    const hook = typeof before === "function" ? before : (before as { hook?: unknown } | undefined)?.hook;
    if (typeof hook === "function") {
      const timedHook = async (...args: unknown[]) => {
        const start = performance.now();
        try {
          return await (hook as (...a: unknown[]) => unknown)(...args);
        } finally {
          this.add(performance.now() - start);
        }
      };
      out["beforeModel"] = typeof before === "function" ? timedHook : { ...(before as object), hook: timedHook };
    }
    const wrapCall = source["wrapModelCall"];
    if (typeof wrapCall === "function") {
      out["wrapModelCall"] = async (request: unknown, handler: (r: unknown) => Promise<unknown>) => {
        const start = performance.now();
        let inner = 0;
        const result = await (wrapCall as (r: unknown, h: (r: unknown) => Promise<unknown>) => Promise<unknown>)(request, async (next) => {
          const t = performance.now();
          try {
            return await handler(next);
          } finally {
            inner += performance.now() - t;
          }
        });
        this.add(performance.now() - start - inner);
        return result;
      };
    }
    return out as T;
  }
}

/** Whether a checkpoint's messages differ from the messages the agent produced (count, order, type, text or tool calls). */
export function checkpointDiffers(expected: readonly BaseMessage[], actual: readonly BaseMessage[]): boolean {
  if (expected.length !== actual.length) return true;
  const shape = (m: BaseMessage) => JSON.stringify([m.type, m.content, (m as { tool_calls?: { id?: string }[] }).tool_calls?.map((c) => c.id) ?? [], (m as { tool_call_id?: string }).tool_call_id ?? ""]);
  return expected.some((m, i) => shape(m) !== shape(actual[i] as BaseMessage));
}

/**
 * Replays a fixture through langchain's `createAgent` (MemorySaver checkpointer)
 * with the given middleware: the replay model answers with the recorded assistant
 * messages, the replay tools with the recorded results. Returns the views the model
 * received and whether the checkpoint, read back, still holds what the agent produced.
 */
export async function runAgent(fixture: Fixture, loaded: LoadedFixture, context: RunContext, middleware: (timer: HookTimer) => unknown[], counter?: { calls: number; tokens: { input: number; output: number } }): Promise<StrategyRun> {
  const transcript = loaded.messages.map(cloneMessage);
  const timer = new HookTimer();
  const model = new ReplayChatModel(answersOf(transcript), context.count, () => timer.take());
  const agent = createAgent({ model, tools: replayTools(transcript), systemPrompt: fixture.systemPrompt, checkpointer: new MemorySaver(), middleware: middleware(timer) as never });
  const points = callPoints(transcript);
  // A turn of many tool calls takes a few graph steps per model call.
  const config = { configurable: { thread_id: `eval-${fixture.name}` }, recursionLimit: Math.max(200, 4 * points.length) };
  let error: string | undefined;
  try {
    for (const { message } of userTurns(transcript)) await agent.invoke({ messages: [cloneMessage(message)] } as never, config as never);
  } catch (e) {
    error = e instanceof Error ? `${e.name}: ${e.message.slice(0, 200)}` : String(e);
  }
  const state = (await agent.getState(config as never)) as { values: { messages?: BaseMessage[] } };
  // Everything before the first model call that did not happen is what the agent produced.
  const produced = transcript.slice(0, points[model.views.length] ?? transcript.length);
  return {
    calls: model.views.map((view, i) => ({ view, historyLength: points[i] ?? transcript.length })),
    contextMs: timer.perCall,
    checkpointRewritten: checkpointDiffers(produced, state.values.messages ?? []),
    summarizerCalls: counter?.calls ?? 0,
    ...(counter === undefined ? {} : { summarizerTokens: { ...counter.tokens } }),
    ...(error === undefined ? {} : { error }),
  };
}
