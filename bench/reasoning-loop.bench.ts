// Tool loops whose replies carry reasoning: `pnpm bench reasoning-loop`
//
// 200 random conversations (seed 42) of older tool turns, then a loop of 2–8 steps whose
// every reply carries Anthropic, OpenAI or v1 reasoning, at 3,000–16,000 tokens. Each call
// of the loop is built (buildContext, and a context manager with and without a summarizer)
// and compared with the previous call's view: "appended" (it starts with it byte for byte),
// "front" (whole messages of it gone from the front, nothing edited), "other". Target:
// "other" only where the system prompt, the request and the loop alone exceed the limit.
import fc from "fast-check";
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createContextManager, createEstimator, InMemoryContextStore, type ContextView } from "@contextview/core";
import { toolTurn, type Shape } from "../packages/core/test/support/provider-shapes";

const estimator = createEstimator();
const wire = (m: BaseMessage) => JSON.stringify([m.type, m.id, m.name, m.content, (m as { tool_calls?: unknown }).tool_calls, m.additional_kwargs, m.response_metadata]);

function relation(view: ContextView, previous: ContextView): "appended" | "front" | "other" {
  const before = previous.messages.map(wire);
  const sent = view.messages.map(wire).slice(0, -2);
  if (sent.length === before.length && sent.every((m, i) => m === before[i])) return "appended";
  const system = view.messages[0]?.type === "system" && sent[0] === before[0] ? 1 : 0;
  const suffix = sent.slice(system).every((m, i) => m === before[before.length - sent.length + system + i]);
  return sent.length < before.length && suffix ? "front" : "other";
}

async function main(): Promise<void> {
  const samples = fc.sample(
    fc.tuple(fc.constantFrom<Shape>("anthropic", "openai", "v1"), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 8 }), fc.integer({ min: 2, max: 8 }), fc.integer({ min: 200, max: 2500 }), fc.integer({ min: 3000, max: 16000 })),
    { numRuns: 200, seed: 42 },
  );
  for (const mode of ["buildContext", "manager", "manager + summarizer"] as const) {
    const counts = { appended: 0, front: 0, other: 0, otherLean: 0 };
    let ms = 0;
    let builds = 0;
    for (const [shape, olderSteps, steps, resultChars, promptBudget] of samples) {
      const head: BaseMessage[] = [new SystemMessage("You reconcile ledgers.")];
      olderSteps.forEach((n, t) => head.push(...toolTurn(shape, t, n, resultChars, 300 + 200 * (t % 3))));
      const turn = toolTurn(shape, olderSteps.length, steps, resultChars);
      const budget = { contextWindow: promptBudget + 8192, promptBudget, responseReserve: 4096 };
      const summarizer = mode === "manager + summarizer" ? { summarizer: async () => "Summary: the earlier ledgers were reconciled." } : {};
      const manager = createContextManager({ budget, store: new InMemoryContextStore(), ...summarizer });
      let previous: ContextView | undefined;
      for (let k = 0; k <= steps; k++) {
        const messages = [...head, ...turn.slice(0, 1 + 2 * k)];
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
          const r = relation(view, previous);
          counts[r]++;
          if (r === "other" && estimator.estimateMessages([head[0] as BaseMessage, ...turn.slice(0, 1 + 2 * k)]) > view.report.limit) counts.otherLean++;
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
