// Bundled by esbuild for the browser in core-browser.int.test.ts: runs core's two main
// entry points on LangChain messages and leaves what the test checks on globalThis.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { buildContext, compactToolResult, compactionMarkerOf, createEstimator, summaryPrefixHash } from "@contextview/core";

async function run() {
  const rows = Array.from({ length: 100 }, (_, i) => ({ id: `tx-${i}`, date: `2026-01-${String((i % 28) + 1).padStart(2, "0")}`, amount: i * 7, memo: `coffee shop ${i}` }));
  const result = { query: "coffee", total: rows.length, rows };
  const history = [
    new SystemMessage("You are a finance assistant."),
    new HumanMessage({ id: "h1", content: "Find my coffee spending." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "coffee" } }] }),
    new ToolMessage({ id: "t1", content: JSON.stringify(result), artifact: result, tool_call_id: "c1", name: "search" }),
    new AIMessage({ id: "a2", content: "You bought coffee 100 times." }),
    new HumanMessage({ id: "h2", content: "And the largest one?" }),
  ];
  const compact = compactToolResult(history[3] as ToolMessage, 1500);
  const view = buildContext({ messages: history, budget: { contextWindow: 16384, promptBudget: 3000, responseReserve: 1024, safetyReserve: 256 } });
  return {
    hasNodeGlobals: ["process", "Buffer", "setImmediate", "require"].filter((name) => name in globalThis),
    userAgent: (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? "",
    compactTokens: createEstimator().estimateText(String(compact.content)),
    compactMarker: compactionMarkerOf(compact),
    compactHasTotal: String(compact.content).includes('"total":100'),
    viewTypes: view.messages.map((message) => message.type),
    viewTokens: view.report.tokens.total,
    viewLimit: view.report.limit,
    prefixHash: await summaryPrefixHash(history, 3),
  };
}

(globalThis as { contextviewResult?: Promise<unknown> }).contextviewResult = run();
