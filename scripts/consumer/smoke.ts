// Run in each scratch project of scripts/consumer-test.mjs, compiled there by tsc as ES
// modules or as CommonJS. A graph with the context node and a streaming fake model, measured
// by measureStreamRequest with Prometheus metrics: the counts must come out exact. Then the
// other module system's build of @contextview/langgraph/measure (require() from ESM, import() from
// CommonJS) reads this build's chunks: a mixed setup must count them too.
import { createRequire } from "node:module";
import { join } from "node:path";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { Annotation, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { Registry } from "prom-client";
import { InMemoryContextStore } from "@contextview/core";
import { conversationKey } from "@contextview/core/store";
import { ContextViewAnnotation, createContextNode, withContext } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { createStreamMetrics, measureStreamRequest, streamedText } from "@contextview/langgraph/measure";

const ANSWER = "abcdefghijklmnopqrstuvwxyz0123"; // FakeListChatModel streams one chunk per character: 30

function check(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  console.log(`ok ${what}: ${JSON.stringify(actual)}`);
}

async function main(): Promise<void> {
  const model = new FakeListChatModel({ responses: [ANSWER, ANSWER, ANSWER] });
  const wrapped = withContext(model, { store: new InMemoryContextStore(), budget: { promptBudget: 4000 } });
  const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
    .addNode("context", createContextNode({ store: new InMemoryContextStore(), budget: { promptBudget: 4000 } }))
    .addNode("model", async (state, config) => ({ messages: [await model.invoke(state.llmInputMessages, config)] }))
    .addEdge(START, "context")
    .addEdge("context", "model")
    .compile({ checkpointer: new MemorySaver() });
  const registry = new Registry();
  const metrics = createStreamMetrics({ registry });
  const config = { configurable: { thread_id: "t1", user_id: "u1" } };
  const parts: unknown[] = [];
  const { result, record } = await measureStreamRequest({ metrics, conversationId: "t1" }, async ({ callbacks, signal, measure }) => {
    let text = "";
    const stream = graph.stream({ messages: [new HumanMessage("Spell the alphabet.")] }, { ...config, callbacks, signal, streamMode: "messages" });
    for await (const part of measure(stream)) {
      parts.push(part);
      const [, metadata] = part as [unknown, { langgraph_node?: string }];
      if (metadata.langgraph_node === "model") text += streamedText(part) ?? "";
    }
    return text;
  });
  check("streamed text", result, ANSWER);
  check("record.contentChunks", record.contentChunks, 30);
  check("record.outcome", record.outcome, "success");
  const chunks = (await registry.getSingleMetric("contextview_stream_content_chunks_total")?.get())?.values[0]?.value;
  check("contextview_stream_content_chunks_total", chunks, 30);

  // A store implementer's subpath resolves in this module system, types and code.
  check("@contextview/core/store conversationKey", conversationKey("u1", "t1"), { userId: "u1", conversationId: "t1" });

  const reply = await wrapped.invoke([new HumanMessage("Again.")], config);
  check("withContext reply", reply.content, ANSWER);

  // contextMiddleware comes from its own subpath, the only one that loads `langchain`.
  const agent = createAgent({ model, tools: [], middleware: [contextMiddleware({ store: new InMemoryContextStore() })], checkpointer: new MemorySaver() });
  const agentState = await agent.invoke({ messages: [new HumanMessage("Once more.")] }, { configurable: { thread_id: "t2", user_id: "u1" } });
  check("createAgent with contextMiddleware", agentState.messages.at(-1)?.content, ANSWER);

  const other = (typeof require === "function" ? await import("@contextview/langgraph/measure") : createRequire(join(process.cwd(), "package.json"))("@contextview/langgraph/measure")) as {
    streamedText: typeof streamedText;
  };
  check("other build is another module", other.streamedText === streamedText, false);
  const modelParts = parts.filter((part) => (part as [unknown, { langgraph_node?: string }])[1].langgraph_node === "model");
  check("chunks read by the other module system's build", modelParts.map((part) => other.streamedText(part) ?? "").join("").length, 30);

  // A JSON result of 1 MiB or more is compacted in the package's worker thread: this build's
  // worker file loads from the tarball, and the graph's thread never parses the result.
  const rows = JSON.stringify(Array.from({ length: 20_000 }, (_, i) => ({ id: `r-${i}`, date: "2024-01-01", amount: i, payee: "P" })));
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
    if (text === rows) parsed++;
    return parse(text, reviver);
  }) as typeof JSON.parse;
  const large = [
    new HumanMessage({ id: "h", content: "All of them." }),
    new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c", name: "search", args: {}, type: "tool_call" }] }),
    new ToolMessage({ id: "t", tool_call_id: "c", name: "search", content: rows }),
  ];
  const update = await createContextNode({ store: new InMemoryContextStore(), budget: { promptBudget: 4000 } }).invoke({ messages: large }, { configurable: { thread_id: "large", user_id: "u1" } });
  JSON.parse = parse;
  check("a large result compacted off the graph's thread", { parsedHere: parsed, messagesShown: update.llmInputMessages.length }, { parsedHere: 0, messagesShown: 3 });
}

main().then(
  () => console.log("smoke: all 10 checks passed"),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
