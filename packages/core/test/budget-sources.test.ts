import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import {
  budgetFromProfile,
  buildContext,
  ContextViewError,
  createContextManager,
  resolveBudgetSources,
} from "@contextview/core";
import { IMAGE_PLACEHOLDER, textOf } from "@contextview/core/internal";
import { NO_IMAGE_INPUT_PLACEHOLDER } from "../src/view/images.js";
import type { BudgetLayers } from "../src/budget-sources.js";

describe("budgetFromProfile", () => {
  it.each([
    [{ maxInputTokens: 128000, maxOutputTokens: 16384 }, { contextWindow: 128000 }],
    [{ maxInputTokens: 8192, maxOutputTokens: 1024 }, { contextWindow: 8192, responseReserve: 1024 }],
    [{ maxOutputTokens: 4096 }, {}],
    [{ maxInputTokens: -5, maxOutputTokens: 1.5 }, {}],
    [{ maxInputTokens: "lots" as unknown as number }, {}],
    [undefined, {}],
  ])("%j gives %j", (profile, expected) => {
    expect(budgetFromProfile(profile)).toEqual(expected);
  });
});

describe("resolveBudgetSources", () => {
  const profile = { maxInputTokens: 128000, maxOutputTokens: 1000 };
  it.each<[string, BudgetLayers, Record<string, number>, Record<string, string>]>([
    ["defaults only", { env: {} }, { contextWindow: 32768, responseReserve: 4096 }, { contextWindow: "default", responseReserve: "default", promptBudget: "default" }],
    ["a profile", { profile, env: {} }, { contextWindow: 128000, responseReserve: 1000 }, { contextWindow: "profile", responseReserve: "profile", promptBudget: "default" }],
    ["env over profile", { profile, env: { CONTEXT_WINDOW_TOKENS: "64000", RESPONSE_RESERVE_TOKENS: "2000" } }, { contextWindow: 64000, responseReserve: 2000 }, { contextWindow: "env", responseReserve: "env" }],
    ["option over env", { profile, option: { contextWindow: 50000, promptBudget: 9000 }, env: { CONTEXT_WINDOW_TOKENS: "64000" } }, { contextWindow: 50000, promptBudget: 9000, responseReserve: 1000 }, { contextWindow: "option", promptBudget: "option", responseReserve: "profile" }],
    ["request over option", { profile, option: { promptBudget: 9000 }, request: { promptBudget: 3000, responseReserve: 500 }, env: {} }, { promptBudget: 3000, responseReserve: 500, contextWindow: 128000 }, { promptBudget: "request", responseReserve: "request", contextWindow: "profile" }],
  ])("%s", (_name, layers, values, sources) => {
    const { budget, sources: got } = resolveBudgetSources(layers);
    expect(budget).toMatchObject(values);
    expect(got).toMatchObject(sources);
    expect(Object.keys(got).sort()).toEqual(["contextWindow", "memoryBudget", "promptBudget", "responseReserve", "safetyReserve"]);
  });

  it("throws the budget's own typed error when the profile's window leaves no room", () => {
    expect(() => resolveBudgetSources({ profile: { maxInputTokens: 3000 }, option: { responseReserve: 2800 }, env: {} })).toThrow(ContextViewError);
  });

  it("serves a small model's window with reserves scaled to it", () => {
    const { budget, sources } = resolveBudgetSources({ profile: { maxInputTokens: 3000, maxOutputTokens: 1000 }, env: {} });
    expect(budget).toMatchObject({ contextWindow: 3000, responseReserve: 1000, safetyReserve: 375, promptLimit: 1625 });
    expect(sources).toMatchObject({ contextWindow: "profile", responseReserve: "profile", safetyReserve: "default" });
  });

  it("says where each number of a budget without room came from", () => {
    expect(() => resolveBudgetSources({ profile: { maxInputTokens: 3000 }, option: { responseReserve: 2800 }, env: {} })).toThrow(
      "Expected `responseReserve` + `safetyReserve` (2800 from the `budget.responseReserve` option + 375 by default) to be less than `contextWindow` (3000 from the model's profile `maxInputTokens`), leaving room for the prompt",
    );
    expect(() => resolveBudgetSources({ profile: { maxInputTokens: 3000, maxOutputTokens: 1000 }, request: { safetyReserve: 2000 }, env: {} })).toThrow(
      "(1000 from the model's profile `maxOutputTokens` + 2000 from the request's `context.budget.safetyReserve`)",
    );
  });
});

const png = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };

describe("a model without image input", () => {
  const messages = [
    new HumanMessage({ id: "h0", content: [{ type: "text", text: "older photo" }, png] }),
    new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "c0", name: "snapshot", args: {} }] }),
    new ToolMessage({ id: "t0", tool_call_id: "c0", content: [{ type: "text", text: "chart" }, png] }),
    new AIMessage({ id: "a1", content: "A chart." }),
    new HumanMessage({ id: "h1", content: [{ type: "text", text: "What is on this receipt?" }, png, png] }),
  ];

  it("gets placeholders in every turn, the current request and tool results included, each counted", () => {
    const { messages: view, report } = buildContext({ messages, imageInputs: false, budget: { promptBudget: 8000 } });
    const blocks = view.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type: string; text?: string }[]) : []));
    expect(blocks.some((b) => b.type === "image_url")).toBe(false);
    expect(report.imagesReplaced).toBe(4);
    expect(textOf(view.at(-1)?.content ?? "")).toContain(NO_IMAGE_INPUT_PLACEHOLDER);
    expect(textOf(view.at(-1)?.content ?? "")).toContain("What is on this receipt?");
  });

  it("keeps the current turn's images by default (older turns get the older-turn placeholder)", () => {
    const { messages: view, report } = buildContext({ messages, budget: { promptBudget: 8000 } });
    expect((view.at(-1)?.content as { type: string }[]).filter((b) => b.type === "image_url")).toHaveLength(2);
    expect(textOf(view[0]?.content ?? "")).toContain(IMAGE_PLACEHOLDER);
    expect(report.imagesReplaced).toBe(1);
  });

  it("rejects a non-boolean imageInputs, naming it", () => {
    expect(() => buildContext({ messages, imageInputs: "no" as never })).toThrow(/`imageInputs` to be a boolean/);
  });
});

describe("createContextManager with a profile", () => {
  const key = { userId: "u", conversationId: "c" };
  const messages = [new HumanMessage({ id: "h", content: [{ type: "text", text: "look" }, png] })];

  it("takes the window and reserve cap from the request's profile, reports the sources, and replaces images", async () => {
    const manager = createContextManager({ budget: { promptBudget: 50000 } });
    const view = await manager.build({ messages, key, profile: { maxInputTokens: 100000, maxOutputTokens: 2000, imageInputs: false } });
    expect(view.report.budget).toMatchObject({ contextWindow: 100000, responseReserve: 2000, promptBudget: 50000 });
    expect(view.report.budgetSources).toMatchObject({ contextWindow: "profile", responseReserve: "profile", promptBudget: "option", safetyReserve: "default" });
    expect(view.report.limit).toBe(50000);
    expect(view.report.imagesReplaced).toBe(1);
  });

  it("lets request settings and an explicit imageInputs win over the profile", async () => {
    const manager = createContextManager({ profile: { maxInputTokens: 100000, imageInputs: false }, imageInputs: true });
    const view = await manager.build({ messages, key, overrides: { budget: { contextWindow: 20000 } } });
    expect(view.report.budget.contextWindow).toBe(20000);
    expect(view.report.budgetSources.contextWindow).toBe("request");
    expect(view.report.imagesReplaced).toBe(0);
  });

  it("rejects a profile that is not an object", () => {
    expect(() => createContextManager({ profile: 5 as never })).toThrow(/`profile` to be a model profile object/);
  });
});
