import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/** `n` turns, each with two parallel tool calls of `rows` rows and an answer; then a current request. */
export function conversation(n: number, rows = 30, secret = "SECRET-TEXT"): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    out.push(new HumanMessage({ id: `h${i}`, content: `Turn ${i}: we must keep rent under 900. ${secret}` }));
    const calls = [0, 1].map((k) => ({ id: `c${i}-${k}`, name: "search", args: { q: `q${i}` }, type: "tool_call" as const }));
    out.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: calls }));
    for (const call of calls) {
      out.push(new ToolMessage({ id: `t${call.id}`, tool_call_id: call.id, name: "search", content: JSON.stringify({ rows: Array.from({ length: rows }, (_, r) => ({ id: r, memo: `${secret} ${r}` })) }) }));
    }
    out.push(new AIMessage({ id: `f${i}`, content: `Answer ${i}: we decided to move savings. ${secret}` }));
  }
  out.push(new HumanMessage({ id: "current", content: "And now?" }));
  return out;
}
