import { join } from "node:path";
import { SqliteContextStore } from "@contextview/sqlite";
import { ContextViewAnnotation, createContextNode } from "@contextview/langgraph";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Annotation, MessagesAnnotation } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { z } from "zod";
import { RecordingChatModel, toolsMarker } from "@contextview/test-support";
import { githubSearch } from "./fixtures/api/apiPayloads.js";
import { configFor, useTempDir } from "./support/thread.js";

/** The recorded issue search, 100 rows (~316 KB), as a real API search tool returns it. */
const searchTool = () =>
  tool(async () => JSON.stringify(githubSearch(100)), {
    // The recording model calls this name.
    name: "search_transactions",
    description: "Search the issues of the repository.",
    schema: z.object({ query: z.string(), limit: z.number() }),
  });

describe("a real-API search in the current turn, at the default budget", () => {
  const tempDir = useTempDir();

  it("is answered from: rows and references in the view, never a notice to call the tool again", async () => {
    const file = join(tempDir(), "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    const store = SqliteContextStore.nextTo(saver);
    const model = new RecordingChatModel();
    const agent = createReactAgent({
      llm: model,
      tools: [searchTool()],
      checkpointer: saver,
      stateSchema: Annotation.Root({ ...MessagesAnnotation.spec, ...ContextViewAnnotation.spec }),
      preModelHook: createContextNode({ store, tools: [searchTool()] }),
    });
    const state = (await agent.invoke(
      { messages: [new HumanMessage({ id: "u1", content: `Which issues mention the rate limit? ${toolsMarker(1)}` })] },
      { ...configFor("thread", "alice"), durability: "exit" },
    )) as { messages: BaseMessage[] };

    // One call to search, one to answer: the model never had to call again.
    expect(model.calls).toHaveLength(2);
    expect(state.messages.at(-1)?.type).toBe("ai");
    const view = model.calls[1] as BaseMessage[];
    const result = view.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    const text = String(result.content);
    expect(text).not.toMatch(/call (the|the source) tool again/);
    const items = (JSON.parse(text) as { items: { retained: number; omitted: number; rows: Array<{ title: string }>; omitted_refs: { rows: unknown[] } } }).items;
    expect(items.retained).toBeGreaterThan(10);
    expect(items.rows.every((row) => typeof row.title === "string")).toBe(true);
    expect(items.omitted_refs.rows).toHaveLength(items.omitted);
    // The checkpoint keeps the whole result.
    const stored = state.messages.find((m): m is ToolMessage => ToolMessage.isInstance(m))!;
    expect((JSON.parse(String(stored.content)) as { items: unknown[] }).items).toHaveLength(100);
  });
});
