// Two graph replicas (two processes, each with its own PostgresSaver, PostgresContextStore and
// PostgresStore) serve alternate turns of one thread: the evidence of early turns reaches later calls on either.
import { PostgresContextStore } from "@contextview/postgres";
import { runReplicas } from "../examples/replicas/replicas.js";
import { EVIDENCE_MARKERS, SECOND_TURN_MARKER } from "../examples/replicas/protocol.js";
import { POSTGRES_URL, describePostgres, dropSchema, freshSchemaName } from "../packages/postgres/test/support/postgres.js";

describePostgres("two replicas on PostgreSQL", () => {
  let schema = "";
  beforeEach(() => {
    schema = freshSchemaName();
  });
  afterEach(async () => {
    await dropSchema(schema);
  });

  it("carries the evidence of early turns to later calls on either replica", async () => {
    const turns = 9;
    const results = await runReplicas({ url: POSTGRES_URL, schema, turns });
    expect(results.map((r) => r.replica)).toEqual(Array.from({ length: turns }, (_, i) => (i % 2 === 0 ? "A" : "B")));
    // One thread: each replica continues the checkpoint the other wrote.
    expect(results.map((r) => r.checkpointMessages)).toEqual(Array.from({ length: turns }, (_, i) => 2 * (i + 1)));
    // The first turn opens the conversation: it stays pinned in every view.
    expect(results.every((r) => r.firstTurnInView)).toBe(true);
    // The second turn leaves the view: then only the shared evidence brings it back, on both replicas;
    // the first turn's rule is shown pinned, so the evidence does not repeat it.
    // (While it is still in view, a replica may show again the evidence it showed before: prompt caches.)
    const late = results.filter((r) => !r.secondTurnInView && r.turn >= 3);
    for (const result of late) {
      expect(result.viewMarkers).toEqual(EVIDENCE_MARKERS);
      expect(result.evidenceMarkers).toEqual([SECOND_TURN_MARKER]);
    }
    expect(new Set(late.map((r) => r.replica))).toEqual(new Set(["A", "B"]));
    expect(results.every((r) => r.memoryLines === 1)).toBe(true);

    const store = PostgresContextStore.fromConnString(POSTGRES_URL, { schema });
    try {
      // Evidence covers everything before the last request, written by whichever replica came last.
      expect((await store.load("user-1", "thread-1")).cursor).toBe(2 * (turns - 1));
    } finally {
      await store.end();
    }
  });
});
