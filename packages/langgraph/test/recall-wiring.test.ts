// The recall tool in each integration: its schema is charged like every bound tool, and
// the view's notes name it — found among the tools the call is charged for, under any name.
import { createEstimator, InMemoryContextStore, type ManagedReport } from "@contextview/core";
import { createContextNode, createRecallTool, withContext, type ReportListener } from "@contextview/langgraph";
import { contextMiddleware, recallMiddleware } from "@contextview/langgraph/middleware";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod";
import { RecordingChatModel } from "@contextview/test-support";

const estimator = createEstimator();
const ROWS = Array.from({ length: 200 }, (_, i) => ({ id: `tx-${1000 + i}`, amount: -(i + 1), memo: `March purchase number ${i}` }));
const search = tool(async () => JSON.stringify({ transactions: ROWS }), { name: "search_transactions", description: "Search transactions of a month.", schema: z.object({ month: z.string() }) });
/** What every view is built with: small, older results cleared one by one. */
const settings = { budget: { promptBudget: 2500 }, keepRecentToolResults: 0, view: { clearStep: 1 }, evidence: "off" as const };

/** A 200-row search, three turns of talk, then a new request: the search result is an older one, cleared. */
function history(): BaseMessage[] {
  const out: BaseMessage[] = [
    new HumanMessage({ id: "u0", content: "Search my March transactions." }),
    new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "call_s", name: "search_transactions", args: { month: "2024-03" }, type: "tool_call" }] }),
    new ToolMessage({ id: "t0", tool_call_id: "call_s", name: "search_transactions", content: JSON.stringify({ transactions: ROWS }) }),
    new AIMessage({ id: "r0", content: "You have 200 transactions in March." }),
  ];
  for (let i = 1; i <= 3; i++) out.push(new HumanMessage({ id: `u${i}`, content: `Turn ${i}: how much did I spend?` }), new AIMessage({ id: `r${i}`, content: `Turn ${i}: about 20,100 in total.` }));
  out.push(new HumanMessage({ id: "q", content: "Which was row 150?" }));
  return out;
}

function listener() {
  const reports: ManagedReport[] = [];
  const onReport: ReportListener = (report) => void reports.push(report);
  return { reports, onReport };
}

function viewText(messages: readonly BaseMessage[]): string {
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

const RECALL_NOTE = 'To read it back, call `recall` with {"action":"rows","message":"call_s","rows":["1-20"]}';

describe("the recall tool's schema and notes in each integration", () => {
  it("node: charged with the node's tools, and the cleared result names it; without it, the note is as before", async () => {
    const recall = createRecallTool();
    const { reports, onReport } = listener();
    const node = createContextNode({ ...settings, store: new InMemoryContextStore(), tools: [search, recall], onReport });
    const out = await node.invoke({ messages: history() }, { configurable: { thread_id: "t-node", user_id: "alice" } });
    expect(reports[0]!.tokens.tools).toBe(estimator.estimateTools([search, recall]));
    expect(reports[0]!.tokens.tools).toBeGreaterThan(estimator.estimateTools([search]) + 400);
    expect(viewText(out.llmInputMessages as BaseMessage[])).toContain(RECALL_NOTE);

    const plain = createContextNode({ ...settings, store: new InMemoryContextStore(), tools: [search] });
    const view = viewText((await plain.invoke({ messages: history() }, { configurable: { thread_id: "t-node", user_id: "alice" } })).llmInputMessages as BaseMessage[]);
    expect(view).toContain("call the tool again if you need it.]");
    expect(view).not.toContain("`recall`");
  });

  it("wrapper: the bound tools are charged, and the notes name the recall tool under its own name", async () => {
    const model = new RecordingChatModel();
    const recall = createRecallTool({ toolName: "history", getMessages: () => history() });
    const { reports, onReport } = listener();
    await withContext(model.bindTools([search, recall]), { ...settings, store: new InMemoryContextStore(), onReport }).invoke(history(), { configurable: { thread_id: "t-wrap", user_id: "alice" } });
    expect(reports[0]!.tokens.tools).toBe(estimator.estimateTools([search, recall]));
    expect(viewText(model.calls[0]!)).toContain(RECALL_NOTE.replace("`recall`", "`history`"));
  });

  it("createAgent: the tool recallMiddleware adds is in the request's tools, so it is charged and the notes name it", async () => {
    const model = new RecordingChatModel({ answer: () => "Row 150 is tx-1149." });
    const { reports, onReport } = listener();
    const agent = createAgent({ model, tools: [search], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ ...settings, store: new InMemoryContextStore(), onReport }), recallMiddleware()] });
    await agent.invoke({ messages: history() }, { configurable: { thread_id: "t-agent", user_id: "alice" } });
    expect(model.received[0]!.tools).toEqual(["search_transactions", "recall"]);
    expect(reports[0]!.tokens.tools).toBe(estimator.estimateTools([search, createRecallTool()]));
    expect(reports[0]!.tokens.tools).toBeGreaterThan(estimator.estimateTools([search]) + 400);
    expect(viewText(model.calls[0]!)).toContain(RECALL_NOTE);
  });
});
