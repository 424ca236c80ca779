import { AIMessage, HumanMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { RecordingChatModel, thrownBy } from "@contextview/test-support";
import { ContextViewError } from "@contextview/core";
import { bindSelection, createToolRouter, DISCOVER_TOOL_NAME } from "@contextview/core/routing";
import { adminConfig, countingTool, financeGroups, financeRouter, userConfig } from "./fixtures";

const errorOf = (run: () => unknown) => thrownBy<ContextViewError>(run, (error) => ContextViewError.isInstance(error));

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

/** The recording fake: answers "fine", or fails when told to. */
const toolRecordingModel = (fail: boolean) => new RecordingChatModel({ reportsUsage: false, answer: () => (fail ? new Error("primary is down") : "fine") });

describe("bindSelection", () => {
  it("binds the same selected tools to the primary and every fallback", async () => {
    const { router } = financeRouter();
    const selection = router.select({ messages: [new HumanMessage("export my spending")], config: userConfig });
    const primary = toolRecordingModel(true);
    const fallback = toolRecordingModel(false);
    const reply = await bindSelection(primary, selection, { fallbacks: [fallback] }).invoke([new HumanMessage("export my spending")]);
    expect(reply.content).toBe("fine");
    expect(primary.received.map((r) => r.tools)).toEqual([selection.tools.map((t) => t.name)]);
    expect(fallback.received.map((r) => r.tools)).toEqual(primary.received.map((r) => r.tools));
  });

  it("leaves the model unbound for an empty selection, and names a model without bindTools", () => {
    const { router } = financeRouter({ discovery: false });
    const model = toolRecordingModel(false);
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
