import { createEstimator, InMemoryContextStore } from "@contextview/core";
import { computeLargeResultFloors, LARGE_RESULT_CHARS, type LargeResultJob } from "@contextview/core/tool-results";
import { portableEstimatorSpec } from "@contextview/core/internal";
import { ContextIntegrationError, createContextNode } from "@contextview/langgraph";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { stopLargeResultWorker, workerLargeResults } from "../src/large-results.js";

/** Rows enough for about `chars` characters of JSON; `prefix` keeps each test's text its own. */
function rowsJson(chars: number, prefix: string): string {
  return JSON.stringify(Array.from({ length: Math.ceil(chars / 70) }, (_, i) => ({ id: `${prefix}-${i}`, date: "2024-03-01", amount: i * 0.5, payee: `Payee ${i % 30}` })));
}

function conversation(content: string): BaseMessage[] {
  return [
    new HumanMessage({ id: "h1", content: "Every transaction, please." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "all" }, type: "tool_call" }] }),
    new ToolMessage({ id: "t1", tool_call_id: "c1", name: "search", content }),
  ];
}

const spec = portableEstimatorSpec(createEstimator())!;
const budget = { contextWindow: 32768, promptBudget: 8000 };

describe("the large-result worker thread", () => {
  it("computes what the same computation gives in this thread, for jobs sent at once", async () => {
    const jobs: LargeResultJob[] = [rowsJson(LARGE_RESULT_CHARS + 100, "one"), rowsJson(LARGE_RESULT_CHARS / 2, "two"), "[not json"].map((text) => ({ text, estimator: spec, maxTokens: 8000 }));
    const floors = await Promise.all(jobs.map((job) => workerLargeResults(job)));
    expect(floors).toEqual(jobs.map((job) => computeLargeResultFloors(job)));
    expect(floors.map((f) => f.kind)).toEqual(["tree", "tree", "text"]);
  });

  it("a text with a surrogate pair cut at a slice boundary arrives whole", async () => {
    // Slices are 2^19 characters: put an emoji across the first boundary.
    const pad = "x".repeat((1 << 19) - 10);
    const text = JSON.stringify({ note: `${pad}😀 and more`, rows: [{ id: "r1" }] });
    expect(await workerLargeResults({ text, estimator: spec, maxTokens: 2000 })).toEqual(computeLargeResultFloors({ text, estimator: spec, maxTokens: 2000 }));
  });

  it("a context node builds with it the view it builds without, and never parses the result on the graph's thread", async () => {
    const content = rowsJson(LARGE_RESULT_CHARS + 5000, "node");
    const inline = await createContextNode({ store: new InMemoryContextStore(), budget, advanced: { largeResultWorker: false } }).invoke({ messages: conversation(content) }, { configurable: { thread_id: "inline", user_id: "u" } });
    const node = createContextNode({ store: new InMemoryContextStore(), budget });
    // A copy of the text, so the memo of the build above is not found.
    const copy = JSON.parse(JSON.stringify(content)) as string;
    const spy = jest.spyOn(JSON, "parse");
    let update;
    try {
      update = await node.invoke({ messages: conversation(copy) }, { configurable: { thread_id: "worker", user_id: "u" } });
      expect(spy.mock.calls.filter(([arg]) => arg === copy)).toHaveLength(0);
    } finally {
      spy.mockRestore();
    }
    expect(update.llmInputMessages).toEqual(inline.llmInputMessages);
  });

  it("a worker ended while a job waits fails that job only: one sent to the worker started after it is answered", async () => {
    const first = workerLargeResults({ text: rowsJson(LARGE_RESULT_CHARS * 2, "ended"), estimator: spec, maxTokens: 8000 });
    const ended = stopLargeResultWorker();
    const job = { text: rowsJson(LARGE_RESULT_CHARS, "after"), estimator: spec, maxTokens: 8000 };
    const second = workerLargeResults(job);
    await ended;
    await expect(first).rejects.toThrow(/exited/);
    expect(await second).toEqual(computeLargeResultFloors(job));
  });

  it("an aborted request does not wait; a bad largeResultWorker option names the field", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    await expect(workerLargeResults({ text: "[]", estimator: spec, maxTokens: 10 }, controller.signal)).rejects.toThrow("gone");
    const later = new AbortController();
    const pending = workerLargeResults({ text: rowsJson(LARGE_RESULT_CHARS * 3, "abort"), estimator: spec, maxTokens: 10 }, later.signal);
    later.abort(new Error("went away"));
    await expect(pending).rejects.toThrow("went away");
    let error: unknown;
    try {
      createContextNode({ advanced: { largeResultWorker: "yes" as never } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ContextIntegrationError);
    expect(error).toMatchObject({ code: "INVALID_OPTION", field: "advanced.largeResultWorker" });
  });
});
