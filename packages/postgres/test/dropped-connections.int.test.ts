import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { PostgresContextStore } from "@contextview/postgres";
import { cursorOf } from "@contextview/test-support";
import { POSTGRES_URL, describePostgres, useSchema } from "./support/postgres.js";
import { reliabilityConversations } from "./support/reliability.js";

// The server ends the store's connections (pg_terminate_backend, as a failover or an idle
// timeout would). node-postgres then emits 'error' on the client, and an 'error' event with
// no listener ends the process; so every scenario runs in a child process and the test
// asserts its exit code. Each child connects with an application_name of its own test, and
// only backends with that name are ever terminated.

const ROOT = resolve(__dirname, "../../..");
const DROPPED = join(__dirname, "children/dropped-connection-worker.ts");
const RELIABILITY = join(__dirname, "children/reliability-worker.ts");

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

const started: ChildProcess[] = [];

/** `script` in one node process with tsx's loader, from the repository root (where the tsconfig paths resolve `@contextview/*`). */
function run(script: string, args: string[]): { child: ChildProcess; done: Promise<Exit & { stdout: string }> } {
  const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<Exit & { stdout: string }>((resolveDone) => child.on("close", (code, signal) => resolveDone({ code, signal, stderr, stdout })));
  return { child, done };
}

const withApplication = (application: string) => `${POSTGRES_URL}${POSTGRES_URL.includes("?") ? "&" : "?"}application_name=${application}`;

/** Runs one scenario of the dropped-connection worker; the process must end by itself, with exit code 0. */
async function scenario(name: string, schema: string): Promise<Record<string, unknown>> {
  const { done } = run(DROPPED, [name, POSTGRES_URL, schema, `cv_drop_${schema}`]);
  const { stdout, ...exit } = await done;
  expect(exit).toEqual({ code: 0, signal: null, stderr: "" });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describePostgres("PostgresContextStore when the server ends its connections", () => {
  const { schema, pool } = useSchema();

  afterEach(() => {
    // A failed assertion must not leave a worker behind.
    for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it("retries a view record whose transaction loses its connection on a new one, without ending the process, and keeps it once", async () => {
    expect(await scenario("record", schema())).toEqual({
      failed: "resolved", // the transaction the server ended (57P01) was rolled back, and tried again
      terminated: 1,
      next: 2,
      views: 2,
    });
  });

  it("fails an update under statementTimeoutMs (each statement a transaction) with STORE_ERROR; the next update commits", async () => {
    expect(await scenario("timeout", schema())).toEqual({
      failed: { code: "STORE_ERROR", operation: "write evidence", pgCode: "57P01" },
      terminated: 1,
      next: cursorOf(3),
    });
  });

  it("fails the first call when its schema set-up loses its connection; the next call sets up again", async () => {
    expect(await scenario("setup", schema())).toEqual({
      failed: { code: "STORE_ERROR", operation: "set up its schema", pgCode: "57P01" },
      terminated: 1,
      next: cursorOf(1),
    });
  });

  it("keeps a createContextNode on fromConnString running: the view record whose connection was ended is retried, not lost", async () => {
    const result = await scenario("node", schema());
    expect(result).toMatchObject({ failed: "resolved", terminated: 1, logged: [], views: 2 });
    expect(result["next"]).toBeGreaterThan(0);
  });

  it("gives a PostgresSaver's pool an 'error' listener in nextTo: idle connections ended by the server are discarded, the next calls reconnect", async () => {
    const result = await scenario("saver-idle", schema());
    expect(result).toEqual({
      before: 0, // PostgresSaver.fromConnString listens to none
      listeners: 1, // two nextTo calls add one
      idle: expect.any(Number),
      terminated: result["idle"], // every connection of the pool, all idle
      discarded: true,
      next: cursorOf(2),
      tuple: null,
    });
    expect(result["idle"]).toBeGreaterThan(0);
  });

  it("leaves the 'error' listener of a pool that has one alone in nextTo", async () => {
    const shared = pool();
    const own = shared.listeners("error");
    expect(own).toHaveLength(1);
    const saver = new PostgresSaver(shared, undefined, { schema: schema() });
    PostgresContextStore.nextTo(saver);
    expect(shared.listeners("error")).toEqual(own);
    const bare = new pg.Pool({ connectionString: POSTGRES_URL });
    PostgresContextStore.nextTo(new PostgresSaver(bare));
    PostgresContextStore.nextTo(new PostgresSaver(bare));
    expect(bare.listenerCount("error")).toBe(1);
    await bare.end();
  });

  it("loses no work of 4 processes × 20 conversations with view records while every connection of theirs is ended every 2 s", async () => {
    const WORKERS = 4;
    const CONVERSATIONS = 20;
    const STEPS = 12;
    const applications = Array.from({ length: WORKERS }, (_, worker) => `cv_rel_${schema()}_${worker}`);
    // Two workers with statementTimeoutMs (every statement a transaction), two without (pool.query).
    const workers = applications.map((application, worker) =>
      run(RELIABILITY, [withApplication(application), schema(), "user", String(worker), String(CONVERSATIONS), String(STEPS), worker < 2 ? "10000" : "0"]),
    );
    // The same work in one process whose connections are never ended, under another user id.
    const single = run(RELIABILITY, [withApplication(`cv_rel_${schema()}_single`), schema(), "single", "0,1,2,3", String(CONVERSATIONS), String(STEPS), "0"]);

    const control = pool();
    let running = true;
    const finished = Promise.all(workers.map((worker) => worker.done)).finally(() => (running = false));
    let terminated = 0;
    // At most 8 rounds (about 16 s), fewer when the workers are done first: on a loaded machine
    // the work takes longer, and more rounds would only make it longer still.
    for (let round = 0; round < 8 && running; round++) {
      await Promise.race([finished, new Promise((r) => setTimeout(r, 2000))]);
      if (!running) break;
      const { rowCount } = await control.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = ANY ($1)`,
        [applications],
      );
      terminated += rowCount ?? 0;
    }
    const results = await finished;
    const baseline = await single.done;
    for (const { stdout: _stdout, ...exit } of [...results, baseline]) expect(exit).toEqual({ code: 0, signal: null, stderr: "" });
    expect(terminated).toBeGreaterThan(0);
    const counts = results.map((result) => JSON.parse(result.stdout) as { updates: number; records: number; lostRecords: number; retries: number });
    // View records are retried by the store itself: none is lost.
    for (const count of counts) expect(count).toMatchObject({ updates: CONVERSATIONS * STEPS, records: CONVERSATIONS * STEPS, lostRecords: 0 });
    // The ended connections did fail calls (retried), not only idle ones.
    expect(counts.reduce((sum, count) => sum + count.retries, 0)).toBeGreaterThan(0);
    expect(JSON.parse(baseline.stdout)).toMatchObject({ updates: WORKERS * CONVERSATIONS * STEPS, retries: 0 });

    const store = PostgresContextStore.fromConnString(POSTGRES_URL, { schema: schema() });
    try {
      for (const { conversationId, turns } of reliabilityConversations([0, 1, 2, 3], CONVERSATIONS, STEPS)) {
        const state = await store.load("user", conversationId);
        expect(state.cursor).toBe(cursorOf(turns[turns.length - 1] as number));
        expect(JSON.stringify(state)).toBe(JSON.stringify(await store.load("single", conversationId)));
        // Every step kept its view record, once (a retried record finds the one it committed).
        expect((await store.listViews({ userId: "user", conversationId })).map((view) => view.record.recordedAt)).toEqual(
          Array.from({ length: STEPS }, (_, step) => 1_700_000_000_000 + step + 1),
        );
      }
    } finally {
      await store.end();
    }
  });
});
