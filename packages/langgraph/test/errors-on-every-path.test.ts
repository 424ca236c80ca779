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
