import fc from "fast-check";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, InMemoryContextStore } from "./packages/core/src/index.js";
import { compactionMarkerOf } from "./packages/core/src/tool-results.js";
import { conversation, conversationArb } from "./test/support/shared/conversation.js";
async function main() {
let views = 0, bad = 0, withCounts = 0; const out: string[] = [];
for (const [{ turns, system }, promptBudget, dropStep, clearStep, summary, excludeTools] of fc.sample(fc.tuple(conversationArb, fc.integer({ min: 300, max: 16000 }), fc.constantFrom(0, 0.25), fc.constantFrom(1, 4, 32), fc.constantFrom("none", "text", "evidence"), fc.constantFrom([], ["read_note"])), { numRuns: Number(process.env.N ?? 600), seed: Number(process.env.SEED ?? 5) })) {
  const messages: BaseMessage[] = conversation(turns, system);
  const evidence = summary === "evidence" ? (await new InMemoryContextStore().update("u", "c", messages)).asMessage() : null;
  const historyMessage = summary === "text" ? new AIMessage("Evidence of earlier turns.") : (evidence ?? undefined);
  let view;
  try { view = buildContext({ messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, dropStep, clearStep, excludeTools, ...(historyMessage ? { historyMessage } : {}) }); } catch { continue; }
  views++;
  let cleared = 0, other = 0;
  for (const m of view.messages) { if (m.type !== "tool") continue; const f = compactionMarkerOf(m)?.form; if (f === "cleared") cleared++; else if (f !== undefined) other++; }
  const t = view.report.toolResults;
  if (cleared + other > 0) withCounts++;
  if (t.cleared !== cleared || t.compacted + t.narrowed !== other) { bad++; if (out.length < 8) out.push(`budget ${promptBudget} dropStep ${dropStep} summary ${summary}: report ${JSON.stringify(t)} shown cleared ${cleared} other ${other} currentTurn ${JSON.stringify(view.report.currentTurn)}`); }
}
console.log({ views, withCounts, bad }); console.log(out.join("\n"));
}
main();
