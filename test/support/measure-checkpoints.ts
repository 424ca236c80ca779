// Checkpoint bytes of a 100-turn thread without the context node, with it, and with
// a naive (checkpointed) llmInputMessages channel, under both durabilities.
//   npx tsx test/support/measure-checkpoints.ts            (from the repository root)
//   DURABILITY=exit TURNS=50 npx tsx test/support/measure-checkpoints.ts
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Annotation, MessagesAnnotation } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { BaseMessage } from "@langchain/core/messages";
import { SqliteContextStore } from "@contextview/sqlite";
import { createContextNode } from "@contextview/langgraph";
import { RecordingChatModel } from "@contextview/test-support";
import { customGraph, GraphState } from "./custom-graph.js";
import { checkpointBytes, configFor, userTurn } from "./thread.js";

const PlainState = Annotation.Root({ ...MessagesAnnotation.spec, llmInputMessages: Annotation<BaseMessage[]> });
const TURNS = Number(process.env["TURNS"] ?? 100);
const durabilities = process.env["DURABILITY"] ? [process.env["DURABILITY"] as "async" | "exit"] : (["async", "exit"] as const);

async function measure(variant: "without node" | "with node" | "naive channel", durability: "async" | "exit") {
  const dir = mkdtempSync(join(tmpdir(), "contextview-measure-"));
  try {
    const file = join(dir, "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    const store = SqliteContextStore.nextTo(saver);
    const node = variant === "without node" ? undefined : createContextNode({ store, budget: { contextWindow: 16384, promptBudget: 4000 } });
    const graph = customGraph(new RecordingChatModel(), saver, node, variant === "naive channel" ? (PlainState as unknown as typeof GraphState) : GraphState);
    const started = performance.now();
    for (let i = 0; i < TURNS; i++) await graph.invoke({ messages: [userTurn(i)] }, { ...configFor("thread", "user"), durability });
    const bytes = checkpointBytes(file, "thread");
    store.close();
    return { variant, durability, ...bytes, ms: Math.round(performance.now() - started) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  for (const durability of durabilities) {
    const rows = [];
    for (const variant of ["without node", "with node", "naive channel"] as const) rows.push(await measure(variant, durability));
    const base = rows[0]?.total ?? 1;
    for (const row of rows) {
      const delta = row.total - base;
      console.log(
        `${durability.padEnd(5)} ${row.variant.padEnd(13)} checkpoints ${String(row.checkpoints).padStart(4)}  checkpoint blobs ${String(row.checkpointBytes).padStart(10)}  writes ${String(row.writeBytes).padStart(8)}  total ${String(row.total).padStart(10)}  Δ ${delta >= 0 ? "+" : ""}${delta} (${((delta / base) * 100).toFixed(2)}%)  ${row.ms} ms`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
