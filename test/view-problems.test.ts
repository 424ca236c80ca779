import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext } from "@contextview/core";
import { LAWS, snapshot, viewProblems, type LawName, type ViewLawInput } from "@contextview/test-support";

// The law checker is itself specified: for each law, a view that breaks only it is
// named by that law, and a view that keeps every law has no problems.
const call = (id: string, args: Record<string, unknown> = { q: id }) => ({ id, name: "search", args, type: "tool_call" as const });
const request = new HumanMessage({ id: "h1", content: "What did I spend?" });
const conversation: BaseMessage[] = [
  new SystemMessage({ id: "s", content: "You are careful." }),
  new HumanMessage({ id: "h0", content: "Hello." }),
  new AIMessage({ id: "a0", content: "", tool_calls: [call("c1"), call("c2")] }),
  new ToolMessage({ id: "t1", tool_call_id: "c1", content: "one" }),
  new ToolMessage({ id: "t2", tool_call_id: "c2", content: "two" }),
  new AIMessage({ id: "a1", content: "Done." }),
  request,
];

describe("viewProblems", () => {
  it("finds nothing wrong in a view that keeps every law", () => {
    expect(viewProblems({ conversation, limit: 10_000, requireUserMessage: true, awaitsAnswer: true, rebuild: () => conversation }, conversation)).toEqual([]);
  });

  const [system, h0, a0, t1, t2, a1] = conversation as [BaseMessage, BaseMessage, BaseMessage, BaseMessage, BaseMessage, BaseMessage];
  // [law, input, view, the laws providers' rules break with it (they refuse what it names too)]
  const cases: [LawName, ViewLawInput, BaseMessage[], LawName[]?][] = [
    ["inputs untouched", { messages: [{ changed: true }], before: snapshot([{ changed: false }]) }, conversation],
    // A request without an id is checked by its text only.
    ["current request whole", { conversation: [...conversation.slice(0, -1), new HumanMessage("What did I spend?")] }, conversation.slice(0, -1)],
    ["current request untouched", { conversation }, [...conversation.slice(0, -1), new HumanMessage({ id: "other", content: "What did I spend?" })]],
    ["tool arguments whole", { conversation }, [system, h0, new AIMessage({ id: "a0", content: "", tool_calls: [call("c1", { q: "changed" }), call("c2")] }), t1, t2, a1, request]],
    ["tool calls answered", {}, [system, h0, a0, t1, a1, request], ["provider order"]],
    ["no orphan tool result", {}, [system, h0, t1, a1, request], ["provider order"]],
    ["no repeated tool call", {}, [system, h0, a0, t1, t2, a0, t1, t2, request]],
    ["evidence not beside its message", {}, [system, new HumanMessage("[Earlier in this conversation]"), new AIMessage({ id: "ev", content: JSON.stringify({ contextview_evidence: { cursor: 2, recentContext: [{ role: "user", messageId: "h0", index: 1, excerpt: "Hello." }] } }) }), h0, a1, request]],
    ["within the limit", { limit: 5 }, conversation],
    ["provider order", {}, [system, a1, request]],
    ["known message types", {}, [system, h0, { type: "generic", content: "x" } as unknown as BaseMessage, request], ["provider order"]],
    ["something to answer", { awaitsAnswer: true }, [system, h0, a1]],
    ["system text from the system prompt", { conversation }, [new SystemMessage("You are careful. Earlier the user said: hello."), h0, a1, request]],
    ["deterministic", { rebuild: () => [request] }, conversation],
  ];

  it.each(cases)("names the law %s when only it is broken", (law, input, view, also = []) => {
    expect([...new Set(viewProblems(input, view).map((p) => p.law))]).toEqual([law, ...also]);
  });

  // Two answers in a row: only Gemini refuses them.
  const twice = [system, h0, a0, t1, t2, a1, new AIMessage("Also this."), request];
  it("names a provider's rule broken alone as provider order", () => {
    expect(viewProblems({}, twice)).toEqual([{ law: "provider order", detail: "gemini: message 6: two model turns in a row" }]);
  });

  it("checks a provider's rules only when the conversation passes them", () => {
    expect(viewProblems({ conversation: twice }, twice)).toEqual([]);
    expect(viewProblems({ conversation }, twice)).toEqual([{ law: "provider order", detail: "gemini: message 6: two model turns in a row" }]);
  });

  it("has a case for every law it checks on plain messages (the report's laws are checked in the view tests)", () => {
    const reportLaws: LawName[] = ["estimate is real", "omissions counted", "tool results counted"];
    expect(LAWS.filter((law) => !reportLaws.includes(law) && !cases.some(([named]) => named === law))).toEqual([]);
  });

  it("holds the report's result counts to the results the view shows compacted or cleared", () => {
    // Two turns of large results at a small limit: the older one's result is cleared, the current one's compacted.
    const rows = (n: number) => JSON.stringify({ rows: Array.from({ length: n }, (_, r) => ({ id: `row-${r}`, amount: r * 3.5, memo: "groceries and more" })) });
    const turn = (i: number) => [
      new HumanMessage({ id: `q${i}`, content: `Question ${i}?` }),
      new AIMessage({ id: `c${i}`, content: "", tool_calls: [call(`k${i}`)] }),
      new ToolMessage({ id: `r${i}`, tool_call_id: `k${i}`, content: rows(400) }),
    ];
    const messages = [...turn(0), new AIMessage({ id: "f0", content: "Found them." }), ...turn(1)];
    const view = buildContext({ messages, budget: { promptBudget: 2500 }, keepRecentToolResults: 0 });
    const { cleared, compacted, narrowed } = view.report.toolResults;
    expect({ cleared, shortened: compacted + narrowed }).toEqual({ cleared: 1, shortened: 1 });
    expect(viewProblems({}, view)).toEqual([]);
    const miscounted = { ...view, report: { ...view.report, toolResults: { cleared: 0, compacted, narrowed } } };
    expect(viewProblems({}, miscounted)).toEqual([{ law: "tool results counted", detail: "0 cleared in the report, 1 shown cleared" }]);
    const twice = { ...view, report: { ...view.report, toolResults: { cleared, compacted: compacted + 1, narrowed } } };
    expect(viewProblems({}, twice).map((p) => p.law)).toEqual(["tool results counted"]);
  });
});
