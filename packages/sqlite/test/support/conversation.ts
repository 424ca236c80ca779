import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** Appears only in tool content and tool-call prose: it must never reach evidence. */
export const TOOL_ONLY = "TOOL-ONLY-SECRET";

const USER_LINES = ["We must never log card numbers.", "Let's go with Postgres.", "Next step: migrate invoices.", "Thanks!"];

/** The messages that finish turn `t` and open turn `t + 1`: a tool call, its result, the answer, the next request. */
export function nextTurn(t: number, padBytes = 0): BaseMessage[] {
  const pad = padBytes > 0 ? " ".concat("p".repeat(padBytes)) : "";
  return [
    new AIMessage({ id: `c${t}`, content: `Calling ${TOOL_ONLY}`, tool_calls: [{ id: `k${t}`, name: "lookup", args: { t } }] }),
    new ToolMessage({ id: `t${t}`, tool_call_id: `k${t}`, content: `${TOOL_ONLY} ${t}${pad}` }),
    new AIMessage({ id: `a${t}`, content: `Answer ${t}: I decided to use UTC.` }),
    new HumanMessage({ id: `h${t + 1}`, content: `${USER_LINES[(t + 1) % USER_LINES.length]} (turn ${t + 1})` }),
  ];
}

/**
 * A deterministic conversation of `turns` finished turns followed by the next
 * request: ids depend only on the turn, so every process builds the same history.
 * `padBytes` adds that much text to each tool result.
 */
export function snapshot(turns: number, padBytes = 0): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage({ id: "h0", content: `${USER_LINES[0]} (turn 0)` })];
  for (let t = 0; t < turns; t++) out.push(...nextTurn(t, padBytes));
  return out;
}

/** Index of the current request in {@link snapshot}(turns): the cursor after updating it. */
export function cursorOf(turns: number): number {
  return 4 * turns;
}

/**
 * Turns sent by worker `worker` at `step` (from 1) in the concurrency test:
 * workers grow by their own stride, and every third update re-sends an older,
 * stale snapshot.
 */
export function workerTurns(step: number, worker: number): number {
  return step % 3 === 0 ? Math.max(1, step - 4) : step * 2 + worker;
}
