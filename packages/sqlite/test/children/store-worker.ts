// Child process of processes.int.test.ts: updates one conversation in a shared SQLite file.
//   store-worker.ts grow <file> <worker> <steps> <startAt>  growing snapshots, stale ones mixed in,
//                                                          all workers starting at epoch ms <startAt>
//   store-worker.ts loop <file>                   grows forever, until killed
// Prints one JSON line per committed update: {"cursor": n}.
import { SqliteContextStore } from "@contextview/sqlite";
import { storeHistory, workerTurns } from "@contextview/test-support";

async function main(): Promise<void> {
  const [mode, file, workerArg, stepsArg, startAtArg] = process.argv.slice(2);
  if (!file) throw new Error("usage: store-worker.ts <grow|loop> <file> [worker] [steps]");
  const store = SqliteContextStore.fromConnString(file);
  let last = 0;
  const report = (cursor: number) => {
    if (cursor < last) throw new Error(`cursor moved backward: ${last} -> ${cursor}`);
    last = cursor;
    process.stdout.write(`${JSON.stringify({ cursor })}\n`);
  };
  if (mode === "loop") {
    for (let turns = 1; ; turns++) report((await store.update("user", "conv", storeHistory(turns))).cursor);
  }
  const worker = Number(workerArg);
  const steps = Number(stepsArg);
  // Process start-up times differ by hundreds of milliseconds; a common start makes the updates overlap.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAtArg) - Date.now())));
  for (let step = 1; step <= steps; step++) {
    report((await store.update("user", "conv", storeHistory(workerTurns(step, worker)))).cursor);
  }
  store.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
