import { join } from "node:path";
import { SqliteContextStore } from "@contextview/sqlite";
import { createContextNode, type ContextBudgetRecord, type ContextLogRecord } from "@contextview/langgraph";
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { END, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { RecordingChatModel } from "@contextview/test-support";
import { GraphState } from "./support/custom-graph.js";
import { configFor, useTempDir } from "./support/thread.js";

/** The recording fake, failing the first `overflows` calls with a provider-style overflow (thrown or as a reply), then answering. */
function overflowingModel(overflows: number, how: "error" | "reply" = "error"): RecordingChatModel {
  return new RecordingChatModel({
    reportsUsage: false,
    answer: (_messages, { index }) => {
      if (index >= overflows) return "Rent stays under 900.";
      if (how === "error") return new ContextOverflowError("prompt is too long: 200000 tokens > 128000 maximum");
      return new AIMessage({ content: "", response_metadata: { finish_reason: "model_context_window_exceeded" } });
    },
  });
}

function history(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: we must keep rent under 900. ${"details ".repeat(60)}` }));
    out.push(new AIMessage({ id: `a${i}`, content: `Answer ${i}: noted. ${"reasons ".repeat(60)}` }));
  }
  return out;
}

async function graphWith(dir: string, model: RecordingChatModel, recover: boolean) {
  const saver = SqliteSaver.fromConnString(join(dir, "checkpoints.sqlite"));
  const records: ContextLogRecord[] = [];
  const context = createContextNode({ store: SqliteContextStore.nextTo(saver), budget: { promptBudget: 3000 }, logger: { info: (r) => void records.push(r), warn: () => undefined } });
  const callModel = async (state: typeof GraphState.State) => ({ messages: [await model.invoke(state.llmInputMessages)] });
  const graph = new StateGraph(GraphState)
    .addNode("context", context)
    .addNode("model", recover ? context.withOverflowRecovery(callModel) : callModel)
    .addEdge(START, "context")
    .addEdge("context", "model")
    .addEdge("model", END)
    .compile({ checkpointer: saver });
  return { graph, records, saver };
}

describe("overflow recovery on the node path (context.withOverflowRecovery in a StateGraph)", () => {
  const tempDir = useTempDir();

  it.each(["error", "reply"] as const)("rebuilds a smaller view once after an overflow %s and answers", async (how) => {
    const model = overflowingModel(1, how);
    const { graph, records } = await graphWith(tempDir(), model, true);
    const config = configFor("thread", "alice");
    await graph.updateState(config, { messages: history(40) });
    const result = await graph.invoke({ messages: [new HumanMessage({ id: "current", content: "What did we decide about rent?" })] }, config);

    expect(model.calls).toHaveLength(2);
    const [first, second] = model.calls as [BaseMessage[], BaseMessage[]];
    expect(second.length).toBeLessThan(first.length);
    expect(second.at(-1)?.id).toBe("current");
    const budgets = records.filter((r): r is ContextBudgetRecord => r.event === "context_budget");
    expect(budgets.map((r) => r.overflowRecovery)).toEqual([false, true]);
    expect(budgets[1]?.estimatedTokens).toBeLessThan(budgets[0]?.estimatedTokens ?? 0);
    // The checkpoint keeps every message and only the real answer: the overflow is not stored.
    const messages = result.messages as BaseMessage[];
    expect(messages).toHaveLength(82);
    expect(String(messages.at(-1)?.content)).toBe("Rent stays under 900.");
  });

  it("surfaces a second overflow and leaves the checkpoint without an answer", async () => {
    const model = overflowingModel(2);
    const { graph } = await graphWith(tempDir(), model, true);
    const config = configFor("thread", "bob");
    await graph.updateState(config, { messages: history(10) });
    await expect(graph.invoke({ messages: [new HumanMessage("And now?")] }, config)).rejects.toThrow("prompt is too long");
    expect(model.calls).toHaveLength(2);
    const state = await graph.getState(config);
    expect((state.values.messages as BaseMessage[]).at(-1)?.type).toBe("human");
  });

  it("without the wrapper, the first overflow fails the run (the behaviour the wrapper fixes)", async () => {
    const model = overflowingModel(1);
    const { graph } = await graphWith(tempDir(), model, false);
    await expect(graph.invoke({ messages: [new HumanMessage("hi")] }, configFor("thread", "carol"))).rejects.toThrow("prompt is too long");
    expect(model.calls).toHaveLength(1);
  });
});
