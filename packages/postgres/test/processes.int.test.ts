import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { InMemoryContextStore } from "@contextview/core";
import { PostgresContextStore } from "@contextview/postgres";
import { cursorOf, storeHistory, workerTurns } from "@contextview/test-support";
import { POSTGRES_URL, describePostgres, useSchema } from "./support/postgres.js";

const ROOT = resolve(__dirname, "../../..");
const WORKER = join(__dirname, "children/store-worker.ts");
const WORKERS = 4;

interface Run {
  child: ChildProcess;
  cursors: number[];
  ready: Promise<void>;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

const started: ChildProcess[] = [];

/**
 * Starts the worker in one node process with tsx's loader (not the tsx CLI, which
 * forks a grandchild a SIGKILL would miss), from the repository root, where the
 * tsconfig paths resolve `@contextview/*`.
 */
function startWorker(args: string[], application: string): Run {
  const url = `${POSTGRES_URL}${POSTGRES_URL.includes("?") ? "&" : "?"}application_name=${application}`;
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, args[0] as string, url, ...args.slice(1)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  const cursors: number[] = [];
  let stdout = "";
  let stderr = "";
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolveReady) => (markReady = resolveReady));
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = stdout.split("\n");
    stdout = lines.pop() ?? "";
    for (const line of lines) {
      const record = JSON.parse(line) as { cursor?: number; ready?: boolean };
      if (record.ready) markReady();
      else cursors.push(record.cursor as number);
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolveDone) =>
    child.on("close", (code, signal) => resolveDone({ code, signal, stderr })),
  );
  return { child, cursors, ready, done };
}

async function expected(turns: number, padBytes = 0) {
  return (await new InMemoryContextStore().update("user", "conv", storeHistory(turns, padBytes))).toJSON();
}

describePostgres("several processes on one PostgreSQL schema", () => {
  const { schema, pool } = useSchema();

  afterEach(() => {
    // A failed assertion must not leave a looping worker behind.
    for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it(`serializes ${WORKERS} processes updating one conversation: the single-process state, nothing duplicated, the cursor only forward`, async () => {
    const setup = PostgresContextStore.fromConnString(POSTGRES_URL, { schema: schema() });
    await setup.setup();
    await setup.end();
    // Any write that moved a cursor backward would fail, and its worker would exit non-zero.
    await pool().query(`CREATE FUNCTION "${schema()}".forward_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.cursor < OLD.cursor OR NEW.revision <> OLD.revision + 1 THEN RAISE EXCEPTION 'cursor moved backward'; END IF; RETURN NEW; END $$`);
    await pool().query(`CREATE TRIGGER forward_only BEFORE UPDATE ON "${schema()}".contextview_evidence FOR EACH ROW EXECUTE FUNCTION "${schema()}".forward_only()`);

    const steps = 30;
    const startAt = String(Date.now() + 4000);
    const workers = Array.from({ length: WORKERS }, (_, worker) => worker);
    const runs = workers.map((worker) => startWorker(["grow", schema(), String(worker), String(steps), startAt], `cv_grow_${worker}`));
    const results = await Promise.all(runs.map((run) => run.done));
    for (const result of results) expect(result).toEqual({ code: 0, signal: null, stderr: "" });
    for (const run of runs) {
      expect(run.cursors).toHaveLength(steps);
      expect(run.cursors).toEqual([...run.cursors].sort((a, b) => a - b));
    }

    const maxTurns = Math.max(...workers.flatMap((worker) => Array.from({ length: steps }, (_, i) => workerTurns(i + 1, worker))));
    const store = PostgresContextStore.fromConnString(POSTGRES_URL, { schema: schema() });
    const state = await store.load("user", "conv");
    await store.end();
    expect(state.cursor).toBe(cursorOf(maxTurns));
    expect(state.toJSON()).toEqual(await expected(maxTurns));
    const rows = await pool().query<{ n: string }>(`SELECT count(*) AS n FROM "${schema()}".contextview_evidence`);
    expect(rows.rows[0]?.n).toBe("1");
  });

  it("keeps the last committed state when a writer is killed with SIGKILL mid-update, with no open transaction or lock left", async () => {
    const application = `cv_kill_${schema()}`;
    const run = startWorker(["loop", schema()], application);
    await run.ready;
    await new Promise<void>((resolveSeen, reject) => {
      const timer = setInterval(() => {
        if (run.cursors.length >= 6) {
          clearInterval(timer);
          resolveSeen();
        }
      }, 5);
      void run.done.then(({ stderr }) => {
        clearInterval(timer);
        reject(new Error(`worker exited early: ${stderr}`));
      });
    });
    run.child.kill("SIGKILL");
    const { signal } = await run.done;
    expect(signal).toBe("SIGKILL");
    const lastReported = run.cursors[run.cursors.length - 1] as number;

    // The server notices the dead client and rolls back whatever it had open.
    const leftovers = async () =>
      (await pool().query("SELECT state FROM pg_stat_activity WHERE application_name = $1", [application])).rows.length +
      (await pool().query("SELECT 1 FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.application_name = $1", [application])).rows.length;
    for (let i = 0; i < 200 && (await leftovers()) > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await leftovers()).toBe(0);

    const store = PostgresContextStore.fromConnString(POSTGRES_URL, { schema: schema(), statementTimeoutMs: 5000 });
    const state = await store.load("user", "conv");
    // A commit may land after the last line was printed, never before it.
    expect(state.cursor).toBeGreaterThanOrEqual(lastReported);
    expect(state.cursor % 4).toBe(0);
    expect(state.toJSON()).toEqual(await expected(state.cursor / 4, 2000));
    // Nothing is left locked: the next writer commits at once (a held row lock would hit the timeout).
    expect((await store.update("user", "conv", storeHistory(state.cursor / 4 + 1, 2000))).cursor).toBe(state.cursor + 4);
    await store.end();
  });
});
