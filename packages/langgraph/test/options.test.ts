import { ContextViewError } from "@contextview/core";
import { ContextIntegrationError, createContextNode, withContext } from "@contextview/langgraph";
import { conversationKeyOf } from "../src/conversation-key.js";
import { RecordingChatModel, thrownBy } from "@contextview/test-support";

const errorOf = (run: () => unknown) => thrownBy<{ code?: string; field?: string; message: string }>(run);

describe("factory options are validated once, when the factory is called", () => {
  it.each([
    [{ evidence: "sometimes" }, "evidence", 'Expected `evidence` to be "update", "background" or "off", got "sometimes"'],
    [{ store: {} }, "store", "Expected `store` to be a ContextStore"],
    [{ logger: console.log }, "logger", "Expected `logger` to be an object with info(record) and warn(record), got a function"],
    [{ resolveUserId: "u-1" }, "resolveUserId", "a function (config) => string | undefined"],
    [{ budget: { promptBudget: 0 } }, "budget.promptBudget", "Expected `budget.promptBudget` to be a positive integer, got 0"],
    [{ keepMinTokens: -1 }, "keepMinTokens", "Expected `keepMinTokens` to be a non-negative integer"],
  ])("%j names %s", (options, field, message) => {
    const error = errorOf(() => createContextNode(options as never));
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", field });
    expect(error.message).toContain(message);
  });

  it("leaves core options to the core manager, which names them", () => {
    const error = errorOf(() => createContextNode({ summarizerTimeoutMs: -5 }));
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect(error.message).toContain("`summarizerTimeoutMs`");
  });

  it("rejects a model that is not a runnable", () => {
    expect(errorOf(() => withContext({} as never))).toMatchObject({ code: "INVALID_OPTION", field: "model" });
    expect(() => withContext(new RecordingChatModel())).not.toThrow();
  });
});

describe("conversationKeyOf", () => {
  it("reads thread_id and user_id", () => {
    expect(conversationKeyOf({ configurable: { thread_id: "t", user_id: "u" } })).toEqual({ userId: "u", conversationId: "t" });
  });

  it("prefers the resolver", () => {
    expect(conversationKeyOf({ configurable: { thread_id: "t", user_id: "u", auth: "a" } }, (config) => config.configurable?.["auth"])).toEqual({ userId: "a", conversationId: "t" });
  });

  it.each([
    [{}, "config.configurable.thread_id"],
    [{ configurable: { thread_id: "" } }, "config.configurable.thread_id"],
    [{ configurable: { thread_id: "t" } }, "config.configurable.user_id"],
    [{ configurable: { thread_id: "t", user_id: 7 } }, "config.configurable.user_id"],
  ])("%j is missing %s", (config, field) => {
    expect(errorOf(() => conversationKeyOf(config))).toMatchObject({ code: "MISSING_CONVERSATION_KEY", field });
  });
});
