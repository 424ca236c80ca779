import { InMemoryContextStore } from "@contextview/core";
import { withContext, type ContextLogRecord } from "@contextview/langgraph";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import type { Serialized } from "@langchain/core/load/serializable";
import { RecordingChatModel, searchTool } from "@contextview/test-support";
import { searchConversation } from "@contextview/test-support";

const config = { configurable: { thread_id: "t-1", user_id: "u-1" } };
const key = { userId: "u-1", conversationId: "t-1" };

class StartRecorder extends BaseCallbackHandler {
  name = "start-recorder";
  readonly starts: { tags: string[] | undefined; messages: number }[] = [];
  override handleChatModelStart(_llm: Serialized, messages: unknown[][], _runId: string, _parent?: string, _extra?: unknown, tags?: string[]) {
    this.starts.push({ tags, messages: messages[0]?.length ?? 0 });
  }
}

describe("withContext", () => {
  it("calls the model with a view and passes the caller's callbacks and tags", async () => {
    const model = new RecordingChatModel();
    const wrapped = withContext(model, { budget: { promptBudget: 3000 } });
    const recorder = new StartRecorder();
    const messages = searchConversation(30);
    const reply = await wrapped.invoke(messages, { ...config, callbacks: [recorder], tags: ["mine"] });
    expect(String(reply.content)).toContain("Answer");
    expect(model.calls[0]?.length).toBeLessThan(messages.length);
    expect(recorder.starts).toEqual([{ tags: ["mine"], messages: model.calls[0]?.length }]);
  });

  it("recovers once from a context overflow with a smaller view", async () => {
    const model = new RecordingChatModel({ overflowAboveBytes: 6000 });
    const logger = { records: [] as ContextLogRecord[], info(record: ContextLogRecord) { this.records.push(record); }, warn() {} };
    const wrapped = withContext(model, { budget: { promptBudget: 3000 }, logger });
    await expect(wrapped.invoke(searchConversation(30), config)).resolves.toBeDefined();
    expect(model.overflows).toBe(1);
    expect(model.calls).toHaveLength(2);
    expect(logger.records.filter((r) => r.event === "context_budget").map((r) => (r as { overflowRecovery: boolean }).overflowRecovery)).toEqual([false, true]);
  });

  it("surfaces a second overflow", async () => {
    const model = new RecordingChatModel({ overflowAboveBytes: 10 });
    await expect(withContext(model).invoke(searchConversation(3), config)).rejects.toThrow("prompt is too long");
    expect(model.calls).toHaveLength(2);
  });

  it("feeds usage_metadata to calibration", async () => {
    const store = new InMemoryContextStore();
    const wrapped = withContext(new RecordingChatModel({ usageRatio: 1.4 }), { store, evidence: "off" });
    await wrapped.invoke(searchConversation(5), config);
    const calibration = (await store.getCompaction(key))?.calibration;
    expect(calibration?.samples).toBe(1);
    expect(calibration?.ratio).toBeGreaterThan(1);
  });

  it("charges the tools bound with bindTools", async () => {
    const records: ContextLogRecord[] = [];
    const logger = { info: (r: ContextLogRecord) => void records.push(r), warn: () => undefined };
    await withContext(new RecordingChatModel().bindTools([searchTool()]), { logger }).invoke(searchConversation(2), config);
    expect(records.find((r) => r.event === "prompt_budget")).toMatchObject({ toolTokens: expect.any(Number) });
    expect((records.find((r) => r.event === "prompt_budget") as { toolTokens: number }).toolTokens).toBeGreaterThan(0);
  });

  it("streams the model's chunks and records usage at the end", async () => {
    const store = new InMemoryContextStore();
    const wrapped = withContext(new RecordingChatModel(), { store, evidence: "off" });
    const chunks: string[] = [];
    for await (const chunk of await wrapped.stream(searchConversation(4), config)) chunks.push(String(chunk.content));
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.join("")).toMatch(/^Answer 1: /);
    expect((await store.getCompaction(key))?.calibration?.samples).toBe(1);
  });

  it("retries a stream that overflows before its first chunk", async () => {
    const model = new RecordingChatModel({ overflowAboveBytes: 6000 });
    const chunks: unknown[] = [];
    for await (const chunk of await withContext(model, { budget: { promptBudget: 3000 } }).stream(searchConversation(30), config)) chunks.push(chunk);
    expect(model.overflows).toBe(1);
    expect(chunks.length).toBeGreaterThan(0);
  });

  it("works with FakeListChatModel", async () => {
    const wrapped = withContext(new FakeListChatModel({ responses: ["pong"] }));
    expect((await wrapped.invoke(searchConversation(1), config)).content).toBe("pong");
  });
});
