// `messageDate` in each integration: set once on the factory, it dates the lines the
// recall stage brings back in the node's view, the wrapper's and the middleware's.
import { InMemoryContextStore, type MessageDate } from "@contextview/core";
import { RECALL_LABEL } from "../../core/src/view/recall.js";
import { createContextNode, createRecallTool, withContext } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { RecordingChatModel } from "@contextview/langgraph/testing";

const START = Date.UTC(2023, 4, 8, 13, 56);
const settings = { budget: { promptBudget: 4000 }, evidence: "off" as const };
const messageDate: MessageDate = (message) => message.additional_kwargs["sent_at"] as string | undefined;

/** 300 dated turns (one a day), a fact at turn 3, a question about it. */
function datedChat(): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < 300; i++) {
    const sent_at = new Date(START + i * 86_400_000).toISOString().slice(0, 10);
    const user = i === 3 ? "We adopted a beagle last spring, his name is Biscuit." : `Turn ${i}: the weather was grey and I cooked pasta with tomatoes again, nothing special happened.`;
    out.push(new HumanMessage({ id: `u${i}`, content: user, additional_kwargs: { sent_at } }), new AIMessage({ id: `a${i}`, content: "That sounds calm. Tell me more.", additional_kwargs: { sent_at } }));
  }
  out.push(new HumanMessage({ id: "q", content: "What did we name the beagle?" }));
  return out;
}

const recalled = (messages: readonly BaseMessage[]) => String(messages[messages.findIndex((m) => m.content === RECALL_LABEL) + 1]?.content ?? "");
const LINE = "[date 2023-05-11]\n[#6 · user · id u3]";

describe("messageDate in each integration", () => {
  it("node: the recalled lines of its view carry the dates", async () => {
    const node = createContextNode({ ...settings, store: new InMemoryContextStore(), view: { messageDate } });
    const out = await node.invoke({ messages: datedChat() }, { configurable: { thread_id: "t-node", user_id: "alice" } });
    expect(recalled(out.llmInputMessages as BaseMessage[])).toContain(LINE);
  });

  it("wrapper and createAgent middleware: the model receives dated lines", async () => {
    const wrapped = new RecordingChatModel();
    await withContext(wrapped, { ...settings, store: new InMemoryContextStore(), view: { messageDate } }).invoke(datedChat(), { configurable: { thread_id: "t-wrap", user_id: "alice" } });
    expect(recalled(wrapped.calls[0] ?? [])).toContain(LINE);

    const model = new RecordingChatModel({ answer: () => "Biscuit." });
    const agent = createAgent({ model, tools: [], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ ...settings, store: new InMemoryContextStore(), view: { messageDate } })] });
    await agent.invoke({ messages: datedChat() }, { configurable: { thread_id: "t-agent", user_id: "alice" } });
    expect(recalled(model.calls[0] ?? [])).toContain(LINE);
  });

  it("recall tool: the messages its answers show are dated", async () => {
    const recall = createRecallTool({ messageDate, getMessages: () => datedChat() });
    const answer = await recall.invoke({ action: "search", query: "beagle Biscuit" });
    expect(String(answer)).toContain("message 6 · role user · id u3 · date 2023-05-11");
  });

  it("is refused in a request's context: it is set once, on the factory", async () => {
    const node = createContextNode({ ...settings, store: new InMemoryContextStore() });
    await expect(node.invoke({ messages: datedChat() }, { configurable: { thread_id: "t-cfg", user_id: "alice", context: { messageDate: "sent_at" } } })).rejects.toThrow(/messageDate/);
  });
});
