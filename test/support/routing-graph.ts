import { createEstimator } from "@contextview/core";
import { ContextViewAnnotation, createContextNode, type ContextLogRecord, type PromptBudgetRecord } from "@contextview/langgraph";
import type { SqliteContextStore } from "@contextview/sqlite";
import { AIMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { tool } from "@langchain/core/tools";
import { Annotation, END, MessagesAnnotation, START, StateGraph, type BaseCheckpointSaver } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
// Imported by path until the routing exports are added to @contextview/core's index.
import { bindSelection, createToolRouter, type ToolRouter, type ToolSelection } from "@contextview/core/routing";
import { RecordingChatModel } from "@contextview/test-support";

/** Scripted tool calls, keyed by the id of the user message that asks for them (so no marker text can steer routing). */
export type ToolScript = Record<string, { name: string; args: Record<string, unknown> }>;

/**
 * The recording fake, scripted for routing: it records the tools bound to every call
 * (`received`), calls the tool scripted for the current request (once per turn), and
 * otherwise answers with text. After a transactions search it offers an export, so a
 * "yes" has something to answer. Calls numbered in `failOnCalls` fail.
 */
export function scriptedToolModel(script: ToolScript, failOnCalls: ReadonlySet<number> = new Set()): RecordingChatModel {
  return new RecordingChatModel({
    reportsUsage: false,
    answer: (messages, { index }) => {
      if (failOnCalls.has(index)) return new Error("primary model unavailable");
      const request = [...messages].reverse().find((m) => m.type === "human");
      const last = messages[messages.length - 1];
      const scripted = request?.id === undefined ? undefined : script[request.id];
      if (last?.type === "human" && scripted) return new AIMessage({ content: "", tool_calls: [{ id: `call-${request?.id}-${index}`, name: scripted.name, args: scripted.args, type: "tool_call" }] });
      if (last?.type === "tool" && last.name === "search_transactions") return "Found 3 payments. Shall I export them to a spreadsheet?";
      return "Done.";
    },
  });
}

/** Tools that count their runs. */
export function countingTools() {
  const runs: Record<string, number> = {};
  const make = (name: string, description: string) =>
    tool(
      async ({ query }: { query: string }) => {
        runs[name] = (runs[name] ?? 0) + 1;
        return JSON.stringify({ tool: name, query, rows: [{ id: "r1" }] });
      },
      { name, description, schema: z.object({ query: z.string() }) },
    );
  return {
    runs,
    router: (): ToolRouter =>
      createToolRouter({
        groups: [
          { name: "transactions", description: "Search and categorize transactions.", keywords: ["transaction", "spending", "payment"], tools: [make("search_transactions", "Search transactions."), make("categorize", "Categorize a transaction.")] },
          { name: "notes", description: "Read Obsidian notes.", keywords: ["note", "obsidian"], tools: [make("read_note", "Read a note.")] },
          { name: "export", description: "Export data to files.", keywords: ["export", "spreadsheet", "csv"], tools: [make("export_csv", "Export rows as CSV.")] },
          { name: "admin", description: "Manage user data.", keywords: ["delete", "purge"], tools: [make("delete_user_data", "Delete a user's data.")], admin: true },
        ],
        authorize: (config) => config.configurable?.["role"] === "admin",
      }),
  };
}

export const RoutedState = Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec });

/** One context-node run: the selection it charged and the tool tokens its view reported. */
export interface ChargedView {
  selection: ToolSelection;
  toolTokens: number;
  expectedToolTokens: number;
}

const estimator = createEstimator();

/**
 * context → model ⇄ tools. The context step and the model step each compute the
 * router's selection from the checkpoint messages and the request config; the
 * context node charges the selected tools, the model (and its fallback) binds them.
 * The context node takes the selection as a function of the call, so it charges
 * exactly what the model binds.
 */
export function routedGraph(input: { saver: BaseCheckpointSaver; store: SqliteContextStore; router: ToolRouter; primary: RecordingChatModel; fallback: RecordingChatModel }) {
  const { router, store } = input;
  const charged: ChargedView[] = [];
  const modelSelections: ToolSelection[] = [];
  let lastPrompt: PromptBudgetRecord | undefined;
  const logger = {
    info: (record: ContextLogRecord) => {
      if (record.event === "prompt_budget") lastPrompt = record;
    },
    warn: () => undefined,
  };
  const context = createContextNode({ store, tools: (call) => router.select(call).tools, logger });

  const graph = new StateGraph(RoutedState)
    .addNode("context", async (state, config: RunnableConfig) => {
      const selection = input.router.select({ messages: state.messages, config });
      const update = await context.invoke(state, config);
      charged.push({ selection, toolTokens: lastPrompt?.toolTokens ?? -1, expectedToolTokens: estimator.estimateTools(selection.tools) });
      return update;
    })
    .addNode("model", async (state, config: RunnableConfig) => {
      const selection = router.select({ messages: state.messages, config });
      modelSelections.push(selection);
      const reply = await bindSelection(input.primary, selection, { fallbacks: [input.fallback] }).invoke(state.llmInputMessages, config);
      return { messages: [reply] };
    })
    .addNode("tools", new ToolNode([...router.tools]))
    .addEdge(START, "context")
    .addEdge("context", "model")
    .addConditionalEdges("model", (state) => ((state.messages[state.messages.length - 1] as AIMessage).tool_calls?.length ? "tools" : END), ["tools", END])
    .addEdge("tools", "context")
    .compile({ checkpointer: input.saver });
  return { graph, charged, modelSelections, drain: () => context.drain() };
}

export const routedConfig = (threadId: string, userId: string, role: "user" | "admin" = "user"): RunnableConfig => ({
  configurable: { thread_id: threadId, user_id: userId, role },
  recursionLimit: 20,
});
