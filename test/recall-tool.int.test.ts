// The recall tool in real graphs on real checkpointers: a StateGraph with ToolNode on
// PostgresSaver, 40 turns after a 200-row search result left the model's view, reads
// three of its rows back by their ids and gets exactly what the tool returned, without
// the tool being called again; createAgent on SqliteSaver reads rows by number, and
// never another user's thread with the same row ids.
import { join } from "node:path";
import { InMemoryContextStore } from "@contextview/core";
import { createContextNode, createRecallTool } from "@contextview/langgraph";
import { contextMiddleware, recallMiddleware } from "@contextview/langgraph/middleware";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { END, START, StateGraph } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { z } from "zod";
import { RecordingChatModel } from "@contextview/test-support";
import { GraphState } from "./support/custom-graph.js";
import { useTempDir } from "./support/thread.js";
import { POSTGRES_URL, describePostgres, dropSchema, freshSchemaName } from "../packages/postgres/test/support/postgres.js";

const ROWS = Array.from({ length: 200 }, (_, i) => ({ id: `tx-${1000 + i}`, date: `2024-03-${String((i % 28) + 1).padStart(2, "0")}`, amount: -Math.round((i + 1) * 173) / 100, payee: `Payee ${i % 17}`, memo: `March purchase number ${i}` }));
const WANTED = ["tx-1017", "tx-1088", "tx-1150"];
const LATER_TURNS = 40;

describePostgres("the recall tool in a StateGraph on PostgresSaver", () => {
  let schema = "";
  let checkpointer: PostgresSaver | undefined;
  beforeEach(async () => {
    schema = freshSchemaName();
    checkpointer = PostgresSaver.fromConnString(POSTGRES_URL, { schema });
    await checkpointer.setup();
  });
  afterEach(async () => {
    await checkpointer?.end();
    await dropSchema(schema);
  });

  it("StateGraph + ToolNode + createContextNode: reads three rows of a result that left the view 40 turns earlier, exactly, without calling the tool again", async () => {
    let sourceCalls = 0;
    const search = tool(
      async ({ month }: { month: string }) => {
        sourceCalls++;
        return JSON.stringify({ query: month, count: ROWS.length, transactions: ROWS });
      },
      { name: "search_transactions", description: "Search transactions of a month.", schema: z.object({ month: z.string() }) },
    );
    const recall = createRecallTool();
    const views: BaseMessage[][] = [];
    const model = new RecordingChatModel({
      answer: (messages) => {
        views.push(messages);
        const last = messages[messages.length - 1]!;
        const text = String(last.content);
        if (last.type === "human" && text.includes("search March")) return aiCall("search_transactions", { month: "2024-03" });
        if (last.type === "human" && text.includes("Which rows were")) {
          // The model reads the cleared notice's tool_call_id, or finds the result by searching.
          const callId = /tool_call_id (\S+?)[,)]/.exec(viewText(messages))?.[1];
          return callId === undefined ? aiCall("recall", { action: "search", query: "search_transactions 2024-03" }) : aiCall("recall", { action: "rows", message: callId, ids: WANTED });
        }
        if (last.type === "tool" && last.name === "recall" && !text.includes('{"row":')) {
          const callId = /tool_call_id (\S+) ·/.exec(text)?.[1];
          return aiCall("recall", { action: "rows", message: callId, ids: WANTED });
        }
        return undefined;
      },
    });
    const tools = [search, recall];
    const bound = model.bindTools(tools);
    const context = createContextNode({ store: new InMemoryContextStore(), budget: { contextWindow: 8192, promptBudget: 2500 }, tools });
    const graph = new StateGraph(GraphState)
      .addNode("context", context)
      .addNode("model", async (state, config: RunnableConfig) => ({ messages: [await bound.invoke(state.llmInputMessages, config)] }))
      .addNode("tools", new ToolNode(tools))
      .addEdge(START, "context")
      .addEdge("context", "model")
      .addConditionalEdges("model", (state) => ((state.messages[state.messages.length - 1] as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
      .addEdge("tools", "context")
      .compile({ checkpointer: checkpointer! });
    const config = { configurable: { thread_id: "t-recall", user_id: "alice" }, recursionLimit: 20 };

    await graph.invoke({ messages: [new HumanMessage({ id: "u-0", content: "Please search March transactions." })] }, config);
    for (let i = 1; i <= LATER_TURNS; i++) await graph.invoke({ messages: [new HumanMessage({ id: `u-${i}`, content: `Turn ${i}: what should I budget for groceries next month? Give me a long, careful answer.` })] }, config);
    const asked = views.length;
    await graph.invoke({ messages: [new HumanMessage({ id: "u-last", content: `Which rows were ${WANTED.join(", ")} in that March search?` })] }, config);

    // The view that asked no longer held the result whole: it had left the view. The recalled
    // block's excerpt of it is where the request's terms are — the first id asked for, not the
    // result's first rows — and a bounded excerpt cannot hold rows 70 apart.
    const askingView = viewText(views[asked]!);
    expect(askingView).toContain(JSON.stringify(ROWS[17]));
    expect(askingView).not.toContain(JSON.stringify(ROWS[0]));
    for (const row of [88, 150]) expect(askingView).not.toContain(JSON.stringify(ROWS[row]));
    expect(askingView).not.toContain("March purchase number 88");

    // The recall answer is a tool result in the checkpoint holding exactly the original rows.
    const state = await graph.getState(config);
    const messages = state.values.messages as BaseMessage[];
    const answers = messages.filter((m): m is ToolMessage => m.type === "tool" && m.name === "recall");
    const rows = String(answers[answers.length - 1]!.content)
      .split("\n")
      .filter((line) => line.startsWith('{"row":'))
      .map((line) => JSON.parse(line) as { row: number; value: unknown });
    expect(rows).toEqual([
      { row: 18, value: ROWS[17] },
      { row: 89, value: ROWS[88] },
      { row: 151, value: ROWS[150] },
    ]);
    expect(answers.every((m) => m.status !== "error")).toBe(true);
    // The result had left the view whole (no notice to name it), so the model searched for it first.
    const recallCalls = messages.flatMap((m) => (m.type === "ai" ? ((m as AIMessage).tool_calls ?? []) : [])).filter((c) => c.name === "recall");
    expect(recallCalls.map((c) => c.args["action"])).toEqual(["search", "rows"]);
    expect(recallCalls[1]!.args["message"]).toBe(messages.find((m): m is ToolMessage => m.type === "tool" && m.name === "search_transactions")!.tool_call_id);
    // The model read the rows in the next call's view, and the source tool ran once in the whole run.
    expect(viewText(views[views.length - 1]!)).toContain(JSON.stringify(ROWS[88]));
    expect(sourceCalls).toBe(1);
    expect(messages.filter((m) => m.type === "system")).toHaveLength(0);
  });

});

describe("the recall tool in createAgent on SqliteSaver", () => {
  const tempDir = useTempDir();

  it("createAgent gets the tool from recallMiddleware, its ToolNode reads the agent's state, and never another user's thread", async () => {
    // Another user's thread holds rows with the same ids and other values.
    const BOB_ROWS = ROWS.map((row) => ({ ...row, amount: 999.99, memo: "bob's private row" }));
    let rowsFor = ROWS;
    const search = tool(async () => JSON.stringify({ transactions: rowsFor }), { name: "search_transactions", description: "Search transactions.", schema: z.object({ month: z.string() }) });
    const model = new RecordingChatModel({
      answer: (messages, { index }) => {
        if (index === 0) return aiCall("search_transactions", { month: "2024-03" });
        const result = messages.find((m): m is ToolMessage => m.type === "tool" && m.name === "search_transactions");
        if (index === 2) return aiCall("recall", { action: "rows", message: result!.tool_call_id, rows: ["18-19"] });
        return undefined;
      },
    });
    const checkpointer = SqliteSaver.fromConnString(join(tempDir(), "checkpoints.sqlite"));
    const agent = createAgent({ model, tools: [search], checkpointer, middleware: [contextMiddleware({ store: new InMemoryContextStore() }), recallMiddleware()] });
    rowsFor = BOB_ROWS;
    const bob = new RecordingChatModel({ answer: (_messages, { index }) => (index === 0 ? aiCall("search_transactions", { month: "2024-03" }) : undefined) });
    const bobAgent = createAgent({ model: bob, tools: [search], checkpointer, middleware: [contextMiddleware({ store: new InMemoryContextStore() }), recallMiddleware()] });
    await bobAgent.invoke({ messages: [new HumanMessage("search March")] }, { configurable: { thread_id: "t-agent-bob", user_id: "bob" } });
    rowsFor = ROWS;
    const config = { configurable: { thread_id: "t-agent", user_id: "alice" } };
    await agent.invoke({ messages: [new HumanMessage("search March")] }, config);
    const { messages } = await agent.invoke({ messages: [new HumanMessage("rows 18 and 19?")] }, config);
    expect(model.received[0]!.tools).toEqual(expect.arrayContaining(["search_transactions", "recall"]));
    const answer = messages.find((m): m is ToolMessage => m.type === "tool" && m.name === "recall")!;
    expect(String(answer.content).split("\n").filter((line) => line.startsWith('{"row":')).map((line) => JSON.parse(line))).toEqual([
      { row: 18, value: ROWS[17] },
      { row: 19, value: ROWS[18] },
    ]);
    expect(String(answer.content)).not.toContain("bob's private row");
    // Bob's thread, on the same checkpointer, is as he left it.
    const bobState = await bobAgent.graph.getState({ configurable: { thread_id: "t-agent-bob" } });
    expect((bobState.values as { messages: BaseMessage[] }).messages.some((m) => m.type === "tool" && m.name === "recall")).toBe(false);
  });
});

let calls = 0;
function aiCall(name: string, args: Record<string, unknown>): AIMessage {
  return new AIMessage({ content: "", tool_calls: [{ id: `recall-int-${++calls}`, name, args, type: "tool_call" }] });
}

function viewText(messages: readonly BaseMessage[]): string {
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}
