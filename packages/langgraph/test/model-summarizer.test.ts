import type { ManagedReport } from "@contextview/core";
import { ContextIntegrationError, ContextViewAnnotation, createContextNode, withContext, type ReportListener } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { RecordingChatModel, searchConversation, thrownBy } from "@contextview/test-support";

const SUMMARY = "Goal: keep rent under 900. Decisions: move savings.";

function reports() {
  const seen: ManagedReport[] = [];
  const onReport: ReportListener = (report) => void seen.push(report);
  return { seen, onReport };
}

describe("`summarizer` takes a chat model, as LangChain's summarizationMiddleware does", () => {
  it("createAgent: the model writes the summary, with contextview's summary prompt", async () => {
    const summaryModel = new RecordingChatModel({ answer: () => SUMMARY });
    const { seen, onReport } = reports();
    const agent = createAgent({
      model: new RecordingChatModel(),
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [contextMiddleware({ summarizer: summaryModel, budget: { promptBudget: 3000 }, onReport })],
    });
    await agent.invoke({ messages: searchConversation(20) }, { configurable: { thread_id: "t-sum", user_id: "u-1" } });
    expect(summaryModel.calls.length).toBeGreaterThan(0);
    // Called as chatModelSummarizer(model) calls it: contextview's summary prompt, then the transcript.
    expect(summaryModel.calls[0]?.[0]?.content).toEqual(expect.stringContaining("You compress the earlier part of a conversation"));
    expect(seen[0]?.compaction.kind).toBe("summary");
    expect(seen[0]?.compaction.summarizerCalls).toBe(summaryModel.calls.length);
  });

  it("a StateGraph node: the summary reaches the view", async () => {
    const summaryModel = new RecordingChatModel({ answer: () => SUMMARY });
    const model = new RecordingChatModel();
    const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
      .addNode("context", createContextNode({ summarizer: summaryModel, budget: { promptBudget: 3000 } }))
      .addNode("model", async (state) => ({ messages: [await model.invoke(state.llmInputMessages)] }))
      .addEdge(START, "context")
      .addEdge("context", "model")
      .addEdge("model", END)
      .compile();
    await graph.invoke({ messages: searchConversation(20) }, { configurable: { thread_id: "t-node", user_id: "u-1" } });
    expect(JSON.stringify(model.calls[0]?.map((message) => message.content))).toContain("keep rent under 900. Decisions");
  });

  it("a function summarizer is still called as it is", async () => {
    const summarizer = jest.fn(async () => SUMMARY);
    const model = withContext(new RecordingChatModel(), { summarizer, budget: { promptBudget: 3000 } });
    await model.invoke(searchConversation(20), { configurable: { thread_id: "t-fn", user_id: "u-1" } });
    expect(summarizer).toHaveBeenCalled();
  });

  it.each([["gpt-4.1-mini"], [{ model: "gpt-4.1-mini" }], [42]])("refuses %j, naming `summarizer` and what it takes", (value) => {
    const error = thrownBy<ContextIntegrationError>(() => contextMiddleware({ summarizer: value as never }));
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", field: "summarizer" });
    expect(error.message).toContain("Expected `summarizer` to be a chat model");
  });
});

describe("LangChain's `trigger` and `keep` point to what does their job here", () => {
  it.each([
    ["trigger", { tokens: 4000 }, ["`summaries.triggerRatio`", "`budget: { promptBudget }`"]],
    ["keep", { messages: 20 }, ["`summaries: { keepMinTokens, keepMinText }`", "`keepMaxTokens`"]],
  ])("`%s`", (name, value, mentions) => {
    const error = thrownBy<ContextIntegrationError>(() => contextMiddleware({ summarizer: new RecordingChatModel(), [name]: value } as never));
    expect(error).toMatchObject({ code: "INVALID_OPTION", field: name });
    expect(error.message).toMatch(new RegExp(`^Unknown option \`${name}\`: LangChain's \`${name}\``));
    for (const mention of mentions) expect(error.message).toContain(mention);
  });
});
