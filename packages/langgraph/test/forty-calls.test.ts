// Issue 48, tried as a new user would: after one request answered by 40 tool calls, the next
// question's view dropped the whole previous turn and used about 8% of its room. A real
// createAgent run: the previous turn stays in the next view, its results cleared (ids and
// every call's arguments kept), and its answer is there. The second question is asked of a
// stateless agent (no checkpointer, no thread id: no durable evidence at the head); beside
// durable evidence the turn still goes (see docs/concepts.md, "Why the head moves in steps").
import { InMemoryContextStore } from "@contextview/core";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { RecordingChatModel } from "@contextview/test-support";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { z } from "zod";

const accountRows = tool(
  async ({ account }) =>
    JSON.stringify({ account, rows: Array.from({ length: 12 }, (_, r) => ({ id: `tx-${account}-${r}`, date: `2024-03-${String(r + 1).padStart(2, "0")}`, amount: -(r * 7.5), payee: `Payee ${r}` })) }),
  { name: "account_rows", description: "March rows of one account.", schema: z.object({ account: z.string() }) },
);

it("keeps a 40-call turn in the next question's view, its results cleared, within the budget", async () => {
  let reports: Array<{ total: number; limit: number; dropped: number }> = [];
  const model = new RecordingChatModel({
    // Calls 0-39 ask for one account each (the view of a long loop shows only some of them), 40 answers, 41 answers the question.
    answer: (_messages: BaseMessage[], { index }) => {
      if (index > 40) return "ACC-17.";
      if (index === 40) return "All 40 accounts are reconciled; ACC-17 has a duplicate charge of 127.50.";
      return new AIMessage({ content: "", tool_calls: [{ id: `c${index}`, name: "account_rows", args: { account: `ACC-${index}` }, type: "tool_call" }] });
    },
  });
  const agent = createAgent({
    model,
    tools: [accountRows],
    checkpointer: new MemorySaver(),
    middleware: [contextMiddleware({ store: new InMemoryContextStore(), budget: { promptBudget: 8000 }, onReport: (r) => void reports.push({ total: r.tokens.total, limit: r.limit, dropped: r.turns.dropped }) })],
  });
  const config = { configurable: { thread_id: "forty", user_id: "u1" }, recursionLimit: 200 };
  const first = await agent.invoke({ messages: [{ role: "user", content: "Reconcile every account for March." }] }, config);
  expect(model.calls).toHaveLength(41);
  const history: BaseMessage[] = first.messages;
  reports = [];
  const stateless = createAgent({
    model,
    tools: [accountRows],
    middleware: [contextMiddleware({ budget: { promptBudget: 8000 }, onReport: (r) => void reports.push({ total: r.tokens.total, limit: r.limit, dropped: r.turns.dropped }) })],
  });
  const state = await stateless.invoke({ messages: [...history, new HumanMessage({ id: "q2", content: "Which account had the duplicate charge?" })] });
  expect(String(state.messages.at(-1)?.content)).toBe("ACC-17.");
  const view = model.calls.at(-1)!;
  const text = JSON.stringify(view.map((m) => m.content));
  expect(text).toContain("ACC-17 has a duplicate charge of 127.50");
  const calls = view.filter((m): m is AIMessage => m.type === "ai").flatMap((m) => m.tool_calls ?? []);
  expect(calls.map((c) => c.args["account"])).toEqual(Array.from({ length: 40 }, (_, i) => `ACC-${i}`));
  expect(view.filter((m) => m.type === "tool")).toHaveLength(40);
  expect(reports).toHaveLength(1);
  expect(reports[0]!.dropped).toBe(0);
  expect(reports[0]!.total).toBeLessThanOrEqual(reports[0]!.limit);
  expect(reports[0]!.total).toBeGreaterThan(reports[0]!.limit / 4);
});
