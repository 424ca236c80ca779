// Random tool loops whose every reply carries reasoning, the conversation at each model
// call of the loop, and how one call's view relates to the previous call's: shared by the
// reasoning-loop tests and `pnpm bench reasoning-loop`.
import fc from "fast-check";
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { toolTurn, type Shape } from "./provider-shapes";

/** One random case: older tool turns (steps each), then a loop of `steps`, results of `resultChars`, viewed at `promptBudget`. */
export interface LoopCase {
  shape: Shape;
  olderSteps: number[];
  steps: number;
  resultChars: number;
  promptBudget: number;
}

/** Cases at budgets of 3,000–16,000 tokens, loops of `minSteps`–8 steps. */
export function loopCaseArb(minSteps = 2, maxOlderTurns = 8): fc.Arbitrary<LoopCase> {
  return fc.record({
    shape: fc.constantFrom<Shape>("anthropic", "openai", "v1"),
    olderSteps: fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: maxOlderTurns }),
    steps: fc.integer({ min: minSteps, max: 8 }),
    resultChars: fc.integer({ min: 200, max: 2500 }),
    promptBudget: fc.integer({ min: 3000, max: 16000 }),
  });
}

/** The budget of a case: its prompt budget inside a window with room for the answer. */
export function budgetOf(c: LoopCase): { contextWindow: number; promptBudget: number; responseReserve: number } {
  return { contextWindow: c.promptBudget + 8192, promptBudget: c.promptBudget, responseReserve: 4096 };
}

/** The conversation as it is at each model call of the case's loop (the first call: up to the request), and where the loop starts. */
export function loopCalls(c: LoopCase): { calls: BaseMessage[][]; loopStart: number; system: BaseMessage; turn: BaseMessage[] } {
  const system = new SystemMessage("You reconcile ledgers.");
  const head: BaseMessage[] = [system];
  c.olderSteps.forEach((n, t) => head.push(...toolTurn(c.shape, t, n, c.resultChars, 300 + 200 * (t % 3))));
  const turn = toolTurn(c.shape, c.olderSteps.length, c.steps, c.resultChars);
  const calls: BaseMessage[][] = [];
  for (let k = 0; k <= c.steps; k++) calls.push([...head, ...turn.slice(0, 1 + 2 * k)]);
  return { calls, loopStart: head.length + 1, system, turn };
}

/** What a message puts on the wire: every field a converter reads. */
export function wire(message: BaseMessage): string {
  const m = message as BaseMessage & { tool_calls?: unknown; tool_call_id?: unknown };
  return JSON.stringify([m.type, m.id, m.name, m.content, m.tool_calls, m.tool_call_id, m.additional_kwargs, m.response_metadata]);
}

/**
 * How a call's view relates to the previous call's, `added` messages later: the previous
 * view then the new messages ("appended"), the previous view with whole messages gone from
 * its front after the system message, then the new ones ("front"), or anything else.
 */
export function loopRelation(view: readonly BaseMessage[], previous: readonly BaseMessage[], added = 2): "appended" | "front" | "other" {
  const before = previous.map(wire);
  const sent = view.map(wire).slice(0, -added);
  if (sent.length === before.length && sent.every((m, i) => m === before[i])) return "appended";
  const system = view[0]?.type === "system" && sent[0] === before[0] ? 1 : 0;
  const suffix = sent.slice(system).every((m, i) => m === before[before.length - sent.length + system + i]);
  return sent.length < before.length && suffix ? "front" : "other";
}
