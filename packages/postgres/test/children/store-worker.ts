// Child process of processes.int.test.ts: updates one conversation in a shared PostgreSQL schema.
//   store-worker.ts grow <url> <schema> <worker> <steps> <startAt>  growing snapshots, stale ones mixed in,
//                                                                  all workers starting at epoch ms <startAt>
//   store-worker.ts loop <url> <schema>                            grows forever, until killed
// Prints one JSON line per committed update: {"cursor": n}.
import { PostgresContextStore } from "@contextview/postgres";
import { storeHistory, workerTurns } from "@contextview/test-support";

async function main(): Promise<void> {
  const [mode, url, schema, workerArg, stepsArg, startAtArg] = process.argv.slice(2);
  if (!url || !schema) throw new Error("usage: store-worker.ts <grow|loop> <url> <schema> [worker] [steps] [startAt]");
  const store = PostgresContextStore.fromConnString(url, { schema });
  await store.setup();
  let last = 0;
  const report = (cursor: number) => {
    if (cursor < last) throw new Error(`cursor moved backward: ${last} -> ${cursor}`);
    last = cursor;
    process.stdout.write(`${JSON.stringify({ cursor })}\n`);
  };
  if (mode === "loop") {
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
    for (let turns = 1; ; turns++) report((await store.update("user", "conv", storeHistory(turns, 2000))).cursor);
  }
  const worker = Number(workerArg);
  const steps = Number(stepsArg);
  // Process start-up times differ by hundreds of milliseconds; a common start makes the updates overlap.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAtArg) - Date.now())));
  for (let step = 1; step <= steps; step++) {
    report((await store.update("user", "conv", storeHistory(workerTurns(step, worker)))).cursor);
  }
  await store.end();
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
