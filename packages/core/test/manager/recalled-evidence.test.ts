import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, InMemoryContextStore, type Summarizer } from "@contextview/core";
import { RECALL_LABEL } from "@contextview/core/internal";

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

/** The messages of {@link chat} as plain objects without ids: evidence quotes them by position key. */
const withoutIds = (messages: readonly BaseMessage[]) => messages.map((m) => ({ role: m.type === "human" ? "user" : m.type === "ai" ? "assistant" : "system", content: String(m.content) }));
/** A position key as the evidence gives a message without an id (the hash part is not read here). */
const positionKey = (index: number) => `contextview:position:${index}:0badc0de`;

/** An evidence envelope as `EvidenceState.asMessage()` renders it, quoting the user messages of `turns` by id (or by position key). */
function evidence(cursor: number, turns: number[], messages: readonly BaseMessage[], byPosition = false): AIMessage {
  const entries = turns.map((t) => ({ role: "user", messageId: byPosition ? positionKey(1 + 2 * t) : `u${t}`, index: 1 + 2 * t, excerpt: String(messages[1 + 2 * t]?.content).slice(0, 60), truncated: true }));
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

describe("evidence never repeats what the recall block shows", () => {
  it("leaves out the excerpt of a recalled message; the block still shows it and the view fits", async () => {
    const manager = createContextManager({ store: new InMemoryContextStore(), budget });
    const messages = chat(220, 5);
    const fact = 1 + 2 * 5;
    // Quoted: the fact, and two small-talk requests far back that neither the view nor recall shows.
    const view = await manager.build({ messages, key, evidence: evidence(messages.length - 1, [5, 40, 60], messages) });

    expect(view.report.cut).toBeGreaterThan(1 + 2 * 60);
    expect(view.report.recall.recalled).toBeGreaterThan(0);
    const block = recallBlockOf(view);
    expect(block).toContain(`[#${fact} · user · id u5] ${FACT}`);
    const envelope = evidenceIn(view);
    expect(envelope).toBeDefined();
    const quoted = envelope?.constraints.map((entry) => entry.messageId) ?? [];
    expect(quoted).not.toContain("u5");
    // What neither the view nor the block shows stays in the evidence.
    for (const id of ["u40", "u60"]) {
      expect(block).not.toContain(`id ${id}]`);
      expect(quoted).toContain(id);
    }
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
  });

  it("keeps the excerpt when recall is off: nothing else shows the message", async () => {
    const manager = createContextManager({ store: new InMemoryContextStore(), budget, recallBudget: 0 });
    const messages = chat(220, 5);
    const view = await manager.build({ messages, key, evidence: evidence(messages.length - 1, [5, 40, 60], messages) });
    expect(recallBlockOf(view)).toBeUndefined();
    expect(evidenceIn(view)?.constraints.map((entry) => entry.messageId)).toEqual(["u5", "u40", "u60"]);
  });

  it("leaves out the excerpt of a recalled message without an id, by its position in the checkpoint, past a summary", async () => {
    const summarizer: Summarizer = async () => "The user chatted about the weather and cooking.";
    const manager = createContextManager({ store: new InMemoryContextStore(), budget, summarizer });
    const chatted = chat(220, 5);
    const messages = withoutIds(chatted);
    const fact = 1 + 2 * 5;
    const view = await manager.build({ messages, key, evidence: evidence(messages.length - 1, [5, 40, 60], chatted, true) });

    // The fact is in the summarized prefix: the view reads it back from there.
    expect(view.report.compaction.summarizedMessages).toBeGreaterThan(fact);
    expect(recallBlockOf(view)).toContain(`[#${fact} · user] ${FACT}`);
    const quoted = evidenceIn(view)?.constraints.map((entry) => entry.index);
    expect(quoted).toEqual([1 + 2 * 40, 1 + 2 * 60]);
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
  });
});
