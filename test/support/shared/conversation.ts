import { AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";

// One conversation builder for every test: spec-driven turns (parallel calls, orphans,
// cancelled calls, images, large results) for property tests, and the deterministic
// histories the store, graph and middleware tests replay (ids depend only on the turn,
// so every process builds the same history).

/** Freeze a value and everything reachable from it, so any mutation throws in strict mode. */
export function deepFreeze<T>(value: T, seen = new WeakSet<object>()): T {
  if (typeof value !== "object" || value === null || seen.has(value as object)) return value;
  seen.add(value as object);
  for (const key of Reflect.ownKeys(value as object)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  return Object.freeze(value);
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}-${++ids}`;

/** A user turn: a question, tool exchanges, and a final answer. */
export interface TurnSpec {
  text: string;
  image?: boolean;
  /** `raw`: the calls are Anthropic `tool_use` content blocks with empty `tool_calls` (a provider adapter's or a hand-built message). */
  calls?: { parallel: number; resultSize: number; cancelled?: boolean; orphan?: boolean; reverse?: boolean; raw?: boolean }[];
  answer?: string;
  answerFirst?: boolean;
}

/** Messages of one turn built from a spec; ids are unique within a process. */
export function turnMessages(spec: TurnSpec): BaseMessage[] {
  const out: BaseMessage[] = [];
  out.push(
    new HumanMessage({
      id: nextId("h"),
      content: spec.image
        ? [{ type: "text", text: spec.text }, { type: "image_url", image_url: { url: `data:image/png;base64,${"iVBORw0KGgo".repeat(200)}` } }]
        : spec.text,
    }),
  );
  if (spec.answerFirst && spec.answer !== undefined) out.push(new AIMessage({ id: nextId("a"), content: `Let me check. ${spec.answer}` }));
  for (const call of spec.calls ?? []) {
    const callIds = Array.from({ length: call.parallel }, () => nextId("call"));
    const toolCalls = callIds.map((id, k) => ({ id, name: k % 2 ? "read_note" : "search_transactions", args: { query: `${spec.text.slice(0, 20)} ${k}`, limit: 10 + k }, type: "tool_call" as const }));
    out.push(
      call.raw
        ? new AIMessage({
            id: nextId("a"),
            content: [{ type: "text", text: "I will look that up." }, ...toolCalls.map(({ id, name, args }) => ({ type: "tool_use", id, name, input: args }))],
          })
        : new AIMessage({ id: nextId("a"), content: "I will look that up.", tool_calls: toolCalls }),
    );
    const results = callIds.map(
      (id, k) =>
        new ToolMessage({
          id: nextId("t"),
          tool_call_id: id,
          name: k % 2 ? "read_note" : "search_transactions",
          content: JSON.stringify({ rows: Array.from({ length: Math.max(1, Math.floor(call.resultSize / 40)) }, (_, r) => ({ id: `row-${r}`, amount: r * 3.5 })) }),
        }),
    );
    if (call.reverse) results.reverse();
    if (call.cancelled) results.pop();
    out.push(...results);
    if (call.orphan) out.push(new ToolMessage({ id: nextId("t"), tool_call_id: nextId("ghost"), content: "late result" }));
  }
  if (spec.answer !== undefined && !spec.answerFirst) out.push(new AIMessage({ id: nextId("a"), content: spec.answer }));
  return out;
}

/**
 * A whole conversation, with an optional leading system message.
 *
 * @example
 * const messages = conversation([{ text: "Spending in March?", calls: [{ parallel: 2, resultSize: 4000, orphan: true }], answer: "Mostly rent." }], "Be brief.");
 */
export function conversation(turns: TurnSpec[], system?: string): BaseMessage[] {
  const out: BaseMessage[] = system ? [new SystemMessage({ content: system, id: nextId("s") })] : [];
  for (const turn of turns) out.push(...turnMessages(turn));
  return out;
}

const words = ["budget", "rent", "grocery", "naïve café", "日本語のテキスト", "emoji 🎉", "", "invoice #42", "notes/2024.md"];

/** fast-check: text from short to huge, multibyte, sometimes empty. */
export const textArb = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 30 }).map((w) => w.join(" ")) },
  { weight: 1, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.integer({ min: 2000, max: 40000 }).map((n) => "x".repeat(n)) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 200 }) },
);

export const turnArb: fc.Arbitrary<TurnSpec> = fc.record(
  {
    text: textArb,
    image: fc.boolean(),
    calls: fc.array(
      fc.record(
        {
          parallel: fc.integer({ min: 1, max: 4 }),
          resultSize: fc.oneof(fc.integer({ min: 10, max: 2000 }), fc.integer({ min: 5000, max: 60000 })),
          cancelled: fc.boolean(),
          orphan: fc.boolean(),
          reverse: fc.boolean(),
          raw: fc.boolean(),
        },
        { requiredKeys: ["parallel", "resultSize"] },
      ),
      { maxLength: 3 },
    ),
    answer: textArb,
    answerFirst: fc.boolean(),
  },
  { requiredKeys: ["text"] },
);

/** fast-check: conversations of 1–40 turns. */
export const conversationArb = fc
  .tuple(fc.array(turnArb, { minLength: 1, maxLength: 40 }), fc.option(fc.constantFrom("You are a helpful assistant.", "Système : réponds en français."), { nil: undefined }))
  .map(([turns, system]) => ({ turns, system }));

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
 * A deterministic history of `turns` finished turns followed by the next request, as a
 * store receives it turn after turn. `padBytes` adds that much text to each tool result.
 */
export function storeHistory(turns: number, padBytes = 0): BaseMessage[] {
  const out: BaseMessage[] = [new HumanMessage({ id: "h0", content: `${USER_LINES[0]} (turn 0)` })];
  for (let t = 0; t < turns; t++) out.push(...nextTurn(t, padBytes));
  return out;
}

/** Index of the current request in {@link storeHistory}(turns): the cursor after updating it. */
export function cursorOf(turns: number): number {
  return 4 * turns;
}

/**
 * Turns sent by worker `worker` at `step` (from 1) in the concurrency tests:
 * workers grow by their own stride, and every third update re-sends an older,
 * stale history.
 */
export function workerTurns(step: number, worker: number): number {
  return step % 3 === 0 ? Math.max(1, step - 4) : step * 2 + worker;
}

/**
 * `n` turns, each with two parallel `search` calls of `rows` rows and an answer, then a
 * current request; `secret` marks every user, result and answer text.
 *
 * @example
 * await agent.invoke({ messages: searchConversation(12, 20) }, config);
 */
export function searchConversation(n: number, rows = 30, secret = "SECRET-TEXT"): BaseMessage[] {
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
