// What a replica answers for each turn it serves.
export interface TurnResult {
  replica: string;
  turn: number;
  /** Messages in the thread's checkpoint after the turn (both replicas write the same thread). */
  checkpointMessages: number;
  /** Messages the model saw. */
  viewMessages: number;
  /** Markers of the first two turns found in the evidence message of the view. */
  evidenceMarkers: string[];
  /** Markers of the first two turns found anywhere in the view (the evidence, or a message it shows). */
  viewMarkers: string[];
  /** Whether the first turn was in the view (it opens the conversation: pinned, so always). */
  firstTurnInView: boolean;
  /** Whether the second turn itself was still in the view (a small budget drops it early). */
  secondTurnInView: boolean;
  /** Saved memories in the system message (from the LangGraph PostgresStore). */
  memoryLines: number;
}

/**
 * A rule and a decision stated in the first two turns. The first turn stays pinned in
 * every view, so its rule is shown there (evidence never repeats what the view shows);
 * once the second turn has left the view, only the evidence carries its decision.
 */
export const EVIDENCE_MARKERS = ["C-17", "D-4"];

/** The second turn's marker: in the evidence once that turn has left the view. */
export const SECOND_TURN_MARKER = "D-4";

/** The user's turns: two that matter, then padding that pushes them out of a small view. */
export function turnText(turn: number): string {
  if (turn === 1) return "We must never store card numbers in the ledger (rule C-17).";
  if (turn === 2) return "We decided to reconcile the accounts monthly (decision D-4).";
  return `Turn ${turn}: please review the monthly reports for batch ${turn}. ${"Here are the details of the batch. ".repeat(130)}`;
}
