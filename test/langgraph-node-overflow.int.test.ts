import { join } from "node:path";
import { SqliteContextStore } from "@contextview/sqlite";
import { createContextNode, type ContextBudgetRecord, type ContextLogRecord } from "@contextview/langgraph";
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { ChatResult } from "@langchain/core/outputs";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { END, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { GraphState } from "./support/custom-graph.js";
import { configFor, useTempDir } from "./support/thread.js";

/** A fake chat model that fails the first `overflows` calls with a provider-style overflow, then answers. */
class OverflowingOnceModel extends FakeListChatModel {
  readonly received: BaseMessage[][] = [];
  constructor(
    private overflows: number,
    private readonly how: "error" | "reply" = "error",
  ) {
    super({ responses: ["Rent stays under 900."] });
  }

  override async _generate(messages: BaseMessage[], options?: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    this.received.push(messages);
    if (this.overflows > 0) {
      this.overflows--;
      if (this.how === "error") throw new ContextOverflowError("prompt is too long: 200000 tokens > 128000 maximum");
      const message = new AIMessage({ content: "", response_metadata: { finish_reason: "model_context_window_exceeded" } });
      return { generations: [{ message, text: "" }] };
    }
    return super._generate(messages, options, runManager);
  }
}

function history(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: we must keep rent under 900. ${"details ".repeat(60)}` }));
    out.push(new AIMessage({ id: `a${i}`, content: `Answer ${i}: noted. ${"reasons ".repeat(60)}` }));
  }
  return out;
}

async function graphWith(dir: string, model: OverflowingOnceModel, recover: boolean) {
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
    const model = new OverflowingOnceModel(1, how);
    const { graph, records } = await graphWith(tempDir(), model, true);
    const config = configFor("thread", "alice");
    await graph.updateState(config, { messages: history(40) });
    const result = await graph.invoke({ messages: [new HumanMessage({ id: "current", content: "What did we decide about rent?" })] }, config);

    expect(model.received).toHaveLength(2);
    const [first, second] = model.received as [BaseMessage[], BaseMessage[]];
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
    const model = new OverflowingOnceModel(2);
    const { graph } = await graphWith(tempDir(), model, true);
    const config = configFor("thread", "bob");
    await graph.updateState(config, { messages: history(10) });
    await expect(graph.invoke({ messages: [new HumanMessage("And now?")] }, config)).rejects.toThrow("prompt is too long");
    expect(model.received).toHaveLength(2);
    const state = await graph.getState(config);
    expect((state.values.messages as BaseMessage[]).at(-1)?.type).toBe("human");
  });

  it("without the wrapper, the first overflow fails the run (the behaviour the wrapper fixes)", async () => {
    const model = new OverflowingOnceModel(1);
    const { graph } = await graphWith(tempDir(), model, false);
    await expect(graph.invoke({ messages: [new HumanMessage("hi")] }, configFor("thread", "carol"))).rejects.toThrow("prompt is too long");
    expect(model.received).toHaveLength(1);
  });
});
