// While a context manager summarizes, older tool results are not cleared in steps: they
// stay (compacted) until their turn is summarized, so the head of the view moves once per
// summary. Without a summarizer, or with the setting given, they are cleared as before.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createContextManager, InMemoryContextStore, type ContextSettings, type ManagedReport, type Summarizer } from "@contextview/core";

const key = { userId: "u1", conversationId: "t1" };

/** An agent conversation replayed call by call: each turn a search with a ~1,500-token result. */
async function replay(options: { summarizer?: Summarizer; settings?: ContextSettings; overrides?: ContextSettings }, turns = 24) {
  const manager = createContextManager({ store: new InMemoryContextStore(), budget: { promptBudget: 8000 }, clearStep: 4, ...(options.summarizer ? { summarizer: options.summarizer } : {}), ...options.settings });
  const messages: BaseMessage[] = [];
  const reports: ManagedReport[] = [];
  const views: string[][] = [];
  const call = async () => {
    const view = await manager.build({ messages: [...messages], key, ...(options.overrides ? { overrides: options.overrides } : {}) });
    reports.push(view.report);
    views.push(view.messages.map((m) => JSON.stringify([m.type, m.content])));
  };
  for (let i = 0; i < turns; i++) {
    messages.push(new HumanMessage({ id: `h${i}`, content: `question ${i}` }));
    await call();
    messages.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "search", args: { i } }] }));
    messages.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: `result ${i}: ${"row ".repeat(1500)}` }));
    await call();
    messages.push(new AIMessage({ id: `r${i}`, content: `answer ${i}` }));
  }
  return Object.assign(reports, { views });
}

/** Calls whose view changed a message the previous view showed before its last three (the turn that just ended may be compacted). */
function headMoves(views: string[][]): number {
  let moves = 0;
  for (let i = 1; i < views.length; i++) {
    const before = views[i - 1]!;
    if (before.slice(0, -3).some((message, j) => views[i]![j] !== message)) moves++;
  }
  return moves;
}

const summarizer: Summarizer = async (transcript, { previousSummary }) => `${previousSummary ?? ""}\n- summarized ${transcript.length} characters`.trim();
const cleared = (reports: { toolResults: { cleared: number } }[]) => reports.reduce((sum, r) => sum + r.toolResults.cleared, 0);

describe("older tool results wait for their summary while a manager summarizes", () => {
  it("clears none with a summarizer, summarizing instead, and stays within the limit", async () => {
    const reports = await replay({ summarizer });
    expect(cleared(reports)).toBe(0);
    expect(reports.some((r) => r.compaction.kind === "summary")).toBe(true);
    for (const report of reports) expect(report.tokens.total).toBeLessThanOrEqual(report.limit);
  });

  it("clears in steps without a summarizer, when a request switches summarizing off, or when the setting is given", async () => {
    expect(cleared(await replay({}))).toBeGreaterThan(0);
    expect(cleared(await replay({ summarizer, overrides: { summarize: false } }))).toBeGreaterThan(0);
    expect(cleared(await replay({ summarizer, settings: { keepRecentToolResults: 3 } }))).toBeGreaterThan(0);
    expect(cleared(await replay({ summarizer, overrides: { keepRecentToolResults: 3 } }))).toBeGreaterThan(0);
  });

  it("clears in steps when no summary comes: a failing summarizer keeps as many turns as none", async () => {
    const failing: Summarizer = async () => null;
    const withFailing = await replay({ summarizer: failing });
    const without = await replay({});
    expect(cleared(withFailing)).toBeGreaterThan(0);
    expect(withFailing.at(-1)!.turns.kept).toBe(without.at(-1)!.turns.kept);
    expect(withFailing.at(-1)!.turns.kept).toBeGreaterThan(5);
  });

  it("moves the head of the view less often than clearing in steps does", async () => {
    const waiting = await replay({ summarizer });
    const stepping = await replay({ summarizer, settings: { keepRecentToolResults: 3 } });
    expect(headMoves(waiting.views)).toBeLessThan(headMoves(stepping.views));
  });
});
