// `rows` on a large tool result runs in the process's worker thread (issue 47: the recall
// tool froze the event loop, parsing 40 MB of JSON on every call): the answer is the one
// the calling thread would give, the graph's thread never parses the result, and a second
// call on the same messages reuses what the worker parsed.
import { LARGE_RESULT_CHARS } from "@contextview/core/tool-results";
import { recallFromConversation, type RecallRequest } from "@contextview/core/internal";
import { createRecallTool } from "@contextview/langgraph";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { stopLargeResultWorker } from "../src/large-results.js";

const rows = Array.from({ length: 20_000 }, (_, i) => ({ id: `tx-${i}`, amount: i, memo: `purchase ${i} at the corner market` }));
const content = JSON.stringify({ query: "all", transactions: rows });
const thread = (): BaseMessage[] => [
  new HumanMessage({ id: "u0", content: "all of them" }),
  new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "call_big", name: "search", args: {}, type: "tool_call" }] }),
  new ToolMessage({ id: "t0", tool_call_id: "call_big", name: "search", content }),
  new HumanMessage({ id: "u1", content: "row 881?" }),
];

afterAll(() => stopLargeResultWorker());

describe("the recall tool on a large result", () => {
  it("answers rows in the worker: the calling thread's answer, without parsing the result here", async () => {
    expect(content.length).toBeGreaterThanOrEqual(LARGE_RESULT_CHARS);
    const messages = thread();
    const tool = createRecallTool({ getMessages: () => messages });
    const parse = jest.spyOn(JSON, "parse");
    const requests: RecallRequest[] = [
      { action: "rows", message: "call_big", rows: ["881-883"] },
      { action: "rows", message: "call_big", ids: ["tx-19999", "nope"] },
      { action: "rows", message: 2, collection: "transactions", rows: [1, 25_000] },
    ];
    const answers: string[] = [];
    try {
      for (const request of requests) answers.push(String(await tool.invoke(request as never)));
      expect(parse.mock.calls.filter(([text]) => text === content)).toEqual([]);
    } finally {
      parse.mockRestore();
    }
    expect(answers).toEqual(requests.map((request) => recallFromConversation(thread(), request).text));
    expect(answers[0]).toContain('{"row":882,"value":{"id":"tx-881"');
  });

  it("a small result is answered on this thread as before", async () => {
    const small = [new ToolMessage({ id: "t1", tool_call_id: "c1", name: "search", content: JSON.stringify({ transactions: rows.slice(0, 5) }) })];
    const tool = createRecallTool({ getMessages: () => small });
    expect(String(await tool.invoke({ action: "rows", message: "c1", rows: [2] } as never))).toContain('"id":"tx-1"');
  });
});
