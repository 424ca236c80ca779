// Two replicas of one LangGraph graph, each in its own process with its own PostgresSaver,
// PostgresContextStore and PostgresStore, serve alternate turns of one thread. The evidence
// of the first turns, written by one replica, reaches the later calls of both.
// Run: pnpm example:replicas   (needs PostgreSQL: POSTGRES_URL, default postgresql://postgres@127.0.0.1:5432/test)
import pg from "pg";
import { runReplicas } from "./replicas";
import { EVIDENCE_MARKERS, SECOND_TURN_MARKER } from "./protocol";

const url = process.env.POSTGRES_URL || "postgresql://postgres@127.0.0.1:5432/test";
const schema = `contextview_replicas_${process.pid}`;
const turns = Number(process.env.CONTEXTVIEW_EXAMPLE_TURNS ?? 10);

async function main(): Promise<void> {
  console.log(`PostgreSQL ${url.replace(/\/\/[^@]*@/, "//…@")}, schema ${schema}; ${turns} turns, replicas A and B in turn\n`);
  console.log("turn  replica  checkpoint  view  turn-2 in view  evidence markers  memories");
  let ok = true;
  try {
    await runReplicas({
      url,
      schema,
      turns,
      onTurn: (r) => {
        console.log(
          `${String(r.turn).padStart(4)}  ${r.replica.padEnd(7)}  ${String(r.checkpointMessages).padStart(10)}  ${String(r.viewMessages).padStart(4)}  ${String(r.secondTurnInView).padEnd(14)}  ${(r.evidenceMarkers.join(", ") || "-").padEnd(16)}  ${r.memoryLines}`,
        );
        // Once the second turn has left the view, whichever replica serves the call must show both
        // early turns' markers: the first turn's pinned, the second's in the evidence (while it is in
        // view, a replica may show the evidence it showed before).
        if (r.turn >= 3 && !r.secondTurnInView && (r.viewMarkers.length !== EVIDENCE_MARKERS.length || !r.evidenceMarkers.includes(SECOND_TURN_MARKER))) ok = false;
      },
    });
  } finally {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
  console.log(ok ? "\nEvery call from turn 3 on showed turns 1 and 2: turn 1 pinned, turn 2 in the shared evidence, on either replica." : "\nSome call missed what the first turns said.");
  if (!ok) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
