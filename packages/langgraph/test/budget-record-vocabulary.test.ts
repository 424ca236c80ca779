import { readFileSync } from "node:fs";
import { join } from "node:path";
import { InMemoryContextStore, type ManagedReport, type Summarizer } from "@contextview/core";
import { createContextNode, type ContextBudgetRecord, type ContextLogRecord } from "@contextview/langgraph";
import { searchConversation } from "@contextview/test-support";
import { AIMessage, HumanMessage } from "@langchain/core/messages";

// Issue 28, item 8: the `context_budget` record uses the report's vocabulary, name for name
// (docs/observability.md, "The vocabulary").

const config = { configurable: { thread_id: "t-1", user_id: "u-1" } };

/** Each count of the record and the report path it comes from. */
const VOCABULARY: [keyof ContextBudgetRecord, (r: ManagedReport) => number | boolean | string, string][] = [
  ["messagesInCheckpoint", (r) => r.messages.inCheckpoint, "messages.inCheckpoint"],
  ["messagesSummarized", (r) => r.messages.summarized, "messages.summarized"],
  ["messagesProviderCompacted", (r) => r.messages.providerCompacted, "messages.providerCompacted"],
  ["messagesRead", (r) => r.messages.read, "messages.read"],
  ["messagesUnread", (r) => r.messages.unread, "messages.unread"],
  ["messagesKept", (r) => r.messages.kept, "messages.kept"],
  ["messagesDropped", (r) => r.messages.dropped, "messages.dropped"],
  ["turnsRead", (r) => r.turns.read, "turns.read"],
  ["turnsKept", (r) => r.turns.kept, "turns.kept"],
  ["turnsDropped", (r) => r.turns.dropped, "turns.dropped"],
  ["exchangesRead", (r) => r.exchanges.read, "exchanges.read"],
  ["exchangesKept", (r) => r.exchanges.kept, "exchanges.kept"],
  ["exchangesDropped", (r) => r.exchanges.dropped, "exchanges.dropped"],
  ["toolResultsCleared", (r) => r.toolResults.cleared, "toolResults.cleared"],
  ["toolResultsCompacted", (r) => r.toolResults.compacted, "toolResults.compacted"],
  ["toolResultsNarrowed", (r) => r.toolResults.narrowed, "toolResults.narrowed"],
  ["currentTurnForm", (r) => r.currentTurn.form, "currentTurn.form"],
  ["currentTurnCompacted", (r) => r.currentTurn.compacted, "currentTurn.compacted"],
  ["currentTurnCleared", (r) => r.currentTurn.cleared, "currentTurn.cleared"],
  ["currentTurnExcerpted", (r) => r.currentTurn.excerpted, "currentTurn.excerpted"],
  ["currentTurnSummarized", (r) => r.currentTurn.summarized, "currentTurn.summarized"],
  ["recallRecalled", (r) => r.recall.recalled, "recall.recalled"],
  ["recallRecent", (r) => r.recall.recent, "recall.recent"],
  ["recallOutcome", (r) => r.recall.outcome, "recall.outcome"],
  ["historyGiven", (r) => r.history.given, "history.given"],
  ["historyIncluded", (r) => r.history.included, "history.included"],
  ["historySummary", (r) => r.history.summary, "history.summary"],
  ["historyEvidence", (r) => r.history.evidence, "history.evidence"],
  ["reasoningCleared", (r) => r.reasoningCleared, "reasoningCleared"],
];

async function run(options: Parameters<typeof createContextNode>[0], messages = searchConversation(40), given: object = config) {
  const records: ContextLogRecord[] = [];
  const reports: ManagedReport[] = [];
  const logger = { info: (record: ContextLogRecord) => void records.push(record), warn: () => {} };
  const node = createContextNode({ ...options, logger, onReport: (report) => void reports.push(report) });
  await node.invoke({ messages }, given);
  const record = records.find((r): r is ContextBudgetRecord => r.event === "context_budget");
  if (!record || !reports[0]) throw new Error("no record");
  return { record, report: reports[0], messages };
}

describe("the context_budget record's vocabulary", () => {
  it("counts the newest messages left out that the recalled block holds, not matches, as recallRecent", async () => {
    const chat = Array.from({ length: 150 }, (_, i) => [
      new HumanMessage({ id: `u${i}`, content: `Turn ${i}: how was the weather in town ${i}?` }),
      new AIMessage({ id: `a${i}`, content: `Day ${i} was mild and dry, nothing to report.` }),
    ]).flat();
    // "ok" has no search term: the block holds only the newest messages left out.
    const { record, report } = await run({ budget: { promptBudget: 2000 }, store: new InMemoryContextStore() }, [...chat, new HumanMessage({ id: "ok", content: "ok" })]);
    expect(report.recall.outcome).toBe("recent");
    expect(record.recallRecent).toBeGreaterThan(0);
    expect(record.recallRecent).toBe(record.recallRecalled);
  });

  it("counts dropped messages among those read; the never-read ones are unread, the checkpoint all of them", async () => {
    const { record, messages } = await run({ budget: { promptBudget: 3000 }, store: new InMemoryContextStore() });
    expect(record.messagesUnread).toBeGreaterThan(100);
    expect(record.messagesDropped).toBeLessThanOrEqual(record.messagesRead);
    expect(record.messagesDropped).toBeLessThan(record.messagesUnread);
    expect(record.messagesInCheckpoint).toBe(messages.length);
    expect(record.messagesSummarized + record.messagesProviderCompacted + record.messagesRead + record.messagesUnread).toBe(record.messagesInCheckpoint);
    // Evidence only (no summarizer): the history slot shows evidence, not a summary.
    expect(record).toMatchObject({ historyGiven: true, historyIncluded: true, historySummary: false, historyEvidence: true });
  });

  it("counts the checkpoint's messages with a summarizer, beside the few the view read", async () => {
    const summarizer: Summarizer = async () => "The user keeps rent under 900 and moved savings.";
    const { record, messages } = await run({ budget: { promptBudget: 3000 }, summarizer, store: new InMemoryContextStore() });
    expect(record.compaction).toBe("summary");
    expect(record.messagesInCheckpoint).toBe(messages.length);
    expect(record.messagesSummarized).toBeGreaterThan(0);
    expect(record.messagesRead + record.messagesUnread).toBeLessThan(messages.length);
    expect(record).toMatchObject({ historyIncluded: true, historySummary: true });
  });

  it("says what keyed the stored state (`scope`) and how many older reasoning blocks were cleared", async () => {
    const thinking = (i: number) => [{ type: "thinking", thinking: `Weighing turn ${i}.`, signature: `sig-${i}` }, { type: "text", text: `Answer ${i}.` }];
    const chat = Array.from({ length: 3 }, (_, i) => [new HumanMessage({ id: `u${i}`, content: `Question ${i}?` }), new AIMessage({ id: `a${i}`, content: thinking(i) as never })]).flat();
    const messages = [...chat, new HumanMessage({ id: "now", content: "And now?" })];
    const user = await run({ budget: { promptBudget: 3000 }, store: new InMemoryContextStore() }, messages);
    expect(user.record.scope).toBe("user");
    expect(user.report.reasoningCleared).toBe(3);
    expect(user.record.reasoningCleared).toBe(3);
    const thread = await run({ budget: { promptBudget: 3000 }, store: new InMemoryContextStore() }, messages, { configurable: { thread_id: "t-2" } });
    expect(thread.record.scope).toBe("thread");
    const stateless = await run({ budget: { promptBudget: 3000 } }, messages, {});
    expect(stateless.record.scope).toBe("stateless");
  });

  it("names every count after its report field, and docs/observability.md lists each pair", async () => {
    const { record, report } = await run({ budget: { promptBudget: 3000 }, store: new InMemoryContextStore() });
    expect(Object.fromEntries(VOCABULARY.map(([name]) => [name, record[name]]))).toEqual(Object.fromEntries(VOCABULARY.map(([name, of]) => [name, of(report)])));
    const docs = readFileSync(join(__dirname, "../../../docs/observability.md"), "utf8");
    const rows = docs.split("\n").filter((line) => line.startsWith("| `report."));
    const missing = VOCABULARY.filter(([name, , path]) => !rows.some((row) => row.includes(`\`report.${path}\``) && row.includes(`\`${name}\``)));
    expect(missing.map(([name]) => name)).toEqual([]);
  });
});
