import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import fc from "fast-check";
import { ContextViewError, bindSelection, createToolRouter, DISCOVER_TOOL_NAME } from "@contextview/core";
import { adminConfig, countingTool, financeGroups, financeRouter, userConfig } from "./fixtures";

function errorOf(fn: () => unknown): ContextViewError {
  try {
    fn();
  } catch (error) {
    if (ContextViewError.isInstance(error)) return error as ContextViewError;
    throw error;
  }
  throw new Error("expected an error");
}

describe("createToolRouter: options are validated once, naming the field", () => {
  const base = () => financeGroups();
  it.each([
    ["groups", () => createToolRouter({ groups: "x" as never })],
    ["groups[0].name", () => createToolRouter({ groups: [{ ...base()[0]!, name: "Bad Name" }] })],
    ["groups[1].name", () => createToolRouter({ groups: [base()[0]!, { ...base()[1]!, name: "transactions" }] })],
    ["groups[0].description", () => createToolRouter({ groups: [{ ...base()[0]!, description: " " }] })],
    ["groups[0].keywords[1]", () => createToolRouter({ groups: [{ ...base()[0]!, keywords: ["ok", "!!!"] }] })],
    ["groups[0].tools[0]", () => createToolRouter({ groups: [{ ...base()[0]!, tools: [{} as never] }] })],
    ["groups[1].tools[0].name", () => createToolRouter({ groups: [base()[0]!, { ...base()[1]!, tools: [countingTool("categorize")] }] })],
    ["groups[0].tools[0].name", () => createToolRouter({ groups: [{ ...base()[0]!, tools: [countingTool(DISCOVER_TOOL_NAME)] }] })],
    ["groups[0].admin", () => createToolRouter({ groups: [{ ...base()[0]!, admin: "yes" as never }] })],
    ["followUpMaxWords", () => createToolRouter({ groups: base(), followUpMaxWords: -1 })],
    ["followUpDepth", () => createToolRouter({ groups: base(), followUpDepth: 1.5 })],
    ["authorize", () => createToolRouter({ groups: base(), authorize: true as never })],
    ["discovery", () => createToolRouter({ groups: base(), discovery: "on" as never })],
  ])("%s", (field, make) => {
    const error = errorOf(make);
    expect(error.code).toBe("INVALID_OPTION");
    expect(error.details["field"]).toBe(field);
    expect(error.message).toContain(`\`${field}\``);
  });

  it("select rejects a non-array of messages with INVALID_MESSAGES", () => {
    const { router } = financeRouter();
    expect(errorOf(() => router.select({ messages: "hi" as never })).code).toBe("INVALID_MESSAGES");
  });
});

/** Records the tool names it was called with; fails when told to. */
class ToolRecordingModel extends BaseChatModel {
  readonly seen: string[][] = [];
  constructor(private readonly fail: boolean) {
    super({});
  }
  _llmType(): string {
    return "tool-recording";
  }
  override bindTools(tools: unknown[]): Runnable<BaseMessage[], AIMessageChunk> {
    return this.withConfig({ tools } as never) as never;
  }
  async _generate(_messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    this.seen.push(((options as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name));
    if (this.fail) throw new Error("primary is down");
    const message = new AIMessage("fine");
    return { generations: [{ message, text: "fine" }] };
  }
}

describe("bindSelection", () => {
  it("binds the same selected tools to the primary and every fallback", async () => {
    const { router } = financeRouter();
    const selection = router.select({ messages: [new HumanMessage("export my spending")], config: userConfig });
    const primary = new ToolRecordingModel(true);
    const fallback = new ToolRecordingModel(false);
    const reply = await bindSelection(primary, selection, { fallbacks: [fallback] }).invoke([new HumanMessage("export my spending")]);
    expect(reply.content).toBe("fine");
    expect(primary.seen).toEqual([selection.tools.map((t) => t.name)]);
    expect(fallback.seen).toEqual(primary.seen);
  });

  it("leaves the model unbound for an empty selection, and names a model without bindTools", () => {
    const { router } = financeRouter({ discovery: false });
    const model = new ToolRecordingModel(false);
    expect(bindSelection(model, router.select({ messages: [new HumanMessage("hi")] }))).toBe(model);
    expect(errorOf(() => bindSelection({} as never, router.select({ messages: [] }))).details["field"]).toBe("model");
    expect(errorOf(() => bindSelection(model, router.select({ messages: [] }), { fallbacks: [{} as never] })).details["field"]).toBe("fallbacks[0]");
  });
});

describe("router.select: laws over random conversations", () => {
  const words = ["spending", "export", "note", "delete", "yes", "hello", "payments", "csv", "purge", "and", "march", "the"];
  const message = fc.tuple(fc.constantFrom("human", "ai"), fc.array(fc.constantFrom(...words), { maxLength: 12 })).map(([role, w]) => (role === "human" ? new HumanMessage(w.join(" ")) : new AIMessage(w.join(" "))));
  const conversation = fc.array(message, { maxLength: 16 });

  it("is deterministic, never offers admin tools to unauthorized callers, and binds exactly the selected groups' tools", () => {
    const { router, groups } = financeRouter();
    fc.assert(
      fc.property(conversation, fc.boolean(), (messages, admin) => {
        const config = admin ? adminConfig : userConfig;
        const selection = router.select({ messages, config });
        expect(router.select({ messages, config })).toEqual(selection);
        if (!admin) expect(selection.tools.map((t) => t.name)).not.toContain("delete_user_data");
        const expected = groups.filter((g) => selection.groups.includes(g.name)).flatMap((g) => g.tools.map((t) => t.name));
        expect(selection.tools.map((t) => t.name)).toEqual([DISCOVER_TOOL_NAME, ...expected]);
        expect(new Set(selection.reasons.map((r) => r.group))).toEqual(new Set(selection.groups));
      }),
      { numRuns: 200 },
    );
  });
});
