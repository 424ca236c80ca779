import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool, type StructuredToolInterface } from "@langchain/core/tools";
import { z } from "zod";
import { createToolRouter } from "@contextview/core/routing";
import type { ToolGroup, ToolRouter, ToolRouterOptions } from "@contextview/core/routing";

/** A tool that counts its runs and answers with its name. */
export function countingTool(name: string, runs: { count: number } = { count: 0 }): StructuredToolInterface & { runs: { count: number } } {
  const made = tool(
    async ({ query }: { query: string }) => {
      runs.count++;
      return `${name} ran for ${query}`;
    },
    { name, description: `The ${name} tool.`, schema: z.object({ query: z.string() }) },
  );
  return Object.assign(made, { runs });
}

export function financeGroups(): (ToolGroup & { tools: ReturnType<typeof countingTool>[] })[] {
  return [
    { name: "transactions", description: "Search and categorize transactions.", keywords: ["transaction", "spending", "payment", "bank account"], tools: [countingTool("search_transactions"), countingTool("categorize")] },
    { name: "notes", description: "Read and search Obsidian notes.", keywords: ["note", "obsidian"], tools: [countingTool("read_note")] },
    { name: "export", description: "Export data to files.", keywords: ["export", "spreadsheet", "csv"], tools: [countingTool("export_csv")] },
    { name: "admin", description: "Manage user data.", keywords: ["delete", "purge"], tools: [countingTool("delete_user_data")], admin: true },
  ];
}

export const adminConfig: RunnableConfig = { configurable: { thread_id: "t", user_id: "u", role: "admin" } };
export const userConfig: RunnableConfig = { configurable: { thread_id: "t", user_id: "u", role: "user" } };

export function financeRouter(options: Partial<ToolRouterOptions> = {}): { router: ToolRouter; groups: ReturnType<typeof financeGroups> } {
  const groups = financeGroups();
  return { router: createToolRouter({ groups, authorize: (config) => config.configurable?.["role"] === "admin", ...options }), groups };
}

let ids = 0;
/** A finished turn: the request, optionally one tool call with its result, and an answer. */
export function turn(request: string, answer: string, call?: { name: string; args: Record<string, unknown>; result?: BaseMessage }): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage(request)];
  if (call) {
    const id = `call-${++ids}`;
    out.push(new AIMessage({ content: "", tool_calls: [{ id, name: call.name, args: call.args, type: "tool_call" }] }));
    out.push(call.result ?? new ToolMessage({ content: "ok", tool_call_id: id, name: call.name }));
  }
  out.push(new AIMessage(answer));
  return out;
}

/** Run a tool as ToolNode would: with a ToolCall, so it returns a ToolMessage. */
export async function runToolCall(t: StructuredToolInterface, id: string, args: Record<string, unknown>, config: RunnableConfig = {}): Promise<ToolMessage> {
  return (await t.invoke({ id, name: t.name, args, type: "tool_call" } as never, config)) as ToolMessage;
}
