import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";

/**
 * A synthetic agent conversation of about `count` messages (~1 KB each): user turns,
 * parallel tool calls with JSON results, and answers. Deterministic.
 */
export function agentConversation(count: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  let turn = 0;
  while (out.length < count) {
    turn++;
    out.push(new HumanMessage({ id: `h${turn}`, content: `Turn ${turn}: how much did I spend on groceries in week ${turn % 52}? ${"Please include card and cash. ".repeat(8)}` }));
    const calls = [1, 2].map((k) => ({ id: `c${turn}-${k}`, name: k === 1 ? "search_transactions" : "read_note", args: { query: `groceries week ${turn % 52}`, page: k }, type: "tool_call" as const }));
    out.push(new AIMessage({ id: `a${turn}`, content: "Let me look that up.", tool_calls: calls }));
    for (const call of calls) {
      const rows = Array.from({ length: 12 }, (_, r) => ({ id: `tx-${turn}-${r}`, date: `2026-03-${String((r % 28) + 1).padStart(2, "0")}`, payee: "Market", amount: r * 3.25 }));
      out.push(new ToolMessage({ id: `t${call.id}`, tool_call_id: call.id, name: call.name, content: JSON.stringify({ total: 123.5, rows }) }));
    }
    out.push(new AIMessage({ id: `f${turn}`, content: `You spent 123.50 on groceries in week ${turn % 52}. ${"Most of it at the market. ".repeat(10)}` }));
  }
  return out.slice(0, count);
}

/** Median wall time of `fn` in milliseconds over `runs` runs after one warm-up. */
export async function medianMs(fn: () => unknown, runs = 5): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

/** Formats a table of rows (objects with the same keys) for the terminal. */
export function table(rows: Record<string, string | number>[]): string {
  const keys = Object.keys(rows[0] ?? {});
  const cells = [keys, ...rows.map((row) => keys.map((k) => String(row[k])))];
  const widths = keys.map((_, i) => Math.max(...cells.map((r) => (r[i] as string).length)));
  return cells.map((r) => r.map((c, i) => c.padStart(widths[i] as number)).join("  ")).join("\n");
}
