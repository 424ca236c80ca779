import { ContextIntegrationError, createContextNode, withContext, type ContextOptions } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { InMemoryContextStore } from "@contextview/core";
import { RecordingChatModel, searchConversation, thrownBy } from "@contextview/test-support";
import { OPTION_GROUPS, TOP_LEVEL_OPTIONS } from "../src/option-groups.js";

const errorOf = (options: object) => thrownBy<ContextIntegrationError & { details?: Record<string, unknown> }>(() => createContextNode(options as never));

describe("the factories' options: the everyday ones at the top, the rest in three groups", () => {
  it("takes at most 20 keys at the top level, each placed once", () => {
    const top = [...TOP_LEVEL_OPTIONS, ...Object.keys(OPTION_GROUPS)];
    expect(top.length).toBeLessThanOrEqual(20);
    const grouped = Object.values(OPTION_GROUPS).flat();
    expect(new Set([...top, ...grouped]).size).toBe(top.length + grouped.length);
  });

  it("reads a grouped option as the same setting the flat manager takes: the view shows it", async () => {
    const config = { configurable: { thread_id: "t", user_id: "u" } };
    const messages = searchConversation(30);
    const plain = await createContextNode({ store: new InMemoryContextStore(), budget: { promptBudget: 2500 }, evidence: "off" }).invoke({ messages }, config);
    const options: ContextOptions = { store: new InMemoryContextStore(), budget: { promptBudget: 2500 }, evidence: "off", view: { pinOpeningRequest: false, cacheBreakpoints: true } };
    const grouped = await createContextNode(options).invoke({ messages }, config);
    const pinnedLabel = (out: { llmInputMessages?: unknown }) => JSON.stringify(out.llmInputMessages).includes("[Pinned: the request that started this conversation.");
    expect(pinnedLabel(plain)).toBe(true);
    expect(pinnedLabel(grouped)).toBe(false);
    expect(JSON.stringify(grouped.llmInputMessages)).toContain("cache_control");
    expect(JSON.stringify(plain.llmInputMessages)).not.toContain("cache_control");
  });

  it.each([
    [{ dropStep: 0 }, "dropStep", "Option `dropStep` is not read there; it goes in `view.dropStep` (`view: { dropStep }`)"],
    [{ keepMinText: 2 }, "keepMinText", "it goes in `summaries.keepMinText` (`summaries: { keepMinText }`)"],
    [{ recordViews: false }, "recordViews", "it goes in `advanced.recordViews`"],
    [{ view: { keepMinText: 2 } }, "view.keepMinText", "it goes in `summaries.keepMinText`"],
    [{ advanced: { store: new InMemoryContextStore() } }, "advanced.store", "it goes in `store`, at the top level"],
  ])("%j: says where the option goes (%s)", (options, field, message) => {
    const error = errorOf(options);
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", field });
    expect(error.message).toContain(message);
  });

  it("names the closest option inside a group, and refuses a group that is not an object", () => {
    const misspelt = errorOf({ view: { recallBudgt: 100 } });
    expect(misspelt).toMatchObject({ code: "INVALID_OPTION", field: "view.recallBudgt" });
    expect(misspelt.message).toMatch(/^Unknown option `view.recallBudgt`; did you mean `view.recallBudget`\?/);
    for (const value of [true, [], "x"]) {
      const error = errorOf({ summaries: value });
      expect(error).toMatchObject({ code: "INVALID_OPTION", field: "summaries" });
      expect(error.message).toMatch(/^Expected `summaries` to be an object of summaries options \(triggerRatio, keepMinTokens, keepMinText, …\), got /);
    }
  });

  it("names a bad value where it was given, on every factory", () => {
    const errors = [
      errorOf({ view: { dropStep: 2 } }),
      thrownBy<ContextIntegrationError>(() => withContext(new RecordingChatModel(), { view: { dropStep: 2 } })),
      thrownBy<ContextIntegrationError>(() => contextMiddleware({ view: { dropStep: 2 } })),
    ];
    for (const error of errors) {
      expect(error).toMatchObject({ code: "INVALID_OPTION", field: "view.dropStep" });
      expect(error.message).toMatch(/^Expected `view.dropStep` to be a number from 0 to 0.9, got 2/);
    }
    expect(errorOf({ advanced: { strictEvidence: "yes" } })).toMatchObject({ field: "advanced.strictEvidence", message: 'Expected `advanced.strictEvidence` to be a boolean, got "yes"' });
  });

  it("leaves an undefined group, or an undefined option in one, unset", () => {
    expect(() => createContextNode({ view: undefined, summaries: { keepMinText: undefined } as never, advanced: {} })).not.toThrow();
  });
});
