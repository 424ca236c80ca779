import { ContextViewError } from "@contextview/core";
import { ContextIntegrationError, createContextNode, withContext } from "@contextview/langgraph";
import { conversationKeyOf } from "../src/conversation-key.js";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { RecordingChatModel, thrownBy } from "@contextview/test-support";

const errorOf = (run: () => unknown) => thrownBy<{ code?: string; field?: string; message: string }>(run);

describe("factory options are validated once, when the factory is called", () => {
  it.each([
    [{ evidence: "sometimes" }, "evidence", 'Expected `evidence` to be "update", "background" or "off", got "sometimes"'],
    [{ store: {} }, "store", "Expected `store` to be a ContextStore"],
    [{ logger: console.log }, "logger", "Expected `logger` to be an object with info(record) and warn(record), got a function"],
    [{ resolveUserId: "u-1" }, "resolveUserId", "a function (config) => string | undefined"],
    [{ budget: { promptBudget: 0 } }, "budget.promptBudget", "Expected `budget.promptBudget` to be a positive integer, got 0"],
    [{ summaries: { keepMinTokens: -1 } }, "summaries.keepMinTokens", "Expected `summaries.keepMinTokens` to be a non-negative integer"],
  ])("%j names %s", (options, field, message) => {
    const error = errorOf(() => createContextNode(options as never));
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", field });
    expect(error.message).toContain(message);
  });

  it("leaves core options to the core manager, whose error names them where the factory takes them", () => {
    const error = errorOf(() => createContextNode({ summaries: { summarizerTimeoutMs: -5 } }));
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field: "summaries.summarizerTimeoutMs" } });
    expect(error.message).toMatch(/^Expected `summaries\.summarizerTimeoutMs` to be/);
  });

  it("rejects a model that is not a runnable", () => {
    expect(errorOf(() => withContext({} as never))).toMatchObject({ code: "INVALID_OPTION", field: "model" });
    expect(() => withContext(new RecordingChatModel())).not.toThrow();
  });
});

describe("conversationKeyOf", () => {
  it("reads thread_id and user_id", () => {
    expect(conversationKeyOf({ configurable: { thread_id: "t", user_id: "u" } })).toEqual({ key: { userId: "u", conversationId: "t" }, scope: "user" });
  });

  it("prefers the resolver", () => {
    const resolved = conversationKeyOf({ configurable: { thread_id: "t", user_id: "u", auth: "a" } }, (config) => config.configurable?.["auth"]);
    expect(resolved).toEqual({ key: { userId: "a", conversationId: "t" }, scope: "user" });
  });

  it.each([
    [{ configurable: { thread_id: "" } }, "config.configurable.thread_id"],
    [{ configurable: { thread_id: 7 } }, "config.configurable.thread_id"],
    [{ configurable: { thread_id: "t", user_id: "" } }, "config.configurable.user_id"],
    [{ configurable: { thread_id: "t", user_id: 7 } }, "config.configurable.user_id"],
  ])("%j has a wrong %s", (config, field) => {
    expect(errorOf(() => conversationKeyOf(config))).toMatchObject({ code: "MISSING_CONVERSATION_KEY", field });
  });
});

describe("unknown factory options are rejected like unknown budget fields", () => {
  const factories: [string, (options: object) => unknown][] = [
    ["createContextNode", (options) => createContextNode(options as never)],
    ["withContext", (options) => withContext(new RecordingChatModel(), options as never)],
    ["contextMiddleware", (options) => contextMiddleware(options as never)],
  ];

  describe.each(factories)("%s", (_name, create) => {
    it.each([
      [{ budgt: { promptBudget: 8000 } }, "budgt"],
      [{ budget: { contextWindow: 8192 }, promptBudget: 4000 }, "promptBudget"],
      [{ keepRecentResults: 2 }, "keepRecentResults"],
    ])("%j names %s", (options, field) => {
      const error = errorOf(() => create(options));
      expect(ContextIntegrationError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "INVALID_OPTION", field });
      expect(error.message).toMatch(new RegExp(`^Unknown option \`${field}\`.*Everyday options: \`store\`, \`budget\``));
    });

    it("accepts every documented option", () => {
      const options = { budget: { promptBudget: 8000 }, keepRecentToolResults: 2, summaries: { summarizerTimeoutMs: 1000 }, advanced: { calibrate: false, recordViews: false }, evidence: "off" };
      expect(() => create(options)).not.toThrow();
    });
  });

  it("says where a budget field given beside `budget` belongs, as the budget's own message does for a stray key", () => {
    expect(errorOf(() => createContextNode({ promptBudget: 4000 } as never)).message).toContain("budget fields go inside `budget`: `budget: { promptBudget: … }`");
    expect(errorOf(() => createContextNode({ budget: { promptBudgt: 4000 } } as never)).message).toMatch(
      /^Unknown option `budget.promptBudgt`; did you mean `budget.promptBudget`\? Expected one of `contextWindow`/,
    );
  });

  it.each([
    ["keepRecent", "keepRecentToolResults"],
    ["maxResultTokens", "maxToolResultTokens"],
  ])("refuses the 0.x name `%s`, naming `%s`, and warns nothing", (former, current) => {
    const warn = jest.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      const error = errorOf(() => withContext(new RecordingChatModel(), { [former]: 2, evidence: "off" } as never));
      expect(error).toMatchObject({ code: "INVALID_OPTION", field: former });
      expect(error.message).toMatch(new RegExp(`^Unknown option \`${former}\`: renamed \`${current}\` in 1\\.0`));
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});
