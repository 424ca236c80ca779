import { ContextBudgetError, ContextViewBaseError, ContextViewError, InMemoryContextStore } from "@contextview/core";
import { ContextIntegrationError, ContextViewAnnotation, createContextNode, withContext } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { ContextOverflowError } from "@langchain/core/errors";
import { HumanMessage } from "@langchain/core/messages";
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { RecordingChatModel } from "@contextview/test-support";

const config = { configurable: { thread_id: "t-errors", user_id: "u-1" } };
const tooLong = () => [new HumanMessage("a request far longer than the budget allows ".repeat(40))];
const tinyBudget = { budget: { promptBudget: 20 }, evidence: "off" as const };

async function rejectionOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

const paths: [string, () => Promise<unknown>][] = [
  [
    "node",
    () => {
      const graph = new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
        .addNode("context", createContextNode({ store: new InMemoryContextStore(), ...tinyBudget }))
        .addEdge(START, "context")
        .addEdge("context", END)
        .compile();
      return graph.invoke({ messages: tooLong() }, config);
    },
  ],
  ["wrapper", () => withContext(new RecordingChatModel(), { store: new InMemoryContextStore(), ...tinyBudget }).invoke(tooLong(), config)],
  [
    "middleware",
    () => createAgent({ model: new RecordingChatModel(), tools: [], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ store: new InMemoryContextStore(), ...tinyBudget })] }).invoke({ messages: tooLong() }, config),
  ],
];

describe.each(paths)("a budget error through the %s", (path, run) => {
  it("passes every documented guard, and carries its figures on itself or on `cause`", async () => {
    const error = await rejectionOf(run);
    expect(ContextBudgetError.isBudgetError(error)).toBe(true);
    expect(ContextBudgetError.isInstance(error)).toBe(true);
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect(ContextViewBaseError.isInstance(error)).toBe(true);
    expect((error as Error).name).toBe("ContextBudgetError");
    const budgetError = path === "middleware" ? ((error as Error).cause as ContextBudgetError) : (error as ContextBudgetError);
    expect(budgetError).toBeInstanceOf(ContextOverflowError);
    expect(budgetError).toMatchObject({ code: "CONTEXT_BUDGET_EXCEEDED", limit: 20 });
    // langchain wraps a middleware's error in its MiddlewareError; only the node and the wrapper throw ours itself.
    expect(error instanceof ContextOverflowError).toBe(path !== "middleware");
  });
});

it("ContextBudgetError.isInstance is false for a provider's overflow, which is no budget error of ours", () => {
  const providerOverflow = new ContextOverflowError("prompt is too long");
  expect(ContextOverflowError.isInstance(providerOverflow)).toBe(true);
  expect(ContextBudgetError.isInstance(providerOverflow)).toBe(false);
  expect(ContextBudgetError.isInstance(new Error("x", { cause: providerOverflow }))).toBe(false);
});

describe.each(paths.map(([path]) => path))("an integration error through the %s", (path) => {
  it("passes ContextIntegrationError.isInstance", async () => {
    const bad = { configurable: { thread_id: "t-errors", user_id: "u-1", context: { budgt: {} } } };
    const run: Record<string, () => Promise<unknown>> = {
      node: () =>
        new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))
          .addNode("context", createContextNode({ evidence: "off" }))
          .addEdge(START, "context")
          .addEdge("context", END)
          .compile()
          .invoke({ messages: [new HumanMessage("hi")] }, bad),
      wrapper: () => withContext(new RecordingChatModel(), { evidence: "off" }).invoke([new HumanMessage("hi")], bad),
      middleware: () => createAgent({ model: new RecordingChatModel(), tools: [], middleware: [contextMiddleware({ evidence: "off" })] }).invoke({ messages: [new HumanMessage("hi")] }, bad),
    };
    const error = await rejectionOf(run[path]!);
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(ContextBudgetError.isBudgetError(error)).toBe(false);
    const own = path === "middleware" ? ((error as Error).cause as ContextIntegrationError) : (error as ContextIntegrationError);
    expect(own).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: "context.budgt" });
  });
});

describe("a graph without ContextViewAnnotation", () => {
  it("is told, by the context node, what is missing and how to add it", async () => {
    const model = new RecordingChatModel();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode("context", createContextNode({ evidence: "off" }))
      .addNode("model", async (state: { llmInputMessages?: never }) => ({ messages: [await model.invoke(state.llmInputMessages as never)] }))
      .addEdge(START, "context")
      .addEdge("context", "model")
      .addEdge("model", END)
      .compile();
    const error = await rejectionOf(() => graph.invoke({ messages: [new HumanMessage("hi")] }, config));
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_STATE", field: "state.llmInputMessages" });
    expect((error as Error).message).toContain("Add `ContextViewAnnotation` to the state: `new StateGraph(Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }))`");
    expect(model.calls).toHaveLength(0);
  });

  it("still runs with it, and outside a graph", async () => {
    const node = createContextNode({ evidence: "off" });
    await expect(node.invoke({ messages: [new HumanMessage("hi")] }, config)).resolves.toHaveProperty("llmInputMessages");
  });
});
