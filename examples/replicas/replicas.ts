// Two replicas of one graph, in two processes, serving alternate turns of one thread.
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { join, resolve } from "node:path";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { PostgresContextStore } from "@contextview/postgres";
import { turnText, type TurnResult } from "./protocol";

export interface ReplicasOptions {
  url: string;
  schema: string;
  turns: number;
  /** Called with each turn's result as it arrives. */
  onTurn?: (result: TurnResult) => void;
}

const ROOT = resolve(__dirname, "../..");
const WORKER = join(__dirname, "worker.ts");

/** A replica process, answering one line per turn. */
function startReplica(name: string, options: ReplicasOptions): { child: ChildProcess; next: () => Promise<TurnResult>; stderr: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, name, options.url, options.schema, "thread-1", "user-1"], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error(`replica ${name} stopped: ${stderr}`);
    return JSON.parse(value as string) as TurnResult;
  };
  return { child, next, stderr: () => stderr };
}

/**
 * Sets up the schema once (checkpointer, context store, memories store, one saved
 * memory), starts replicas A and B, sends turn 1 to A, turn 2 to B, and so on,
 * and returns what each replica's model saw. The replicas share nothing but the database.
 */
export async function runReplicas(options: ReplicasOptions): Promise<TurnResult[]> {
  const saver = PostgresSaver.fromConnString(options.url, { schema: options.schema });
  const memories = PostgresStore.fromConnString(options.url, { schema: options.schema });
  try {
    await saver.setup();
    await PostgresContextStore.nextTo(saver).setup();
    await memories.setup();
    await memories.put(["memories", "user-1"], "reports", { text: "Monthly reports are due on the 5th" });
  } finally {
    await memories.stop();
    await saver.end();
  }

  const replicas = [startReplica("A", options), startReplica("B", options)];
  const results: TurnResult[] = [];
  try {
    for (let turn = 1; turn <= options.turns; turn++) {
      const replica = replicas[(turn - 1) % 2] as (typeof replicas)[number];
      replica.child.stdin?.write(`${JSON.stringify({ turn, text: turnText(turn) })}\n`);
      const result = await replica.next();
      results.push(result);
      options.onTurn?.(result);
    }
  } finally {
    for (const replica of replicas) replica.child.stdin?.end();
    await Promise.all(replicas.map((replica) => new Promise((done) => (replica.child.exitCode !== null ? done(null) : replica.child.on("close", done)))));
  }
  return results;
}
