import { ContextViewAnnotation, ContextViewStateSchema, ViewMessagesChannel, createContextNode } from "@contextview/langgraph";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";

const config = { configurable: { thread_id: "t-1", user_id: "u-1" } };

async function checkpointsOf(saver: MemorySaver) {
  const tuples = [];
  for await (const tuple of saver.list(config)) tuples.push(tuple);
  return tuples;
}

describe("the llmInputMessages channel", () => {
  it.each([
    ["Annotation", Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec })],
    ["StateSchema", ContextViewStateSchema],
  ])("(%s) carries the view to the model node but never reaches a checkpoint or its writes", async (_name, state) => {
    const saver = new MemorySaver();
    const received: BaseMessage[][] = [];
    const graph = new StateGraph(state as typeof ContextViewStateSchema)
      .addNode("context", createContextNode())
      .addNode("model", (s: { llmInputMessages?: BaseMessage[] }) => {
        received.push(s.llmInputMessages ?? []);
        return { messages: [new AIMessage("ok")] };
      })
      .addEdge(START, "context")
      .addEdge("context", "model")
      .addEdge("model", END)
      .compile({ checkpointer: saver });
    await graph.invoke({ messages: [new HumanMessage("hello")] }, config);
    expect(received[0]?.map((m) => m.content)).toEqual(["hello"]);
    const tuples = await checkpointsOf(saver);
    expect(tuples.length).toBeGreaterThan(2);
    for (const tuple of tuples) {
      expect(tuple.checkpoint.channel_values["llmInputMessages"]).toBeUndefined();
      expect(JSON.stringify(tuple.checkpoint.channel_values)).not.toContain("llmInputMessages");
      expect((tuple.pendingWrites ?? []).map(([, channel]) => channel)).not.toContain("llmInputMessages");
    }
  });

  it("counts as the same channel as a prebuilt's reducer channel, so the untracked one is kept", () => {
    const ours = new ViewMessagesChannel();
    const prebuilt = Annotation<BaseMessage[]>({ reducer: (_a, b) => b, default: () => [] });
    expect(ours.equals(prebuilt)).toBe(true);
    expect(ours.fromCheckpoint()).toBeInstanceOf(ViewMessagesChannel);
    expect(ours.checkpoint()).toBeUndefined();
  });
});
