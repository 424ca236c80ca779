// Odd but legal inputs through the integrations: read, or refused with a typed error naming the field.
import { ContextViewError } from "@contextview/core";
import { ContextIntegrationError, createContextNode, withContext } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { AIMessage, ChatMessage, HumanMessage } from "@langchain/core/messages";
import { RecordingChatModel } from "@contextview/test-support";

const key = { thread_id: "t-1", user_id: "u-1" };

async function typedRejection(promise: Promise<unknown>): Promise<{ code: string; message: string; field?: unknown }> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (err: unknown) => err,
  );
  expect(ContextViewError.isInstance(error) || ContextIntegrationError.isInstance(error)).toBe(true);
  return error as { code: string; message: string };
}

describe("odd inputs through withContext and the node", () => {
  it.each(["user", "assistant"])("reads ChatMessage({ role: %p }) through withContext and the node", async (role) => {
    const messages = [new HumanMessage({ id: "h0", content: "start" }), new ChatMessage({ id: "c", role, content: "a ChatMessage" }), new HumanMessage({ id: "h1", content: "now" })];
    const model = new RecordingChatModel();
    await withContext(model).invoke(messages, { configurable: key });
    expect(model.calls[0]?.find((m) => m.id === "c")?.type).toBe(role === "user" ? "human" : "ai");
    const update = await createContextNode().invoke({ messages }, { configurable: key });
    expect(update.llmInputMessages.find((m) => m.id === "c")?.content).toBe("a ChatMessage");
  });

  it("refuses content: 5 with INVALID_MESSAGES naming the message, through the node", async () => {
    const error = await typedRejection(createContextNode({ evidence: "off" }).invoke({ messages: [{ type: "human", content: 5 }] }, { configurable: key }));
    expect(error.code).toBe("INVALID_MESSAGES");
    expect(error.message).toMatch(/messages\[0\]\.content/);
  });

  it("refuses tools: 5 and estimator: {} when the factory is called", () => {
    expect(() => createContextNode({ tools: 5 as never })).toThrow(/`tools`/);
    expect(() => withContext(new RecordingChatModel(), { estimator: {} as never })).toThrow(/`estimator`/);
  });

  it("turns a context object whose getter throws into INVALID_REQUEST_CONFIG (node)", async () => {
    const context = Object.defineProperty({}, "budget", { get: () => { throw new Error("secret-laden getter"); }, enumerable: true });
    const error = await typedRejection(createContextNode().invoke({ messages: [new HumanMessage("now")] }, { configurable: { ...key, context } }));
    expect(error.code).toBe("INVALID_REQUEST_CONFIG");
    expect(error.message).not.toMatch(/secret-laden/);
  });

  // LangChain's runnables copy `configurable` before a node runs (and throw there); the
  // middleware reads the agent runtime's `configurable` itself.
  it.each([
    ["context", () => Object.defineProperty({ ...key }, "context", { get: () => { throw new Error("secret-laden getter"); }, enumerable: true })],
    ["thread_id", () => Object.defineProperty({ user_id: "u-1" }, "thread_id", { get: () => { throw new Error("secret-laden getter"); }, enumerable: true })],
  ])("turns a throwing getter for %s in the middleware's runtime config into INVALID_REQUEST_CONFIG", async (_, configurable) => {
    const wrap = contextMiddleware().wrapModelCall as unknown as (request: unknown, handler: () => Promise<unknown>) => Promise<unknown>;
    const request = { messages: [new HumanMessage("now")], tools: [], state: {}, runtime: { configurable: configurable() } };
    const error = await typedRejection(wrap(request, async () => new AIMessage("ok")));
    expect(error.code).toBe("INVALID_REQUEST_CONFIG");
    expect(error.message).not.toMatch(/secret-laden/);
  });
});
