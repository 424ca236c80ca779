import { AIMessageChunk, type AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { FakeListChatModel, FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { Registry } from "prom-client";
import { z } from "zod";
import { ContextIntegrationError } from "@contextview/langgraph";
import { createStreamMetrics, measureStreamRequest, streamedText, type StreamRequestRecord } from "@contextview/langgraph/measure";
import { RecordingChatModel, type StreamedAnswer } from "@contextview/test-support";

const TOOL_MS = 30;
const lookup = tool(
  async ({ q }: { q: string }) => {
    await new Promise((resolve) => setTimeout(resolve, TOOL_MS));
    return `rows for ${q}`;
  },
  { name: "lookup", description: "Look rows up.", schema: z.object({ q: z.string() }) },
);

type ChatModel = { bindTools?: (tools: unknown[]) => { invoke(messages: BaseMessage[], config?: RunnableConfig): Promise<AIMessage> } } & {
  invoke(messages: BaseMessage[], config?: RunnableConfig): Promise<AIMessage>;
};

/** model ⇄ tools: a real graph streamed with streamMode "messages". */
function agent(model: ChatModel) {
  const bound = model.bindTools ? model.bindTools([lookup]) : model;
  return new StateGraph(MessagesAnnotation)
    .addNode("model", async (state, config) => ({ messages: [await bound.invoke(state.messages, config)] }))
    .addNode("tools", new ToolNode([lookup]))
    .addEdge(START, "model")
    .addConditionalEdges("model", (state) => ((state.messages.at(-1) as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addEdge("tools", "model")
    .compile();
}

/** The recording fake playing streamed answers in order, reporting its provider and model like a provider's model would. */
const scriptedStream = (answers: StreamedAnswer[]) =>
  new RecordingChatModel({ reportsUsage: false, provider: { name: "scripted-provider", model: "scripted-1" }, answer: (_messages, { index }) => answers[index % answers.length] ?? new Error("no scripted answer") });
const toolTurn: StreamedAnswer = { segments: [""], usage: { output: 7, reasoning: 5 }, toolCall: { id: "call-1", name: "lookup", args: { q: "rent" } } };
const answerTurn: StreamedAnswer = { segments: ["Rent ", "was ", "900 ", "dollars."], usage: { output: 12 } };

async function streamThrough(model: ChatModel, options: Parameters<typeof measureStreamRequest>[0], afterStream?: () => Promise<void>, onChunk?: (i: number) => void) {
  const graph = agent(model);
  const seen: string[] = [];
  const outcome = await measureStreamRequest(options, async ({ callbacks, signal, measure }) => {
    const stream = graph.stream({ messages: [{ role: "user", content: "what was my rent?" }] }, { callbacks, signal, streamMode: "messages" });
    let i = 0;
    for await (const part of measure(stream)) {
      const text = streamedText(part);
      if (text) seen.push(text);
      onChunk?.(i++);
    }
    await afterStream?.();
    return seen.join("");
  });
  return { ...outcome, seen };
}

function logger() {
  const records: { level: string; record: StreamRequestRecord }[] = [];
  return { records, info: (record: StreamRequestRecord) => void records.push({ level: "info", record }), warn: (record: StreamRequestRecord) => void records.push({ level: "warn", record }) };
}

async function counterValues(registry: Registry, name: string): Promise<Record<string, number>> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const out: Record<string, number> = {};
  for (const value of (metric?.values ?? []) as { labels: Record<string, string>; value: number }[]) out[Object.values(value.labels).join(",")] = value.value;
  return out;
}

describe("measureStreamRequest with real graph streams", () => {
  it("sums output usage over every model call, counts content segments, and times first content through the tool", async () => {
    const registry = new Registry();
    const log = logger();
    const { result, record } = await streamThrough(scriptedStream([toolTurn, answerTurn]), { metrics: createStreamMetrics({ registry }), logger: log, conversationId: "t-1" });
    expect(result).toBe("Rent was 900 dollars.");
    expect(record).toMatchObject({ event: "stream_request", conversationId: "t-1", outcome: "success", failedDuring: null, error: null });
    expect(record).toMatchObject({ tokens: 19, completedOutputTokens: 19, usageComplete: true, contentChunks: 4, toolCalls: 1 });
    expect(record.modelCalls).toEqual([
      expect.objectContaining({ model: "scripted-1", provider: "scripted-provider", role: "model", outcome: "success", outputTokens: 7, reasoningTokens: 5 }),
      expect.objectContaining({ model: "scripted-1", provider: "scripted-provider", outcome: "success", outputTokens: 12, reasoningTokens: null }),
    ]);
    // Content segments are not tokens: 4 segments for 12 output tokens.
    expect(record.contentChunks).not.toBe(record.tokens);
    expect(record.modelToFirstContentMs).toBeGreaterThanOrEqual(TOOL_MS - 1);
    expect(record.durationMs).toBeGreaterThanOrEqual(record.modelToFirstContentMs ?? Infinity);
    expect(log.records).toEqual([{ level: "info", record }]);
    expect(JSON.stringify(record)).not.toContain("Rent");

    expect(await counterValues(registry, "contextview_stream_requests_total")).toEqual({ success: 1 });
    expect(await counterValues(registry, "contextview_model_output_tokens_total")).toEqual({ "scripted-provider,scripted-1": 19 });
    expect(await counterValues(registry, "contextview_model_reasoning_tokens_total")).toEqual({ "scripted-provider,scripted-1": 5 });
    expect(await counterValues(registry, "contextview_stream_content_chunks_total")).toEqual({ "": 4 });
    const text = await registry.metrics();
    expect(text).toContain('contextview_stream_request_duration_seconds_count{outcome="success"} 1');
    expect(text).toContain("contextview_stream_first_content_seconds_count 1");
    expect(text).toContain('contextview_model_call_duration_seconds_count{provider="scripted-provider",model="scripted-1"} 2');
  });

  it("reports null tokens when one model call has no usage, with the known subtotal", async () => {
    const primary = scriptedStream([toolTurn]);
    const noUsage = new FakeListChatModel({ responses: ["Nine hundred."] });
    let calls = 0;
    const mixed: ChatModel = {
      bindTools: () => ({ invoke: (messages, config) => (calls++ === 0 ? primary.bindTools([lookup]) : noUsage).invoke(messages, config) as Promise<AIMessage> }),
      invoke: () => Promise.reject(new Error("bound only")),
    };
    const { record } = await streamThrough(mixed, {});
    expect(record).toMatchObject({ outcome: "success", tokens: null, completedOutputTokens: 7, usageComplete: false });
    expect(record.modelCalls.map((call) => [call.provider, call.outputTokens])).toEqual([
      ["scripted-provider", 7],
      ["FakeListChatModel", null],
    ]);
    // FakeListChatModel streams one character per segment.
    expect(record.contentChunks).toBe("Nine hundred.".length);
  });

  it("counts FakeStreamingChatModel chunks as segments and its missing usage as incomplete", async () => {
    const model = new FakeStreamingChatModel({ sleep: 0, chunks: [new AIMessageChunk("Hello "), new AIMessageChunk("there")] });
    const { record } = await streamThrough(model as unknown as ChatModel, {});
    expect(record).toMatchObject({ outcome: "success", contentChunks: 2, tokens: null, completedOutputTokens: 0, usageComplete: false });
    expect(record.modelCalls).toHaveLength(1);
  });

  it("is stalled when no part arrives within stallTimeoutMs: the run is aborted and a STREAM_STALLED error thrown", async () => {
    const registry = new Registry();
    const log = logger();
    // The model's first part would come after 2 s; the run must end at the stall, not wait for it
    // (a behaviour, not a speed: the bound is 750× the stall timeout).
    const slow = new FakeListChatModel({ responses: ["slow answer"], sleep: 2_000 });
    const started = performance.now();
    const error = await streamThrough(slow as unknown as ChatModel, { stallTimeoutMs: 2, metrics: createStreamMetrics({ registry }), logger: log }).catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(error).toMatchObject({ name: "ContextIntegrationError", code: "STREAM_STALLED" });
    const record = log.records[0]?.record;
    expect(record).toMatchObject({ outcome: "stalled", failedDuring: "stream", error: { name: "ContextIntegrationError", code: "STREAM_STALLED" }, contentChunks: 0, usageComplete: false, tokens: null });
    expect(log.records[0]?.level).toBe("warn");
    expect(await counterValues(registry, "contextview_stream_requests_total")).toEqual({ stalled: 1 });
  });

  it("is cancelled when the caller's signal aborts mid-stream", async () => {
    const registry = new Registry();
    const log = logger();
    const controller = new AbortController();
    const model = scriptedStream([toolTurn, { ...answerTurn, delayMs: 20 }]);
    const error = await streamThrough(model, { signal: controller.signal, metrics: createStreamMetrics({ registry }), logger: log }, undefined, (i) => {
      if (i === 2) controller.abort();
    }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "AbortError" });
    const record = log.records[0]?.record;
    expect(record).toMatchObject({ outcome: "cancelled", failedDuring: "stream", usageComplete: false });
    expect(record?.modelCalls[0]).toMatchObject({ outcome: "success", outputTokens: 7 });
    expect(await counterValues(registry, "contextview_stream_requests_total")).toEqual({ cancelled: 1 });
  });

  it("counts a failure during the final persistence as an error", async () => {
    const registry = new Registry();
    const log = logger();
    const persist = async () => {
      throw Object.assign(new Error("disk full"), { code: "ENOSPC" });
    };
    const error = await streamThrough(scriptedStream([toolTurn, answerTurn]), { metrics: createStreamMetrics({ registry }), logger: log }, persist).catch((e: unknown) => e);
    expect((error as Error).message).toBe("disk full");
    expect(log.records[0]?.record).toMatchObject({ outcome: "error", failedDuring: "finalize", error: { name: "Error", code: "ENOSPC" }, tokens: 19, contentChunks: 4 });
    expect(await counterValues(registry, "contextview_stream_requests_total")).toEqual({ error: 1 });
  });

  it("refuses a stallTimeoutMs above Node's longest timer (2^31 - 1 ms), which would fire after about 1 ms", async () => {
    const error = await measureStreamRequest({ stallTimeoutMs: 2 ** 31 }, async () => "never").catch((e: unknown) => e);
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(/stallTimeoutMs.*2147483647/);
  });

  it("stays stalled when the caller swallows the stall error", async () => {
    const slow = new FakeListChatModel({ responses: ["slow"], sleep: 120 });
    const graph = agent(slow as unknown as ChatModel);
    const { result, record } = await measureStreamRequest({ stallTimeoutMs: 30 }, async ({ callbacks, signal, measure }) => {
      try {
        for await (const part of measure(graph.stream({ messages: [{ role: "user", content: "hi" }] }, { callbacks, signal, streamMode: "messages" }))) void part;
        return "done";
      } catch {
        return "gave up";
      }
    });
    expect(result).toBe("gave up");
    expect(record).toMatchObject({ outcome: "stalled", failedDuring: "stream" });
  });
});

describe("createStreamMetrics and options", () => {
  it("reuses the metrics already registered in the same registry", async () => {
    const registry = new Registry();
    const a = createStreamMetrics({ registry });
    const b = createStreamMetrics({ registry });
    const record = { event: "stream_request", outcome: "success", durationMs: 5, modelToFirstContentMs: null, contentChunks: 0, usageComplete: true, modelCalls: [] } as unknown as StreamRequestRecord;
    a.observe(record);
    b.observe(record);
    expect(await counterValues(registry, "contextview_stream_requests_total")).toEqual({ success: 2 });
    const custom = new Registry();
    createStreamMetrics({ registry: custom, prefix: "app_" }).observe(record);
    expect(await counterValues(custom, "app_stream_requests_total")).toEqual({ success: 1 });
  });

  it.each([
    ["registry", () => createStreamMetrics({ registry: {} as never })],
    ["prefix", () => createStreamMetrics({ registry: new Registry(), prefix: "bad-prefix" })],
    ["durationBuckets", () => createStreamMetrics({ registry: new Registry(), durationBuckets: [1, 0.5] })],
    ["stallTimeoutMs", () => measureStreamRequest({ stallTimeoutMs: -1 }, async () => 1)],
    ["signal", () => measureStreamRequest({ signal: "stop" as never }, async () => 1)],
    ["metrics", () => measureStreamRequest({ metrics: {} as never }, async () => 1)],
    ["logger", () => measureStreamRequest({ logger: console.log as never }, async () => 1)],
    ["run", () => measureStreamRequest({}, "go" as never)],
  ])("%s is validated with INVALID_OPTION naming it", async (field, make) => {
    let error: unknown;
    try {
      await make();
    } catch (e) {
      error = e;
    }
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", field });
  });

  it("works without prom-client installed; only createStreamMetrics needs it", async () => {
    let measure: typeof import("../../src/measure/index") | undefined;
    jest.isolateModules(() => {
      jest.doMock("prom-client", () => {
        throw new Error("Cannot find module 'prom-client'");
      });
      measure = require("../../src/measure/index") as typeof import("../../src/measure/index");
    });
    if (!measure) throw new Error("not loaded");
    const { record } = await measure.measureStreamRequest({}, async () => "ok");
    expect(record.outcome).toBe("success");
    expect(() => measure?.createStreamMetrics({ registry: new Registry() })).toThrow(expect.objectContaining({ code: "MISSING_PEER_DEPENDENCY", field: "prom-client" }));
  });
});

describe("streamedText", () => {
  it.each([
    ["an AIMessageChunk", new AIMessageChunk("Hi"), "Hi"],
    ["a messages-mode pair", [new AIMessageChunk({ content: [{ type: "text", text: "Hi" }] }), { langgraph_node: "model" }], "Hi"],
    ["a multi-mode messages part", ["messages", [new AIMessageChunk("Hi"), {}]], "Hi"],
    ["an on_chat_model_stream event", { event: "on_chat_model_stream", data: { chunk: new AIMessageChunk("Hi") } }, "Hi"],
    ["a string", "Hi", "Hi"],
    ["a state update", { model: { messages: [] } }, undefined],
    ["a whole message a node returned", [{ type: "ai", content: "view" }, {}], undefined],
  ])("%s", (_name, part, expected) => {
    expect(streamedText(part)).toBe(expected);
  });
});
