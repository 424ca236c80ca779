// Tool loops whose replies carry reasoning: `pnpm bench reasoning-loop`
//
// 200 random conversations (seed 42) of older tool turns, then a loop of 2–8 steps whose
// every reply carries Anthropic, OpenAI or v1 reasoning, at 3,000–16,000 tokens. Each call
// of the loop is built (buildContext, and a context manager with and without a summarizer)
// and compared with the previous call's view: "appended" (it starts with it byte for byte),
// "front" (whole messages of it gone from the front, nothing edited), "other". Target:
// "other" only where the system prompt, the request and the loop alone exceed the limit.
import fc from "fast-check";
import { type BaseMessage } from "@langchain/core/messages";
import { buildContext, createContextManager, createEstimator, InMemoryContextStore, type ContextView } from "@contextview/core";
import { budgetOf, loopCalls, loopCaseArb, loopRelation } from "../packages/core/test/support/reasoning-loops";

const estimator = createEstimator();

async function main(): Promise<void> {
  const samples = fc.sample(loopCaseArb(), { numRuns: 200, seed: 42 });
  for (const mode of ["buildContext", "manager", "manager + summarizer"] as const) {
    const counts = { appended: 0, front: 0, other: 0, otherLean: 0 };
    let ms = 0;
    let builds = 0;
    for (const loopCase of samples) {
      const { calls, system, turn } = loopCalls(loopCase);
      const budget = budgetOf(loopCase);
      const summarizer = mode === "manager + summarizer" ? { summarizer: async () => "Summary: the earlier ledgers were reconciled." } : {};
      const manager = createContextManager({ budget, store: new InMemoryContextStore(), ...summarizer });
      let previous: ContextView | undefined;
      for (const [k, messages] of calls.entries()) {
        const started = performance.now();
        let view: ContextView;
        try {
          view = mode === "buildContext" ? buildContext({ messages, budget }) : await manager.build({ messages, key: { userId: "u", conversationId: "c" } });
        } catch {
          break;
        }
        ms += performance.now() - started;
        builds++;
        if (previous !== undefined) {
          const r = loopRelation(view.messages, previous.messages);
          counts[r]++;
          if (r === "other" && estimator.estimateMessages([system, ...turn.slice(0, 1 + 2 * k)] as BaseMessage[]) > view.report.limit) counts.otherLean++;
        }
        previous = view;
      }
    }
    const calls = counts.appended + counts.front + counts.other;
    const pct = (n: number) => `${((100 * n) / calls).toFixed(1)}%`;
    console.log(
      `${mode.padEnd(22)} loop calls ${calls}: appended ${counts.appended} (${pct(counts.appended)}), front ${counts.front} (${pct(counts.front)}), other ${counts.other} (${pct(counts.other)}; ${counts.otherLean} of them a loop that alone exceeds the limit); ${(ms / builds).toFixed(2)} ms a call`,
    );
  }
}

void main();
