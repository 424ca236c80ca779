// The case of issue 14: an ES-module app streams AIMessageChunks of @langchain/core's ESM
// build into our code, which loaded another copy. jest.isolateModules gives that second copy.
import * as messages from "@langchain/core/messages";
import { measureStreamRequest, streamedText } from "@contextview/langgraph/measure";

type Messages = typeof messages;
let other: Messages;
jest.isolateModules(() => {
  other = require("@langchain/core/messages") as Messages;
});

describe("streamed chunks from another copy of @langchain/core", () => {
  it("is a copy whose chunks our AIMessageChunk.isInstance rejects", () => {
    expect(other.AIMessageChunk).not.toBe(messages.AIMessageChunk);
    expect(messages.AIMessageChunk.isInstance(new other.AIMessageChunk("Hel"))).toBe(false);
  });

  it.each([
    ["a chunk", (c: unknown) => c],
    ["a [chunk, metadata] pair", (c: unknown) => [c, { langgraph_node: "model" }]],
    ["a multi-mode messages part", (c: unknown) => ["messages", [c, { langgraph_node: "model" }]]],
    ["an on_chat_model_stream event", (c: unknown) => ({ event: "on_chat_model_stream", data: { chunk: c } })],
  ])("streamedText reads %s", (_name, wrap) => {
    expect(streamedText(wrap(new other.AIMessageChunk("Hel")))).toBe("Hel");
    expect(streamedText(wrap(new other.AIMessage("whole")))).toBeUndefined();
  });

  it("measureStreamRequest counts 30 chunks of the other copy", async () => {
    async function* stream() {
      for (let i = 0; i < 30; i++) yield [new other.AIMessageChunk(`t${i} `), { langgraph_node: "model" }] as const;
    }
    const { result, record } = await measureStreamRequest({}, async ({ measure }) => {
      let text = "";
      for await (const part of measure(stream())) text += streamedText(part) ?? "";
      return text;
    });
    expect(result.split(" ").filter(Boolean)).toHaveLength(30);
    expect(record.contentChunks).toBe(30);
    expect(record.outcome).toBe("success");
  });
});
