import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ContextOverflowError } from "@langchain/core/errors";
import { RecordingChatModel, toolsMarker } from "@contextview/langgraph/testing";

describe("@contextview/langgraph/testing", () => {
  it("scripts tool calls, records what it received, and overflows like a provider", async () => {
    const model = new RecordingChatModel({ answer: (_messages, { index }) => (index === 0 ? new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "lookup", args: { q: "x" } }] }) : "done") });
    const first = await model.invoke([new HumanMessage("look it up")]);
    expect(first.tool_calls?.[0]).toMatchObject({ id: "c1", name: "lookup", args: { q: "x" } });
    expect(String((await model.invoke([new HumanMessage("and?")])).content)).toBe("done");
    expect(model.calls).toHaveLength(2);
    // The default script: a user turn with a marker asks for that many parallel calls.
    const calls = await new RecordingChatModel().invoke([new HumanMessage(`check ${toolsMarker(3)}`)]);
    expect(calls.tool_calls).toHaveLength(3);
    await expect(new RecordingChatModel({ overflowAboveBytes: 10 }).invoke([new HumanMessage("a long enough request")])).rejects.toBeInstanceOf(ContextOverflowError);
  });
});
