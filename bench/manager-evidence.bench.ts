// The context manager with durable evidence: `pnpm bench manager-evidence`
//
// 100 calls of a growing 120-turn thread whose evidence (InMemoryContextStore.update) quotes
// messages the view still shows, medians of 5 rounds, measured in one run:
//   - createContextManager().build: the view the model gets, with the evidence as given;
//   - buildContext on the same messages and evidence: one view, the least a managed call builds;
//   - viewRecordOf: the record of that view, and how much of the evidence's text it stores.
// Printed: per-call figures, manager ÷ buildContext (issue 48: the manager builds a view once;
// it was 2.3–2.4× while it built a second view with the evidence less the excerpts the first
// showed, 1.3–1.4× since), and the evidence bytes a record stores against the evidence given
// (20% when the record kept that second view's evidence; 40% since: the envelope and where
// each excerpt set aside goes, the excerpts made again from the checkpoint on a rebuild).
import { loadavg } from "node:os";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createContextManager, InMemoryContextStore } from "@contextview/core";
import { viewRecordOf } from "@contextview/core/internal";

function thread(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: we must keep the grocery budget under ${100 + i} dollars; what did I spend in month ${i % 12}?` }));
    out.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "search", args: { month: i % 12 }, type: "tool_call" }] }));
    out.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: JSON.stringify({ rows: Array.from({ length: 30 }, (_, r) => ({ id: `tx-${i}-${r}`, amount: r * 3.5 })) }) }));
    out.push(new AIMessage({ id: `f${i}`, content: `Decided: turn ${i} stays within the budget.` }));
  }
  return out;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const budget = { promptBudget: 6000 };

interface Round {
  manager: number;
  single: number;
  record: number;
  shown: number;
  storedBytes: number;
  givenBytes: number;
}

async function round(all: readonly BaseMessage[], n: number): Promise<Round> {
  const store = new InMemoryContextStore();
  const manager = createContextManager({ store, budget });
  const key = { userId: "u", conversationId: `c${n}` };
  const totals: Round = { manager: 0, single: 0, record: 0, shown: 0, storedBytes: 0, givenBytes: 0 };
  for (let turn = 20; turn < 120; turn++) {
    const messages = all.slice(0, turn * 4 + 1);
    const evidence = (await store.update(key.userId, key.conversationId, messages)).asMessage();
    let start = performance.now();
    const view = await manager.build({ messages, key, evidence });
    totals.manager += performance.now() - start;
    start = performance.now();
    buildContext({ messages, budget, historyMessage: evidence });
    totals.single += performance.now() - start;
    start = performance.now();
    const entry = viewRecordOf({ messages, key, evidence }, view, { source: "bench" });
    totals.record += performance.now() - start;
    if (view.report.history.evidenceShown > 0) totals.shown++;
    const { evidence: whole, evidenceBeside } = entry.record.inputs;
    const stored = evidenceBeside ?? whole;
    totals.storedBytes += stored === null || stored === undefined ? 0 : (entry.inputs[stored]?.length ?? 0);
    totals.givenBytes += evidence === null ? 0 : JSON.stringify({ content: evidence.content, id: evidence.id }).length;
  }
  return totals;
}

async function main(): Promise<void> {
  const all = thread(120);
  const rounds: Round[] = [];
  for (let n = 0; n < 5; n++) rounds.push(await round(all, n));
  const per = (field: keyof Round) => median(rounds.map((r) => r[field])) / 100;
  const [managerMs, singleMs, recordMs] = [per("manager"), per("single"), per("record")];
  const first = rounds[0] as Round;
  console.log(`100 calls, evidence given on each; views that left out excerpts of messages they show: ${first.shown}`);
  console.log(`per call: manager build ${managerMs.toFixed(2)} ms, buildContext ${singleMs.toFixed(2)} ms, viewRecordOf ${recordMs.toFixed(2)} ms (load average ${loadavg()[0]?.toFixed(1)})`);
  console.log(`manager ÷ buildContext: ${(managerMs / singleMs).toFixed(2)}× (one view a call: about 1×)`);
  console.log(`evidence text a record stores: ${Math.round(first.storedBytes / 100)} of ${Math.round(first.givenBytes / 100)} bytes given, a call (${((100 * first.storedBytes) / first.givenBytes).toFixed(0)}%)`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
