import { contextMiddleware } from "@contextview/langgraph/middleware";
import { createContextNode, withContext, type ContextLogRecord, type PromptBudgetRecord } from "@contextview/langgraph";
import type { ModelProfile } from "@langchain/core/language_models/profile";
import { HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { modelLimitsOf } from "../src/model-profile.js";
import { RecordingChatModel, searchTool, type RecordingChatModelOptions } from "@contextview/test-support";
import { searchConversation } from "@contextview/test-support";

const config = (context?: unknown) => ({ configurable: { thread_id: "t-1", user_id: "u-1", ...(context === undefined ? {} : { context }) } });
const png = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };

/** A recording fake whose LangChain profile says what a provider's would. */
class ProfiledModel extends RecordingChatModel {
  constructor(
    private readonly limits: ModelProfile,
    options: RecordingChatModelOptions = {},
  ) {
    super(options);
  }
  override get profile(): ModelProfile {
    return this.limits;
  }
}

function recorder() {
  const records: ContextLogRecord[] = [];
  const logger = { info: (r: ContextLogRecord) => void records.push(r), warn: () => undefined };
  const budgets = () => records.filter((r): r is PromptBudgetRecord => r.event === "prompt_budget");
  return { logger, budgets };
}

const textOnly: ModelProfile = { maxInputTokens: 100000, maxOutputTokens: 1500, imageInputs: false };
const withImage = (text: string) => new HumanMessage({ id: "current", content: [{ type: "text", text }, png] });

describe("modelLimitsOf", () => {
  it("reads the profile through bindTools and leaves out unusable fields", () => {
    const model = new ProfiledModel({ maxInputTokens: 200000, maxOutputTokens: -1, imageInputs: true, toolCalling: true });
    expect(modelLimitsOf(model.bindTools([searchTool()]))).toEqual({ maxInputTokens: 200000, imageInputs: true });
  });

  it("gives undefined for a model without a profile (BaseChatModel's is empty)", () => {
    expect(modelLimitsOf(new RecordingChatModel())).toBeUndefined();
    expect(modelLimitsOf(undefined)).toBeUndefined();
  });
});

describe("model profiles in the three integrations", () => {
  it("withContext takes the window and the reserve cap from the model and replaces the current turn's images", async () => {
    const { logger, budgets } = recorder();
    const model = new ProfiledModel(textOnly);
    await withContext(model.bindTools([searchTool()]), { logger, budget: { promptBudget: 90000 } }).invoke([withImage("What is on this receipt?")], config());
    expect(budgets()[0]).toMatchObject({ contextWindow: 100000, responseReserve: 1500, promptBudget: 90000, limit: 90000 });
    expect(budgets()[0]?.budgetSources).toMatchObject({ contextWindow: "profile", responseReserve: "profile", promptBudget: "option", safetyReserve: "default" });
    const sent = model.calls[0]?.at(-1)?.content as { type: string; text?: string }[];
    expect(sent.map((b) => b.type)).toEqual(["text", "text"]);
    expect(sent[1]?.text).toContain("no image input");
  });

  it("request settings win over the profile, and the report says so", async () => {
    const { logger, budgets } = recorder();
    await withContext(new ProfiledModel(textOnly), { logger }).invoke(searchConversation(2), config({ budget: { contextWindow: 20000 } }));
    expect(budgets()[0]).toMatchObject({ contextWindow: 20000, responseReserve: 1500 });
    expect(budgets()[0]?.budgetSources).toMatchObject({ contextWindow: "request", responseReserve: "profile", promptBudget: "default" });
  });

  it("a model that takes images keeps the current turn's images", async () => {
    const model = new ProfiledModel({ ...textOnly, imageInputs: true });
    await withContext(model).invoke([withImage("Look")], config());
    expect((model.calls[0]?.at(-1)?.content as { type: string }[]).map((b) => b.type)).toEqual(["text", "image_url"]);
  });

  it("the node reads the profile of its optional `model` option; an explicit `profile` option wins", async () => {
    const { logger, budgets } = recorder();
    const model = new ProfiledModel(textOnly);
    const update = await createContextNode({ model, logger }).invoke({ messages: [withImage("Receipt?")] }, config());
    expect(budgets()[0]).toMatchObject({ contextWindow: 100000, responseReserve: 1500 });
    expect((update.llmInputMessages.at(-1)?.content as { type: string }[]).some((b) => b.type === "image_url")).toBe(false);

    await createContextNode({ model, logger, profile: { maxInputTokens: 50000 } }).invoke({ messages: searchConversation(1) }, config());
    expect(budgets()[1]).toMatchObject({ contextWindow: 50000, responseReserve: 4096 });
    expect(budgets()[1]?.budgetSources).toMatchObject({ contextWindow: "profile", responseReserve: "default" });
  });

  it("the node without a model keeps the defaults", async () => {
    const { logger, budgets } = recorder();
    await createContextNode({ logger }).invoke({ messages: searchConversation(1) }, config());
    expect(budgets()[0]?.budgetSources).toEqual({ contextWindow: "default", promptBudget: "default", responseReserve: "default", safetyReserve: "default", memoryBudget: "default" });
  });

  it("rejects a `model` option that is not an object, naming it", () => {
    expect(() => createContextNode({ model: "gpt-4o" as never })).toThrow(/`model` to be a chat model/);
  });

  it("a request budget that only fits the profile's window is accepted", async () => {
    const model = new ProfiledModel(textOnly);
    await expect(withContext(model).invoke(searchConversation(1), config({ budget: { responseReserve: 60000 } }))).resolves.toBeDefined();
  });

  it("contextMiddleware reads the agent's model profile per call", async () => {
    const { logger, budgets } = recorder();
    const model = new ProfiledModel(textOnly);
    const agent = createAgent({ model, tools: [searchTool()], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ logger })] });
    await agent.invoke({ messages: [withImage("What is this?")] }, config());
    expect(budgets()[0]).toMatchObject({ contextWindow: 100000, responseReserve: 1500 });
    const sent = model.calls[0] as BaseMessage[];
    expect(JSON.stringify(sent.map((m) => m.content))).not.toContain("image_url");
  });
});
