// The recall tool on a large tool result (issue 47): `rows`, `ids` and `read` on a ~40 MB
// JSON content, each call measured as wall time and as the longest event-loop block seen by
// monitorEventLoopDelay, first call then the second on the same message objects (a tool
// loop's parallel calls share them). Targets: no block over 300 ms; the second call a
// fraction of the first.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { recallFromConversation, type RecallRequest } from "@contextview/core/internal";
import { createRecallTool } from "@contextview/langgraph";
import { stopLargeResultWorker } from "../packages/langgraph/src/large-results.js";

const ROWS = Number(process.env["RECALL_TOOL_ROWS"] ?? 300_000);
const rows = Array.from({ length: ROWS }, (_, i) => ({
  id: `tx-${100_000 + i}`,
  date: `2024-${String((i % 12) + 1).padStart(2, "0")}-${String((i % 28) + 1).padStart(2, "0")}`,
  amount: -((i % 977) + 0.25),
  payee: `Payee ${i % 311}`,
  memo: `Purchase number ${i} at the market on the corner`,
}));
const content = JSON.stringify({ query: "all", count: ROWS, transactions: rows });
/** The thread as a new request reads it from the checkpointer: new message objects. */
const thread = (): BaseMessage[] => [
  new HumanMessage({ id: "u0", content: "List every transaction" }),
  new AIMessage({ id: "a0", content: "", tool_calls: [{ id: "call_big", name: "search_transactions", args: { q: "all" }, type: "tool_call" }] }),
  new ToolMessage({ id: "t0", tool_call_id: "call_big", name: "search_transactions", content }),
  new AIMessage({ id: "a1", content: "There are many." }),
  new HumanMessage({ id: "u1", content: "Show me row 881 again" }),
];

const requests: Array<[string, RecallRequest]> = [
  ["rows", { action: "rows", message: "call_big", rows: ["881-890"] }],
  ["ids", { action: "rows", message: "call_big", ids: ["tx-100881", "tx-250000"] }],
  ["read", { action: "read", message: "call_big", offset: 1_000_000 }],
];

function measure(messages: readonly BaseMessage[], request: RecallRequest): { ms: number; blockMs: number } {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const start = performance.now();
  const answer = recallFromConversation(messages, request);
  const ms = performance.now() - start;
  histogram.disable();
  if (answer.error) throw new Error(answer.text);
  // A synchronous call is one block: its whole duration.
  return { ms, blockMs: Math.max(ms, histogram.max / 1e6) };
}

/** One call of the recall tool as a ToolNode makes it (async), and the longest event-loop block while it ran. */
async function measureTool(messages: readonly BaseMessage[], request: RecallRequest): Promise<{ ms: number; blockMs: number }> {
  const tool = createRecallTool({ getMessages: () => messages });
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const start = performance.now();
  const answer = String(await tool.invoke(request as never));
  const ms = performance.now() - start;
  histogram.disable();
  if (answer.startsWith("Recall error")) throw new Error(answer);
  return { ms, blockMs: histogram.max / 1e6 };
}

console.log(`recall on a ${(content.length / 1e6).toFixed(1)} MB JSON result (${ROWS} rows)`);
const table: Array<Record<string, string>> = [];
let worst = 0;
for (const [name, request] of requests) {
  const messages = thread();
  const first = measure(messages, request);
  const second = measure(messages, request);
  worst = Math.max(worst, first.blockMs, second.blockMs);
  table.push({ call: name, "first ms": first.ms.toFixed(0), "second ms": second.ms.toFixed(1), "second ÷ first": (second.ms / first.ms).toFixed(3) });
}
console.log("recallFromConversation (core, on the calling thread):");
console.table(table);
console.log(`longest block: ${worst.toFixed(0)} ms`);

void (async () => {
  const tool: Array<Record<string, string>> = [];
  let toolWorst = 0;
  for (const [name, request] of requests) {
    const messages = thread();
    const first = await measureTool(messages, request);
    const second = await measureTool(messages, request);
    toolWorst = Math.max(toolWorst, first.blockMs, second.blockMs);
    tool.push({ call: name, "first ms": first.ms.toFixed(0), "second ms": second.ms.toFixed(1), "first block ms": first.blockMs.toFixed(0), "second block ms": second.blockMs.toFixed(0) });
  }
  console.log("createRecallTool (rows on a large result in the worker thread):");
  console.table(tool);
  console.log(`longest event-loop block: ${toolWorst.toFixed(0)} ms (target ≤ 300 ms)`);
  await stopLargeResultWorker();
})();
