// Relevance on a real graph (issue 26): a fact from turn 3 of a 300-turn thread reaches the
// view of a question about it at a 4,000-token budget, with `recallBudget` set — recall is
// off (0) by default. On SqliteSaver, and on PostgresSaver with two replicas: the second, a
// new process whose index starts cold (rebuilt from the checkpoint), gives the same view.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteContextStore } from "@contextview/sqlite";
import { PostgresContextStore } from "@contextview/postgres";
import { callProblems } from "@contextview/test-support";
import { POSTGRES_URL, describePostgres, useSchema } from "../packages/postgres/test/support/postgres.js";
import { BUDGET, NEEDLE, TURNS, recallReplica, recalledText, replayQuestion, viewOf, writeThreadAndAsk } from "./support/recall-thread.js";
import { useTempDir } from "./support/thread.js";

const ROOT = join(__dirname, "..");

type ReplicaView = { view: ReturnType<typeof viewOf>; recall: { queryTerms: number; candidates: number; recalled: number; tokens: number } };

/** Runs the cold replica in its own process and reads its one JSON line. */
function coldReplica(args: string[]): Promise<ReplicaView> {
  return new Promise((resolve, reject) => {
    const child = spawn(join(ROOT, "node_modules/.bin/tsx"), [join(__dirname, "children/recall-replica.ts"), ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out.trim()) as ReplicaView) : reject(new Error(`recall-replica exited ${code}: ${err}`))));
  });
}

/** The question's view on the warm replica: within budget, the fact recalled, its turn not shown whole. */
function checkWarmView(replica: ReturnType<typeof recallReplica>): ReplicaView {
  const messages = replica.model.calls.at(-1) ?? [];
  expect(callProblems({ limit: BUDGET.promptBudget, requireUserMessage: true }, [messages])).toEqual([]);
  const view = viewOf(messages);
  expect(view.at(-1)?.id).toBe("question");
  // Turn 3 is outside the kept turns: only the recalled block brings the fact back.
  expect(view.some((m) => m.id === "u-3")).toBe(false);
  expect(recalledText(view)).toContain(NEEDLE);
  expect(recalledText(view)).toContain("id u-3");
  const recall = replica.reports.at(-1)?.recall;
  expect(recall?.recalled).toBeGreaterThan(0);
  return { view, recall: recall as ReplicaView["recall"] };
}

describe(`a fact from turn 3 of a ${TURNS}-turn thread at a 4,000-token budget`, () => {
  const tempDir = useTempDir();

  it("reaches the view of the question on SqliteSaver, and a cold process gives the same view", async () => {
    const file = join(tempDir(), "checkpoints.sqlite");
    const saver = SqliteSaver.fromConnString(file);
    const store = SqliteContextStore.nextTo(saver);
    try {
      const replica = recallReplica(saver, store);
      const checkpoint = await writeThreadAndAsk(replica);
      const warm = checkWarmView(replica);
      expect(await coldReplica(["sqlite", file, checkpoint])).toEqual(warm);
      // The control: with recall off, the default, the same view has no trace of the fact.
      await replayQuestion(replica, checkpoint, { recallBudget: 0 });
      const off = viewOf(replica.model.calls.at(-1) ?? []);
      expect(off.at(-1)?.id).toBe("question");
      expect(off.some((m) => m.text.includes(NEEDLE))).toBe(false);
      expect(replica.reports.at(-1)?.recall.recalled).toBe(0);
    } finally {
      store.close();
    }
  });
});

describePostgres(`two replicas on PostgresSaver: a fact from turn 3 of a ${TURNS}-turn thread`, () => {
  const { schema } = useSchema();

  it("reaches the view of the question on the first, and the second (cold index) gives the same view", async () => {
    const saver = PostgresSaver.fromConnString(POSTGRES_URL, { schema: schema() });
    try {
      await saver.setup();
      const replica = recallReplica(saver, PostgresContextStore.nextTo(saver));
      const checkpoint = await writeThreadAndAsk(replica);
      const warm = checkWarmView(replica);
      expect(await coldReplica(["postgres", POSTGRES_URL, schema(), checkpoint])).toEqual(warm);
    } finally {
      await saver.end();
    }
  });
});
