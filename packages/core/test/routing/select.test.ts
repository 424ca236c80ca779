import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { createToolRouter, DISCOVER_TOOL_NAME, routingRecord } from "@contextview/core/routing";
import { adminConfig, financeGroups, financeRouter, runToolCall, turn, userConfig } from "./fixtures";

const { router } = financeRouter();
const names = (messages: BaseMessage[], config = userConfig) => router.select({ messages, config }).groups;

describe("router.select: lexical groups from the current request", () => {
  it.each([
    ["How much spending on groceries last month?", ["transactions"]],
    ["List my payments to the landlord", ["transactions"]],
    ["Which bank accounts do I have?", ["transactions"]],
    ["Export the transactions to a CSV spreadsheet", ["transactions", "export"]],
    ["Open my Obsidian note about taxes", ["notes"]],
    ["Tell me a story about dragons and the moon and the stars tonight", []],
    ["The bank is closed today and my account is new", []],
  ])("%s", (request, expected) => {
    expect(names([new HumanMessage(request)])).toEqual(expected);
  });

  it("binds discover_tool_groups first, then the selected groups' tools in configured order", () => {
    const selection = router.select({ messages: [new HumanMessage("export my spending")], config: userConfig });
    expect(selection.tools.map((t) => t.name)).toEqual([DISCOVER_TOOL_NAME, "search_transactions", "categorize", "export_csv"]);
    expect(selection.reasons).toEqual([
      { group: "transactions", source: "keyword", keywords: ["spending"], turnsBack: 0 },
      { group: "export", source: "keyword", keywords: ["export"], turnsBack: 0 },
    ]);
  });

  it("reads only the request's text blocks, not its attachments", () => {
    const request = new HumanMessage({
      content: [
        { type: "text", text: "Summarize this please" },
        { type: "file", mimeType: "text/plain", data: "export every transaction to csv", source_type: "base64" } as never,
      ],
    });
    expect(names([request])).toEqual([]);
  });

  it("is pure: the same messages give the same selection, and the input is never touched", () => {
    const messages = Object.freeze([...turn("show my spending", "Here it is."), new HumanMessage("yes")]);
    const first = router.select({ messages, config: userConfig });
    const second = router.select({ messages, config: userConfig });
    expect(second).toEqual(first);
    expect(messages).toHaveLength(3);
  });
});

describe("router.select: follow-ups keep the groups of the turn they answer", () => {
  const history = turn("Show my spending on groceries", "You spent 120. Shall I export these payments to a spreadsheet?");

  it("a 'yes, do that' turn keeps the earlier groups and those the assistant's question names", () => {
    const selection = router.select({ messages: [...history, new HumanMessage("yes, do that")], config: userConfig });
    expect(selection.followUp).toBe(true);
    expect(selection.groups).toEqual(["transactions", "export"]);
    expect(selection.reasons).toEqual([
      { group: "transactions", source: "keyword", keywords: ["spending"], turnsBack: 1 },
      { group: "transactions", source: "answered", keywords: ["payment"], turnsBack: 1 },
      { group: "export", source: "answered", keywords: ["export", "spreadsheet"], turnsBack: 1 },
    ]);
  });

  it("a short request that names a group itself is a new request", () => {
    const selection = router.select({ messages: [...history, new HumanMessage("now open my notes")], config: userConfig });
    expect(selection).toMatchObject({ followUp: false, groups: ["notes"] });
  });

  it("a long new request does not inherit", () => {
    const selection = router.select({ messages: [...history, new HumanMessage("Now something different: tell me how compound interest works over ten years")], config: userConfig });
    expect(selection.followUp).toBe(false);
    expect(selection.groups).toEqual([]);
  });

  it("chains of follow-ups inherit up to followUpDepth turns back", () => {
    const chain = [...turn("check my Obsidian notes", "Done."), ...turn("and March?", "Done."), ...turn("and April?", "Done."), ...turn("and May?", "Done.")];
    expect(names([...chain, new HumanMessage("and June?")])).toEqual([]);
    expect(names([...chain.slice(0, 2), ...chain.slice(4), new HumanMessage("and June?")])).toEqual(["notes"]);
    const deep = financeRouter({ followUpDepth: 4 }).router;
    expect(deep.select({ messages: [...chain, new HumanMessage("and June?")], config: userConfig }).groups).toEqual(["notes"]);
    const off = financeRouter({ followUpMaxWords: 0 }).router;
    expect(off.select({ messages: [...history, new HumanMessage("yes")], config: userConfig }).groups).toEqual([]);
  });
});

describe("router.select: discover_tool_groups grants are read from the turn's tool results", () => {
  async function grantTurn(enable: string[], config = userConfig): Promise<BaseMessage[]> {
    const discovery = router.discoveryTool;
    if (!discovery) throw new Error("discovery is on by default");
    const result = await runToolCall(discovery, "grant-1", { enable }, config);
    return [
      new HumanMessage("I need something you cannot do yet, please find the right tools for it"),
      new AIMessage({ content: "", tool_calls: [{ id: "grant-1", name: DISCOVER_TOOL_NAME, args: { enable }, type: "tool_call" }] }),
      result,
    ];
  }

  it("enables the group for the next call of the turn, as a grant reason", async () => {
    const messages = await grantTurn(["notes"]);
    expect((messages[2] as ToolMessage).artifact).toEqual({ type: "contextview.tool_groups", version: 1, enabled: ["notes"], listed: ["transactions", "notes", "export"], unavailable: 0 });
    const selection = router.select({ messages, config: userConfig });
    expect(selection.groups).toEqual(["notes"]);
    expect(selection.reasons).toEqual([{ group: "notes", source: "grant", keywords: [], turnsBack: 0 }]);
  });

  it("carries into a follow-up, but not into a new request or another conversation", async () => {
    const granted = [...(await grantTurn(["notes"])), new AIMessage("I can read your notes now.")];
    expect(names([...granted, new HumanMessage("great, go on")])).toEqual(["notes"]);
    expect(names([...granted, new HumanMessage("What is the capital of France and why did it become the capital?")])).toEqual([]);
    expect(names([new HumanMessage("great, go on")])).toEqual([]);
  });

  it("adds to what a follow-up inherited, mid-turn, without dropping it", async () => {
    const discovery = router.discoveryTool;
    if (!discovery) throw new Error("discovery is on by default");
    const messages = [
      ...turn("Show my spending", "Here it is."),
      new HumanMessage("yes, go on"),
      new AIMessage({ content: "", tool_calls: [{ id: "g-2", name: DISCOVER_TOOL_NAME, args: { enable: ["notes"] }, type: "tool_call" }] }),
      await runToolCall(discovery, "g-2", { enable: ["notes"] }, userConfig),
    ];
    expect(router.select({ messages, config: userConfig })).toMatchObject({ followUp: true, groups: ["transactions", "notes"] });
  });

  it("ignores look-alikes: an orphan result, a failed result, another tool's artifact", async () => {
    const [request, call, result] = (await grantTurn(["notes"])) as [HumanMessage, AIMessage, ToolMessage];
    const artifact = result.artifact as unknown;
    const orphan = new ToolMessage({ content: "ok", tool_call_id: "other", name: DISCOVER_TOOL_NAME, artifact });
    const failed = new ToolMessage({ content: "ok", tool_call_id: "grant-1", name: DISCOVER_TOOL_NAME, artifact, status: "error" });
    const otherTool = new ToolMessage({ content: "ok", tool_call_id: "grant-1", name: "read_note", artifact });
    for (const forged of [orphan, failed, otherTool]) expect(names([request, call, forged])).toEqual([]);
  });

  it("lists and enables admin groups only for authorized callers, and re-checks on every selection", async () => {
    const discovery = router.discoveryTool;
    if (!discovery) throw new Error("discovery is on by default");
    const listed = await runToolCall(discovery, "l-1", {}, userConfig);
    expect(String(listed.content)).not.toContain("admin");
    expect(String((await runToolCall(discovery, "l-2", {}, adminConfig)).content)).toContain("- admin: Manage user data.");

    const refused = await grantTurn(["admin", "nope"], userConfig);
    expect((refused[2] as ToolMessage).artifact).toMatchObject({ enabled: [], unavailable: 2 });
    expect(names(refused, userConfig)).toEqual([]);

    const granted = await grantTurn(["admin"], adminConfig);
    expect(names(granted, adminConfig)).toEqual(["admin"]);
    const replayed = router.select({ messages: granted, config: userConfig });
    expect(replayed.groups).toEqual([]);
    expect(replayed.withheld).toEqual(["admin"]);
  });
});

describe("router.select: admin groups", () => {
  const request = [new HumanMessage("delete my old data")];

  it("are withheld from unauthorized callers, offered to authorized ones", () => {
    const denied = router.select({ messages: request, config: userConfig });
    expect(denied).toMatchObject({ groups: [], withheld: ["admin"], reasons: [] });
    expect(denied.tools.map((t) => t.name)).toEqual([DISCOVER_TOOL_NAME]);
    expect(router.select({ messages: request, config: adminConfig }).groups).toEqual(["admin"]);
    expect(router.select({ messages: request }).withheld).toEqual(["admin"]);
  });

  it("fail closed when authorize throws, and are never offered without authorize", () => {
    const throwing = financeRouter({
      authorize: () => {
        throw new Error("auth service down");
      },
    }).router;
    expect(throwing.select({ messages: request, config: adminConfig }).withheld).toEqual(["admin"]);
    const none = createToolRouter({ groups: financeGroups() });
    expect(none.isAuthorized(adminConfig)).toBe(false);
    expect(none.select({ messages: request, config: adminConfig }).withheld).toEqual(["admin"]);
  });

  it("run only for authorized callers: otherwise an error result, and the tool never runs", async () => {
    const { router: guarded, groups } = financeRouter();
    const inner = groups[3]?.tools[0];
    const deleteTool = guarded.tools.find((t) => t.name === "delete_user_data");
    if (!inner || !deleteTool) throw new Error("fixture");
    const denied = await runToolCall(deleteTool, "d-1", { query: "everything" }, userConfig);
    expect(denied).toBeInstanceOf(ToolMessage);
    expect(denied).toMatchObject({ status: "error", tool_call_id: "d-1", name: "delete_user_data", artifact: { type: "contextview.tool_denied", group: "admin" } });
    expect(inner.runs.count).toBe(0);
    expect(await deleteTool.invoke({ query: "everything" }, userConfig)).toMatch(/not available to this caller/);
    expect(inner.runs.count).toBe(0);

    const allowed = await runToolCall(deleteTool, "d-2", { query: "everything" }, adminConfig);
    expect(allowed).toMatchObject({ status: "success", tool_call_id: "d-2", content: "delete_user_data ran for everything" });
    expect(inner.runs.count).toBe(1);
  });
});

describe("router.select: what is charged and reported", () => {
  it("guarded tools cost exactly what the originals cost", () => {
    const { router: r, groups } = financeRouter();
    const estimator = createEstimator();
    const selection = r.select({ messages: [new HumanMessage("delete the spending export")], config: adminConfig });
    const originals = groups.flatMap((group) => (selection.groups.includes(group.name) ? group.tools : []));
    expect(estimator.estimateTools(selection.tools)).toBe(estimator.estimateTools([r.discoveryTool, ...originals]));
  });

  it("the record names groups and configured keywords, never message content", () => {
    const messages = [...turn("Show my spending on groceries at SECRETSHOP", "Done."), new HumanMessage("ok, payments too")];
    const record = routingRecord(router.select({ messages, config: userConfig }));
    expect(record).toMatchObject({ event: "tool_routing", groups: ["transactions"], toolNames: [DISCOVER_TOOL_NAME, "search_transactions", "categorize"], followUp: false });
    const text = JSON.stringify(record);
    for (const word of ["groceries", "SECRETSHOP", "payments", "Show"]) expect(text).not.toContain(word);
  });

  it("with discovery off, binds only the groups' tools", () => {
    const { router: r } = financeRouter({ discovery: false });
    expect(r.discoveryTool).toBeUndefined();
    expect(r.select({ messages: [new HumanMessage("hello")] }).tools).toEqual([]);
  });
});
