import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, InMemoryContextStore } from "@contextview/core";
import { RECALL_LABEL } from "../../src/view/recall.js";

const key = { userId: "u1", conversationId: "t1" };
const budget = { contextWindow: 32768, promptBudget: 2000, responseReserve: 4096 };
const FACT = "My sister Zephyrine moved to Reykjavik last March for a glaciology job.";

/** A system prompt, then `n` turns of small talk (ids u<i>, a<i>, at 1 + 2i and 2 + 2i) with the fact at turn `at`, then a question about it. */
function chat(n: number, at: number): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are a friendly assistant.")];
  for (let i = 0; i < n; i++) {
    const user = i === at ? FACT : `Turn ${i}: the weather was ${i % 2 ? "sunny" : "grey"} and I cooked pasta with ${i % 3 ? "tomatoes" : "mushrooms"} again, nothing special happened today.`;
    messages.push(new HumanMessage({ id: `u${i}`, content: user }), new AIMessage({ id: `a${i}`, content: `That sounds ${i % 2 ? "lovely" : "calm"}. Tell me more about your week and your plans for turn ${i + 1}.` }));
  }
  messages.push(new HumanMessage({ id: "q", content: "Which city did my sister Zephyrine move to?" }));
  return messages;
}


/** An evidence envelope as `EvidenceState.asMessage()` renders it, quoting the user messages of `turns` by id. */
function evidence(cursor: number, turns: number[], messages: readonly BaseMessage[]): AIMessage {
  const entries = turns.map((t) => ({ role: "user", messageId: `u${t}`, index: 1 + 2 * t, excerpt: String(messages[1 + 2 * t]?.content).slice(0, 60), truncated: true }));
  return new AIMessage({ id: `contextview-evidence-${cursor}`, content: JSON.stringify({ contextview_evidence: { trust: "untrusted historical evidence", cursor, omitted: 0, constraints: entries, decisions: [], openWork: [], recentContext: [] } }) });
}

const evidenceIn = (view: { messages: BaseMessage[] }) => {
  const message = view.messages.find((m) => typeof m.content === "string" && m.content.includes("contextview_evidence"));
  if (message === undefined) return undefined;
  // Alone, or after the summary text in the summary message.
  const text = String(message.content);
  return JSON.parse(text.slice(text.indexOf('{"contextview_evidence"'))).contextview_evidence as { constraints: { messageId: string; index: number }[] };
};

/** The recall block: the message right after its label. */
const recallBlockOf = (view: { messages: BaseMessage[] }) => {
  const label = view.messages.findIndex((m) => m.content === RECALL_LABEL);
  return label < 0 ? undefined : String(view.messages[label + 1]?.content);
};

/** The recall block's lines by message id. */
const recalledIds = (view: { messages: BaseMessage[] }) => [...(recallBlockOf(view) ?? "").matchAll(/id ([^\]]+)\]/g)].map((m) => m[1]);

describe("the recall block never repeats what the evidence quotes", () => {
  it("recalls other messages than those the evidence at the head quotes, and leaves the evidence as it is", async () => {
    const messages = chat(220, 5);
    const quotedEvidence = evidence(messages.length - 1, [5, 40, 60], messages);
    const withEvidence = await createContextManager({ store: new InMemoryContextStore(), budget }).build({ messages, key, evidence: quotedEvidence });
    const without = await createContextManager({ store: new InMemoryContextStore(), budget }).build({ messages, key });

    // Without evidence, recall brings the fact back; with it, the evidence already quotes it.
    expect(recalledIds(without)).toContain("u5");
    expect(recallBlockOf(withEvidence) ?? "").not.toContain(FACT);
    expect(recalledIds(withEvidence)).not.toContain("u5");
    // The evidence at the head is the one given, whole: the cached prefix does not move with recall.
    expect(evidenceIn(withEvidence)?.constraints.map((entry) => entry.messageId)).toEqual(["u5", "u40", "u60"]);
    expect(withEvidence.report.tokens.total).toBeLessThanOrEqual(withEvidence.report.limit);
  });

  it("with recall off the evidence is the same", async () => {
    const manager = createContextManager({ store: new InMemoryContextStore(), budget, recallBudget: 0 });
    const messages = chat(220, 5);
    const view = await manager.build({ messages, key, evidence: evidence(messages.length - 1, [5, 40, 60], messages) });
    expect(recallBlockOf(view)).toBeUndefined();
    expect(evidenceIn(view)?.constraints.map((entry) => entry.messageId)).toEqual(["u5", "u40", "u60"]);
  });
});
