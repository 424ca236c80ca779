import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { utf8Length } from "../../core/src/text.js";
import { SqliteContextStore } from "@contextview/sqlite";
import { cursorOf, nextTurn, storeHistory } from "@contextview/test-support";
import { useTempDir } from "./support/temp.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** The worst event-loop delay (ms) while `work` runs, and how many event-loop turns ran meanwhile. */
async function observe(work: () => Promise<unknown>): Promise<{ worstMs: number; turns: number }> {
  // The fixture was just allocated: promote it now so that copying it is not billed to the update.
  collectGarbage();
  collectGarbage();
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let turns = 0;
  let running = true;
  const tick = () => {
    turns++;
    if (running) setImmediate(tick);
  };
  histogram.enable();
  setImmediate(tick);
  try {
    await work();
  } finally {
    running = false;
    histogram.disable();
  }
  return { worstMs: histogram.max / 1e6, turns };
}

describe("prefix validation on a large history", () => {
  const tempDir = useTempDir();

  it("does not block the event loop while updating a 10 MB history", async () => {
    const turns = 2000;
    const history = storeHistory(turns, 5000);
    const bytes = history.reduce((sum, message) => sum + utf8Length(String(message.content)), 0);
    expect(bytes).toBeGreaterThan(10_000_000);
    const next = [...history, ...nextTurn(turns, 5000)];
    const file = join(tempDir(), "evidence.sqlite");
    const store = SqliteContextStore.fromConnString(file);
    await store.load("user", "warm-up");

    const first = await observe(() => store.update("user", "conv", history));
    const incremental = await observe(() => store.update("user", "conv", next));
    store.close();
    const reopened = SqliteContextStore.fromConnString(file);
    expect((await reopened.load("user", "conv")).cursor).toBe(cursorOf(turns + 1));
    reopened.close();

    process.stdout.write(
      `worst event-loop delay, ${(bytes / 1e6).toFixed(1)} MB history: first update ${first.worstMs.toFixed(1)} ms, ` +
        `incremental ${incremental.worstMs.toFixed(1)} ms (target < 20 ms)\n`,
    );
    // Hashing and extraction yield between slices: the loop keeps turning during an update.
    // The delay itself (target < 20 ms) is a time on a shared machine: `pnpm bench store`
    // measures it; the test asserts only what cannot depend on load.
    expect(first.turns).toBeGreaterThan(10);
    expect(incremental.turns).toBeGreaterThan(5);
  });
});
