import type { BaseMessage } from "@langchain/core/messages";
import { conversation, deepFreeze, type TurnSpec } from "@contextview/test-support";

/** The budget of the manager tests: a 4,000-token prompt in a 32k window. */
export const budget = { contextWindow: 32768, promptBudget: 4000, responseReserve: 4096 };

/** Turn `i` of the finance conversation the manager tests summarize: every other turn calls two tools. */
export function turnSpec(i: number): TurnSpec {
  return {
    text: `Question number ${i}: how is my budget for item-${i}? ${"context ".repeat(20)}`,
    calls: i % 2 === 0 ? [{ parallel: 2, resultSize: 1500 }] : [],
    answer: `Answer number ${i}: item-${i} is fine. ${"detail ".repeat(30)}`,
  };
}

/** The finance conversation of `turns` turns, frozen. */
export function financeTurns(turns: number): BaseMessage[] {
  return deepFreeze(conversation(Array.from({ length: turns }, (_, i) => turnSpec(i)), "You are a finance assistant."));
}

/** Messages up to and including turn `turn`'s user request (the model is about to answer it). */
export function upToRequest(all: readonly BaseMessage[], turn: number): BaseMessage[] {
  let seen = 0;
  for (let i = 0; i < all.length; i++) {
    if (all[i]?.type === "human" && ++seen === turn + 1) return all.slice(0, i + 1);
  }
  return [...all];
}

/** A conversation of `turns` turns, up to its last user request. */
export function longConversation(turns: number): BaseMessage[] {
  const all = financeTurns(turns);
  let last = all.length - 1;
  while (all[last]?.type !== "human") last--;
  return all.slice(0, last + 1);
}
