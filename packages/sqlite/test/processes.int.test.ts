import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { InMemoryContextStore } from "@contextview/core";
import { SqliteContextStore } from "@contextview/sqlite";
import { cursorOf, storeHistory, workerTurns } from "@contextview/test-support";
import { useTempDir } from "./support/temp.js";

const ROOT = resolve(__dirname, "../../..");
const WORKER = join(__dirname, "children/store-worker.ts");

interface Run {
  child: ChildProcess;
  cursors: number[];
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/**
 * Starts the worker in one node process with tsx's loader (not the tsx CLI, which
 * forks a grandchild a SIGKILL would miss), from the repository root, where the
 * tsconfig paths resolve `@contextview/*`.
 */
const started: ChildProcess[] = [];

function startWorker(args: string[]): Run {
  const child = spawn(process.execPath, ["--import", "tsx", WORKER, ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  started.push(child);
  const cursors: number[] = [];
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = stdout.split("\n");
    stdout = lines.pop() ?? "";
    for (const line of lines) if (line) cursors.push((JSON.parse(line) as { cursor: number }).cursor);
  });
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolveDone) =>
    child.on("close", (code, signal) => resolveDone({ code, signal, stderr })),
  );
  return { child, cursors, done };
}

async function expected(turns: number) {
  return (await new InMemoryContextStore().update("user", "conv", storeHistory(turns))).toJSON();
}

function integrity(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma("integrity_check", { simple: true }) as string;
  } finally {
    db.close();
  }
}

describe("several processes on one file", () => {
  const tempDir = useTempDir();

  afterEach(() => {
    // A failed assertion must not leave a looping worker behind.
    for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });

  it("serializes concurrent updates: no duplicates, the cursor only moves forward, integrity ok", async () => {
    const file = join(tempDir(), "evidence.sqlite");
    const setup = SqliteContextStore.fromConnString(file);
    await setup.load("user", "conv"); // migrate before the trigger is added
    setup.close();
    const db = new Database(file);
    // Any write that moved a cursor backward would abort, and its worker would exit non-zero.
    db.exec(`CREATE TRIGGER forward_only BEFORE UPDATE ON contextview_evidence WHEN NEW.cursor < OLD.cursor
             BEGIN SELECT RAISE(ABORT, 'cursor moved backward'); END`);
    db.close();

    const steps = 30;
    const startAt = String(Date.now() + 3000);
    const runs = [0, 1, 2].map((worker) => startWorker(["grow", file, String(worker), String(steps), startAt]));
    const results = await Promise.all(runs.map((run) => run.done));
    for (const result of results) expect(result).toEqual({ code: 0, signal: null, stderr: "" });
    for (const run of runs) {
      expect(run.cursors).toHaveLength(steps);
      expect(run.cursors).toEqual([...run.cursors].sort((a, b) => a - b));
    }

    const maxTurns = Math.max(...[0, 1, 2].flatMap((worker) => Array.from({ length: steps }, (_, i) => workerTurns(i + 1, worker))));
    const store = SqliteContextStore.fromConnString(file);
    const state = await store.load("user", "conv");
    store.close();
    expect(state.cursor).toBe(cursorOf(maxTurns));
    expect(state.toJSON()).toEqual(await expected(maxTurns));
    expect(integrity(file)).toBe("ok");
  });

  it("keeps the last committed state when a writer is killed with SIGKILL", async () => {
    const file = join(tempDir(), "evidence.sqlite");
    const run = startWorker(["loop", file]);
    await new Promise<void>((resolveSeen, reject) => {
      const timer = setInterval(() => {
        if (run.cursors.length >= 8) {
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

    expect(integrity(file)).toBe("ok");
    const store = SqliteContextStore.fromConnString(file);
    const state = await store.load("user", "conv");
    store.close();
    // A commit may land after the last line was printed, never before it.
    expect(state.cursor).toBeGreaterThanOrEqual(lastReported);
    expect(state.cursor % 4).toBe(0);
    expect(state.toJSON()).toEqual(await expected(state.cursor / 4));
  });
});
