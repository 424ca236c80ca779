// Core's two main entry points on LangChain messages, as plain data: run in headless Chromium
// (bundled from browser-entry.ts) and in Node by core-browser.int.test.ts, which compares them.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { compactToolResult, compactionMarkerOf } from "@contextview/core/tool-results";
import { summaryPrefixHash } from "../../packages/core/src/summarize/prefix-hash.js";

export const COMPACT_LIMIT = 1500;

export async function browserScenario() {
  const rows = Array.from({ length: 100 }, (_, i) => ({ id: `tx-${i}`, date: `2026-01-${String((i % 28) + 1).padStart(2, "0")}`, amount: i * 7, memo: `coffee shop ${i}` }));
  const result = { query: "coffee", total: rows.length, rows };
  const tool = new ToolMessage({ id: "t1", content: JSON.stringify(result), artifact: result, tool_call_id: "c1", name: "search" });
  const history = [
    new SystemMessage("You are a finance assistant."),
    new HumanMessage({ id: "h1", content: "Find my coffee spending." }),
    new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "search", args: { q: "coffee" } }] }),
    tool,
    new AIMessage({ id: "a2", content: "You bought coffee 100 times." }),
    new HumanMessage({ id: "h2", content: "And the largest one?" }),
  ];
  const compact = compactToolResult(tool, COMPACT_LIMIT);
  const view = buildContext({ messages: history, budget: { contextWindow: 16384, promptBudget: 3000, responseReserve: 1024, safetyReserve: 256 } });
  return {
    originalTokens: createEstimator().estimateText(tool.content as string),
    compactTokens: createEstimator().estimateText(String(compact.content)),
    compactContent: String(compact.content),
    compactMarker: compactionMarkerOf(compact),
    viewTypes: view.messages.map((message) => message.type),
    viewContents: view.messages.map((message) => JSON.stringify(message.content)),
    viewTokens: view.report.tokens.total,
    viewLimit: view.report.limit,
    prefixHash: await summaryPrefixHash(history, 3),
  };
}

export type BrowserScenarioResult = Awaited<ReturnType<typeof browserScenario>>;
