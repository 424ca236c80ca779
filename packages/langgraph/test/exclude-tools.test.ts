import { InMemoryContextStore } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { ContextIntegrationError, createContextNode } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { RecordingChatModel } from "@contextview/langgraph/testing";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, tool } from "langchain";
import { z } from "zod";
import { thrownBy } from "@contextview/test-support";

// Issue 49, item 9: per-tool control on every factory, as LangChain's ClearToolUsesEdit takes it.

const readFile = tool(async ({ path }) => `contents of ${path}`, { name: "read_file", description: "Read a file.", schema: z.object({ path: z.string() }) });
const search = tool(async ({ q }) => `rows for ${q}`, { name: "search", description: "Search.", schema: z.object({ q: z.string() }) });

/** Turns of one file read and one search each; then a question. */
function history(n: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let t = 0; t < n; t++) {
    out.push(new HumanMessage({ id: `u${t}`, content: `Check item ${t}.` }));
    out.push(new AIMessage({ id: `c${t}`, content: "", tool_calls: [{ id: `r${t}`, name: "read_file", args: { path: `/items/${t}.txt` } }, { id: `s${t}`, name: "search", args: { q: `item ${t}` } }] }));
    out.push(new ToolMessage({ id: `tr${t}`, tool_call_id: `r${t}`, name: "read_file", content: `file ${t}: ${"the budget line reads 40 per week. ".repeat(4)}` }));
    out.push(new ToolMessage({ id: `ts${t}`, tool_call_id: `s${t}`, name: "search", content: JSON.stringify({ rows: Array.from({ length: 12 }, (_, r) => ({ id: `${t}-${r}`, memo: `payment ${r} of item ${t}` })) }) }));
    out.push(new AIMessage({ id: `a${t}`, content: `Item ${t} is fine.` }));
  }
  out.push(new HumanMessage({ id: "q", content: "Which file said 40 per week?" }));
  return out;
}

const formsOf = (messages: readonly BaseMessage[], name: string) => messages.filter((m) => m.type === "tool" && (m as ToolMessage).name === name).map((m) => compactionMarkerOf(m)?.form ?? "whole");
const settings = { budget: { promptBudget: 3000 }, keepRecentToolResults: 1, view: { clearStep: 1 }, evidence: "off" as const };

describe("excludeTools on the factories", () => {
  it("createAgent: the model sees every file read of the older turns shown, where without it they are cleared", async () => {
    const run = async (excludeTools: string[] | undefined) => {
      const model = new RecordingChatModel();
      const view = { clearStep: 1, ...(excludeTools === undefined ? {} : { excludeTools }) };
      const agent = createAgent({ model, tools: [readFile, search], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ ...settings, view, store: new InMemoryContextStore() })] });
      await agent.invoke({ messages: history(12) }, { configurable: { thread_id: "t" } });
      return model.calls[0] ?? [];
    };
    const plain = await run(undefined);
    const spared = await run(["read_file"]);
    expect(formsOf(plain, "read_file")).toContain("cleared");
    expect(formsOf(spared, "read_file").length).toBeGreaterThan(0);
    expect(formsOf(spared, "read_file")).not.toContain("cleared");
    expect(formsOf(spared, "search")).toContain("cleared");
  });

  it("node: a bad value is named where the factory takes it", () => {
    const error = thrownBy<Error & { details: Record<string, unknown> }>(() => createContextNode({ view: { excludeTools: "read_file" as never } }));
    expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field: "view.excludeTools" } });
    expect(error.message).toMatch(/^Expected `view.excludeTools` to be an array of tool names/);
    expect(thrownBy<ContextIntegrationError>(() => createContextNode({ excludeTools: ["read_file"] } as never)).message).toContain("it goes in `view.excludeTools`");
  });

  it("is refused per request, saying where it is set, in the runtime context and in configurable.context", async () => {
    const node = createContextNode({ store: new InMemoryContextStore(), evidence: "off" });
    const runtime = await node.invoke({ messages: history(1) }, { configurable: { thread_id: "t" }, context: { excludeTools: ["search"] } } as never).catch((caught: unknown) => caught);
    expect(runtime).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: "context.excludeTools" });
    expect((runtime as Error).message).toBe(
      "`context.excludeTools` cannot change per request: set `view.excludeTools` once, on the factory (createContextNode, withContext, contextMiddleware)",
    );
    const configurable = await node.invoke({ messages: history(1) }, { configurable: { thread_id: "t", context: { excludeTools: ["search"] } } }).catch((caught: unknown) => caught);
    expect(configurable).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: "context.excludeTools" });
  });
});
