import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { SqliteContextStore } from "@contextview/sqlite";
import { HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { DISCOVER_TOOL_NAME } from "@contextview/core/routing";
import { countingTools, routedConfig, routedGraph, scriptedToolModel, type ToolScript } from "./support/routing-graph.js";
import { useTempDir } from "./support/thread.js";

const ROOT = resolve(__dirname, "..");

const script: ToolScript = {
  t1: { name: "search_transactions", args: { query: "groceries" } },
  t3: { name: DISCOVER_TOOL_NAME, args: { enable: ["notes"] } },
  t5: { name: "delete_user_data", args: { query: "all" } },
  t6: { name: "delete_user_data", args: { query: "all" } },
};
const ask = (id: string, text: string) => new HumanMessage({ id, content: text });

describe("tool routing through a LangGraph StateGraph with SqliteSaver and SqliteContextStore", () => {
  const tempDir = useTempDir();

  it("keeps follow-up groups, carries discovery grants through the checkpoint (and a new process), isolates conversations and guards admin tools", async () => {
    const file = join(tempDir(), "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    const store = SqliteContextStore.nextTo(saver);
    const tools = countingTools();
    // The primary's 3rd call (the follow-up's) fails: the fallback answers with the same tools.
    const primary = scriptedToolModel(script, new Set([2]));
    const fallback = scriptedToolModel(script);
    const run = routedGraph({ saver, store, router: tools.router(), primary, fallback });
    const alice = routedConfig("alice-1", "alice");

    // Turn 1: the request selects the transactions group.
    await run.graph.invoke({ messages: [ask("t1", "Show my spending on groceries")] }, alice);
    expect(primary.received.map((c) => c.tools)).toEqual([
      [DISCOVER_TOOL_NAME, "search_transactions", "categorize"],
      [DISCOVER_TOOL_NAME, "search_transactions", "categorize"],
    ]);
    expect(tools.runs["search_transactions"]).toBe(1);

    // Turn 2: "yes, do that" keeps the groups of the turn it answers, plus what the answer offered.
    await run.graph.invoke({ messages: [ask("t2", "yes, do that")] }, alice);
    const followUp = run.modelSelections[2];
    expect(followUp?.followUp).toBe(true);
    expect(followUp?.groups).toEqual(["transactions", "export"]);
    expect(followUp?.reasons).toEqual([
      { group: "transactions", source: "keyword", keywords: ["spending"], turnsBack: 1 },
      { group: "transactions", source: "answered", keywords: ["payment"], turnsBack: 1 },
      { group: "export", source: "answered", keywords: ["export", "spreadsheet"], turnsBack: 1 },
    ]);
    // The primary failed; the fallback received exactly the same selected schemas.
    expect(primary.received[2]?.tools).toEqual([DISCOVER_TOOL_NAME, "search_transactions", "categorize", "export_csv"]);
    expect(fallback.received.map((c) => c.tools)).toEqual([primary.received[2]?.tools]);

    // Turn 3: nothing matches; the model enables `notes`. Stop right after the tool ran.
    await run.graph.invoke({ messages: [ask("t3", "I need something you cannot do yet, please find the right tools for it")] }, { ...alice, interruptAfter: ["tools"] });
    expect(primary.received[3]?.tools).toEqual([DISCOVER_TOOL_NAME]);
    const stored = (await run.graph.getState(alice)).values.messages as BaseMessage[];
    const grant = stored[stored.length - 1] as ToolMessage;
    expect(grant).toBeInstanceOf(ToolMessage);
    expect(grant.artifact).toMatchObject({ type: "contextview.tool_groups", enabled: ["notes"] });

    // A new process on the same files resumes the turn: the grant, read back from the checkpoint, binds `notes`.
    const child = await runChild([file, "alice-1", "alice"]);
    expect(child.modelTools).toEqual([[DISCOVER_TOOL_NAME, "read_note"]]);
    expect(child.reasons).toEqual([{ group: "notes", source: "grant", keywords: [], turnsBack: 0 }]);
    expect(child.toolTokens).toBe(child.expectedToolTokens);

    // A fresh conversation has no grants.
    const callsBefore = primary.received.length;
    await run.graph.invoke({ messages: [ask("b1", "I need something you cannot do yet, please find the right tools for it")] }, routedConfig("bob-1", "bob"));
    expect(primary.received.slice(callsBefore).map((c) => c.tools)).toEqual([[DISCOVER_TOOL_NAME]]);

    // Turn 5: an unauthorized caller asks for an admin tool; the model calls it anyway; it never runs.
    const beforeAdmin = primary.received.length;
    await run.graph.invoke({ messages: [ask("t5", "Please delete my old data")] }, alice);
    const denied = run.modelSelections[run.modelSelections.length - 2];
    expect(denied).toMatchObject({ groups: [], withheld: ["admin"] });
    expect(primary.received[beforeAdmin]?.tools).toEqual([DISCOVER_TOOL_NAME]);
    const afterDenied = (await run.graph.getState(alice)).values.messages as BaseMessage[];
    const deniedResult = afterDenied.find((m) => m.type === "tool" && (m as ToolMessage).name === "delete_user_data") as ToolMessage | undefined;
    expect(deniedResult).toMatchObject({ status: "error" });
    expect(String(deniedResult?.content)).toMatch(/not available to this caller; it was not run/);
    expect(tools.runs["delete_user_data"]).toBeUndefined();

    // The same request from an authorized caller binds and runs the admin tool.
    const beforeAuthorized = primary.received.length;
    await run.graph.invoke({ messages: [ask("t6", "Please delete my old data")] }, routedConfig("alice-1", "alice", "admin"));
    expect(primary.received[beforeAuthorized]?.tools).toEqual([DISCOVER_TOOL_NAME, "delete_user_data"]);
    expect(tools.runs["delete_user_data"]).toBe(1);

    // Every view was charged exactly the selected set, which is the set the model step bound.
    expect(run.charged.length).toBeGreaterThan(8);
    for (const view of run.charged) expect(view.toolTokens).toBe(view.expectedToolTokens);
    const chargedNames = run.charged.map((view) => view.selection.tools.map((t) => t.name));
    expect(run.modelSelections.map((selection) => selection.tools.map((t) => t.name))).toEqual(chargedNames);

    await run.drain();
    store.close();
  });
});

function runChild(args: string[]): Promise<{ modelTools: string[][]; reasons: unknown; toolTokens: number; expectedToolTokens: number }> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(join(ROOT, "node_modules/.bin/tsx"), [join(__dirname, "children/routing-resume.ts"), ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("close", (code) => (code === 0 ? resolveRun(JSON.parse(stdout.trim().split("\n").pop() ?? "{}")) : reject(new Error(`child exited ${code}: ${stderr}`))));
  });
}
