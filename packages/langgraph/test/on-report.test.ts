import type { ManagedReport } from "@contextview/core";
import { createContextNode, withContext, type ReportListener } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { RecordingChatModel, searchConversation } from "@contextview/test-support";

const config = { configurable: { thread_id: "t-report", user_id: "u-1" } };
const budget = { promptBudget: 3000 };

/** An onReport that keeps what it is given, and one that throws. */
function listener() {
  const seen: { report: ManagedReport; source: string; conversationId: string }[] = [];
  const onReport: ReportListener = (report, meta) => void seen.push({ report, source: meta.source, conversationId: meta.conversationId });
  return { seen, onReport };
}
const throwing: ReportListener = () => {
  throw new Error("observer down");
};

describe("onReport", () => {
  it("receives the report of every view from the node", async () => {
    const { seen, onReport } = listener();
    const node = createContextNode({ budget, onReport });
    await node.invoke({ messages: searchConversation(20) }, config);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.source).toBe("node");
    expect(seen[0]?.conversationId).toBe("t-report");
    expect(seen[0]?.report.tokens.total).toBeLessThanOrEqual(seen[0]?.report.limit ?? 0);
    expect(seen[0]?.report.turns.dropped).toBeGreaterThan(0);
  });

  it("receives the report of every view from the wrapper", async () => {
    const { seen, onReport } = listener();
    await withContext(new RecordingChatModel(), { budget, onReport }).invoke(searchConversation(20), config);
    expect(seen.map((s) => s.source)).toEqual(["wrapper"]);
    expect(seen[0]?.report.compaction.kind).not.toBeUndefined();
  });

  it("receives the report of every model call from the createAgent middleware", async () => {
    const { seen, onReport } = listener();
    const agent = createAgent({ model: new RecordingChatModel(), tools: [], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ budget, onReport })] });
    await agent.invoke({ messages: searchConversation(20) } as never, config as never);
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.every((s) => s.source === "middleware")).toBe(true);
  });

  it("never fails the model call when it throws", async () => {
    await expect(withContext(new RecordingChatModel(), { budget, onReport: throwing }).invoke(searchConversation(20), config)).resolves.toBeDefined();
  });

  it("is refused when it is not a function, naming the option", () => {
    expect(() => createContextNode({ onReport: 42 as never })).toThrow(/`onReport`/);
  });
});
