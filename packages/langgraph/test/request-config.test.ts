import { ContextIntegrationError } from "@contextview/langgraph";
import { parseContextConfig } from "../src/request-config.js";

describe("parseContextConfig", () => {
  it.each([
    [undefined, {}],
    [null, {}],
    [{}, {}],
    [{ summarize: false }, { summarize: false }],
    [{ budget: { promptBudget: 8000 }, keepMinText: 2 }, { budget: { promptBudget: 8000 }, keepMinText: 2 }],
    [{ triggerRatio: 0.5, dropStep: 0, maxToolResultTokens: 50 }, { triggerRatio: 0.5, dropStep: 0, maxToolResultTokens: 50 }],
    [{ pinOpeningRequest: false, maxOpeningRequestTokens: 50, pinnedBudget: 0 }, { pinOpeningRequest: false, maxOpeningRequestTokens: 50, pinnedBudget: 0 }],
  ])("accepts %j", (input, expected) => {
    expect(parseContextConfig(input)).toEqual(expected);
  });

  it.each([
    [{ budget: { promptBudget: -1 } }, "context.budget.promptBudget", "Expected `context.budget.promptBudget` to be a positive integer, got -1"],
    [{ budget: { promptBudget: 1.5 } }, "context.budget.promptBudget", "to be a positive integer, got 1.5"],
    [{ budget: { window: 10 } }, "context.budget.window", "Unknown setting `context.budget.window`"],
    [{ budgt: {} }, "context.budgt", "Unknown setting `context.budgt`; did you mean `context.budget`? Expected one of `budget`"],
    [{ summarize: "no" }, "context.summarize", 'Expected `context.summarize` to be a boolean, got "no"'],
    [{ triggerRatio: 1 }, "context.triggerRatio", "between 0 and 1 (exclusive), got 1"],
    [{ keepMinText: -2 }, "context.keepMinText", "a non-negative integer, got -2"],
    [{ maxToolResultTokens: 10 }, "context.maxToolResultTokens", "at least 50, got 10"],
    [{ pinOpeningRequest: "yes" }, "context.pinOpeningRequest", 'Expected `context.pinOpeningRequest` to be a boolean, got "yes"'],
    [{ maxOpeningRequestTokens: 49 }, "context.maxOpeningRequestTokens", "an integer of at least 50, got 49"],
    [{ pinnedBudget: -1 }, "context.pinnedBudget", "a non-negative integer, got -1"],
    ["fast", "context", "an object of context settings"],
  ])("rejects %j naming %s", (input, field, message) => {
    let error: unknown;
    try {
      parseContextConfig(input);
    } catch (caught) {
      error = caught;
    }
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field });
    expect((error as Error).message).toContain(message);
  });
});
