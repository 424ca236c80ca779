// The recall tool's schema bounds what a model may ask (issue 47): a request past the
// bounds is refused by the schema, before any reading, with an answer that does not echo it.
import { createEstimator } from "@contextview/core";
import { RECALL_REQUEST_LIMITS } from "@contextview/core/internal";
import { createRecallTool } from "@contextview/langgraph";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";

const messages = [
  new HumanMessage({ id: "u0", content: "Show me the rows" }),
  new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "call_r", name: "rows", args: {}, type: "tool_call" }] }),
  new ToolMessage({ id: "t0", tool_call_id: "call_r", name: "rows", content: JSON.stringify({ rows: [{ id: "r1" }] }) }),
];
const { textChars, entries } = RECALL_REQUEST_LIMITS;

describe("the recall tool's schema", () => {
  const recall = createRecallTool({ getMessages: () => messages, maxToolResultTokens: 500 });

  it.each<[string, Record<string, unknown>]>([
    ["query", { action: "search", query: "q".repeat(textChars + 1) }],
    ["message", { action: "read", message: "m".repeat(textChars + 1) }],
    ["collection", { action: "rows", message: "call_r", collection: "c".repeat(textChars + 1), rows: [1] }],
    ["ids", { action: "rows", message: "call_r", ids: Array.from({ length: entries + 1 }, (_, i) => `id-${i}`) }],
    ["rows", { action: "rows", message: "call_r", rows: Array.from({ length: entries + 1 }, (_, i) => i + 1) }],
  ])("refuses a %s past its bound without echoing it", async (field, args) => {
    const error = await recall.invoke({ id: "c1", name: "recall", args, type: "tool_call" }).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error).toBeInstanceOf(Error);
    expect(error!.message).toContain(field);
    expect(createEstimator().estimateText(error!.message)).toBeLessThan(500);
  });

  it("takes a request at its bounds and answers within maxToolResultTokens", async () => {
    const answer = (await recall.invoke({ id: "c2", name: "recall", args: { action: "rows", message: "call_r", ids: Array.from({ length: entries }, (_, i) => `id-${i}`) }, type: "tool_call" })) as ToolMessage;
    expect(createEstimator().estimateText(String(answer.content))).toBeLessThanOrEqual(500);
  });
});
