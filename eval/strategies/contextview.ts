import { join } from "node:path";
import { buildContext, chatModelSummarizer } from "@contextview/core";
import { ContextViewAnnotation, createContextNode } from "@contextview/langgraph";
import { SqliteContextStore } from "@contextview/sqlite";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { answersOf, callPoints, cloneMessage, ReplayChatModel, replayTools, userTurns } from "../replay.js";
import { ExtractiveSummarizerModel } from "../summarizer.js";
import type { Strategy, StrategyRun } from "../types.js";
import { checkpointDiffers } from "./agent-harness.js";

const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : String(error));

/**
 * `buildContext` alone, the pure engine: no summarizer, no store. Each model call's
 * view is built from the transcript up to that call. There is no checkpoint; the
 * inputs are checked to be unchanged afterwards instead.
 */
export const buildContextStrategy: Strategy = {
  name: "contextview buildContext",
  harness: "pure function over the transcript",
  settings: () => "defaults (keep 3 tool results, 2,000-token results, excerpts of dropped turns), cacheBreakpoints, system prompt and tools charged",
  async run(fixture, loaded): Promise<StrategyRun> {
    const transcript = loaded.messages.map(cloneMessage);
    const before = JSON.stringify(transcript);
    const run: StrategyRun = { calls: [], contextMs: [], checkpointRewritten: null, summarizerCalls: 0 };
    for (const point of callPoints(transcript)) {
      const start = performance.now();
      try {
        const view = buildContext({ messages: transcript.slice(0, point), systemPrompt: fixture.systemPrompt, tools: fixture.tools, budget: fixture.budget, cacheBreakpoints: true });
        run.contextMs.push(performance.now() - start);
        run.calls.push({ view: view.messages, historyLength: point });
      } catch (error) {
        run.error = describe(error);
        break;
      }
    }
    if (JSON.stringify(transcript) !== before) run.error = "buildContext changed its input messages";
    return run;
  },
};

/**
 * The full pre-model node on a real StateGraph (context → model ⇄ tools) with
 * SqliteSaver and the SQLite context store beside it, evidence updated inline and
 * the shared fake summarizer. The checkpoint is read back after the run.
 */
export const contextNodeStrategy: Strategy = {
  name: "contextview node",
  harness: "StateGraph + createContextNode, SqliteSaver + SqliteContextStore",
  settings: () => "defaults, evidence \"update\", chatModelSummarizer(the shared fake summarizer), cacheBreakpoints, system prompt and tools charged",
  async run(fixture, loaded, context): Promise<StrategyRun> {
    const transcript = loaded.messages.map(cloneMessage);
    const contextMs: number[] = [];
    const model = new ReplayChatModel(answersOf(transcript), context.count);
    const summarizer = new ExtractiveSummarizerModel({});
    const checkpointer = SqliteSaver.fromConnString(join(context.tempDir, "checkpoints.sqlite"));
    const store = SqliteContextStore.nextTo(checkpointer);
    const node = createContextNode({ store, tools: fixture.tools, systemPrompt: fixture.systemPrompt, budget: fixture.budget, summarizer: chatModelSummarizer(summarizer), view: { cacheBreakpoints: true } });
    const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
      .addNode("context", async (state, config: RunnableConfig) => {
        const start = performance.now();
        const update = await node.invoke(state, config);
        contextMs.push(performance.now() - start);
        return update;
      })
      .addNode("model", async (state, config: RunnableConfig) => ({ messages: [await model.invoke(state.llmInputMessages, config)] }))
      .addNode("tools", new ToolNode(replayTools(transcript)))
      .addEdge(START, "context")
      .addEdge("context", "model")
      .addConditionalEdges("model", (state) => ((state.messages.at(-1) as AIMessage | undefined)?.tool_calls?.length ? "tools" : END), ["tools", END])
      .addEdge("tools", "context")
      .compile({ checkpointer });
    const points = callPoints(transcript);
    // A turn of many tool calls takes three graph steps (context, model, tools) per model call.
    const config = { configurable: { thread_id: `eval-${fixture.name}`, user_id: "eval" }, recursionLimit: Math.max(200, 4 * points.length) };
    let error: string | undefined;
    try {
      for (const { message } of userTurns(transcript)) await graph.invoke({ messages: [cloneMessage(message)] }, config);
    } catch (e) {
      error = describe(e);
    }
    const state = await graph.getState(config);
    await node.drain();
    store.close();
    const produced = transcript.slice(0, points[model.views.length] ?? transcript.length);
    return {
      calls: model.views.map((view, i) => ({ view, historyLength: points[i] ?? transcript.length })),
      contextMs,
      checkpointRewritten: checkpointDiffers(produced, (state.values as { messages?: BaseMessage[] }).messages ?? []),
      summarizerCalls: summarizer.calls,
      summarizerTokens: { ...summarizer.tokens },
      ...(error === undefined ? {} : { error }),
    };
  },
};
