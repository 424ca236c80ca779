import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** Appears only in tool content, artifacts and tool-call prose: it must never reach evidence. */
export const TOOL_ONLY = "TOOL-ONLY-SECRET";

const USER_LINES = [
  "We must never store card numbers in logs.",
  "Let's go with Postgres for the ledger.",
  "Next step: migrate the invoices table.",
  "Thanks, that looks right.",
  "Budget is at most 200 euros per month.",
  "Can you summarise the report?",
];

const ANSWERS = ["Done, I decided to use UTC everywhere.", "The follow-up is pending review.", "Here is the summary you asked for.", "Okay."];

/**
 * A deterministic conversation of `turns` turns: a user message, an assistant
 * tool call (with prose), its tool result (with an artifact), and an answer.
 * The ids depend on `prefix` and the turn only, so two calls agree.
 */
export function conversation(turns: number, prefix = "m"): BaseMessage[] {
  const out: BaseMessage[] = [new SystemMessage({ id: `${prefix}-sys`, content: "You are helpful." })];
  for (let t = 0; t < turns; t++) {
    out.push(new HumanMessage({ id: `${prefix}-h${t}`, content: `${USER_LINES[t % USER_LINES.length]} (turn ${t})` }));
    out.push(
      new AIMessage({
        id: `${prefix}-c${t}`,
        content: `I must call the tool now ${TOOL_ONLY}`,
        tool_calls: [{ id: `${prefix}-call${t}`, name: "lookup", args: { turn: t } }],
      }),
    );
    out.push(new ToolMessage({ id: `${prefix}-t${t}`, tool_call_id: `${prefix}-call${t}`, content: `${TOOL_ONLY} result ${t}`, artifact: { raw: TOOL_ONLY } }));
    out.push(new AIMessage({ id: `${prefix}-a${t}`, content: `${ANSWERS[t % ANSWERS.length]} (turn ${t})` }));
  }
  return out;
}

/** A conversation followed by the next request, the shape `update` expects. */
export function withRequest(turns: number, prefix = "m"): BaseMessage[] {
  return [...conversation(turns, prefix), new HumanMessage({ id: `${prefix}-h${turns}`, content: `${USER_LINES[turns % USER_LINES.length]} (turn ${turns})` })];
}

/** Index of the newest HumanMessage of {@link withRequest}(turns). */
export function requestIndex(turns: number): number {
  return 1 + 4 * turns;
}
