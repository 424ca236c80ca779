import { ContextIntegrationError, createContextNode, withContext } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { RecordingChatModel, searchConversation, thrownBy } from "@contextview/test-support";
import { closestName } from "../src/closest-name.js";

const errorOf = (options: object) => thrownBy<ContextIntegrationError>(() => contextMiddleware(options as never));

describe("closestName", () => {
  it.each([
    ["budgt", ["store", "budget"], "budget"],
    ["BUDGET", ["store", "budget"], "budget"],
    ["promtpBudget", ["promptBudget", "contextWindow"], "promptBudget"],
    ["keepRecentResults", ["keepMinText", "keepRecentToolResults"], "keepRecentToolResults"],
    ["window", ["promptBudget", "contextWindow"], "contextWindow"],
    ["sumarizer", ["summarize", "summarizer"], "summarizer"],
    ["colour", ["store", "budget"], undefined],
    ["x", ["store", "budget"], undefined],
  ])("%s among %j is %s", (name, candidates, expected) => {
    expect(closestName(name, candidates)).toBe(expected);
  });
});

describe("an unknown factory option names the closest option first, then the everyday ones", () => {
  it.each([
    ["budgt", "`budget`"],
    ["promptBudgt", "`budget.promptBudget`"],
    ["keepRecentResults", "`keepRecentToolResults`"],
    ["sumarizer", "`summarizer`"],
    ["evidense", "`evidence`"],
    ["onreport", "`onReport`"],
    ["recordView", "`advanced.recordViews`"],
    ["dropStpe", "`view.dropStep`"],
  ])("`%s`: did you mean %s?", (name, closest) => {
    const error = errorOf({ [name]: 1 });
    expect(ContextIntegrationError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "INVALID_OPTION", field: name });
    expect(error.message.startsWith(`Unknown option \`${name}\`; did you mean ${closest}?`)).toBe(true);
  });

  it("lists a dozen everyday options, not every name nor the internals", () => {
    const { message } = errorOf({ colour: "blue" });
    expect(message).toBe(
      "Unknown option `colour`. Everyday options: `store`, `budget`, `summarizer`, `model`, `systemPrompt`, `tools`, `evidence`, `memories`, " +
        "`keepRecentToolResults`, `maxToolResultTokens`, `onReport`, `logger` (all of them: docs/configuration.md)",
    );
    for (const internal of ["now", "largeResults", "isOverflow", "trustPinField", "maxOlderMessageTokens"]) expect(message).not.toContain(`\`${internal}\``);
  });

  it("still accepts the options it does not list", () => {
    expect(() => contextMiddleware({ advanced: { now: () => 0, isOverflow: () => false }, view: { maxOlderMessageTokens: 500 } })).not.toThrow();
  });

  it("says the same on every factory", () => {
    const messages = [
      thrownBy<Error>(() => createContextNode({ budgt: {} } as never)).message,
      thrownBy<Error>(() => withContext(new RecordingChatModel(), { budgt: {} } as never)).message,
      errorOf({ budgt: {} }).message,
    ];
    expect(new Set(messages).size).toBe(1);
  });

  it("points a budget field given beside `budget` inside it", () => {
    const { message } = errorOf({ promptBudget: 4000 });
    expect(message).toContain("did you mean `budget.promptBudget`? (budget fields go inside `budget`: `budget: { promptBudget: … }`)");
  });

  it("inside `budget`, and in a request's settings, the closest name comes first too", async () => {
    const inBudget = errorOf({ budget: { contextWindw: 8000 } }).message;
    expect(inBudget).toMatch(/^Unknown option `budget.contextWindw`; did you mean `budget.contextWindow`\? Expected one of `contextWindow`/);
    const error = (await withContext(new RecordingChatModel())
      .invoke(searchConversation(1), { configurable: { thread_id: "t", user_id: "u", context: { summarise: false } } })
      .catch((caught: unknown) => caught)) as ContextIntegrationError;
    expect(error).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: "context.summarise" });
    expect(error.message).toMatch(/^Unknown setting `context.summarise`; did you mean `context.summarize`\?/);
  });
});
