// The recall stage (issue 26): `pnpm bench recall`
//
// A multi-session chat (user and assistant text on rotating topics, a search call with
// its result every fifth turn, one fact planted every 1,000 messages) at 1,000, 10,000
// and 50,000 messages; the view keeps the newest 40 and the question is the last one.
// Measured in one run, medians of 21 calls after warm-up:
//   - recallBlock on a warm conversation: the same message objects as the last call
//     (an in-process graph run), and the same messages read anew (a checkpoint
//     deserialized per request: new objects, same ids, each recognised by its id and a
//     fingerprint read in constant time). Targets: ≤ 2 ms at 10,000; growth ≤ 2× from
//     1,000 to 50,000. Read anew, every message is recognised again, so that column
//     grows with the number of messages by design.
//   - a cold rebuild of the index at 10,000 messages (a new process) against
//     SqliteSaver.getTuple of that thread (what LangGraph spends deserializing it).
//     Target: < 0.5×.
//   - a cold call (issue 48): `buildContext` at 10,000 messages on the thread read anew
//     (new objects with the same ids, deserialized from the stored form, as each request
//     of a server gets them) after a call on the previous copy, against that deserialization
//     (`mapStoredMessagesToChatMessages` of the parsed JSON), medians of 41. Target: ≤ 1×.
//   - long results: a block of lookups whose results are 400-row JSON texts (about
//     21,000 characters), the question naming one row — what showing each long line
//     where the request's terms are (`clipAround`) costs against cutting it from its
//     beginning (`clip`), and against the whole block.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage, type StoredMessage } from "@langchain/core/messages";
import { mapChatMessagesToStoredMessages, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { buildContext, createEstimator } from "@contextview/core";
import { ConversationIndex } from "../packages/core/src/lexical/conversation-index.js";
import { recallBlock } from "../packages/core/src/view/recall.js";
import { clip, clipAround } from "../packages/core/src/view/recall-excerpt.js";
import { searchTerms } from "../packages/core/src/lexical/search-terms.js";
import { rng as random } from "../eval/recall/generator.js";
import { table } from "./fixtures";

const SIZES = [1000, 10_000, 50_000];
const KEPT = 40;
const RUNS = 21;
/** Rounds of the cold calls: each allocates a copy of the thread, so their times are noisier. */
const COLD_RUNS = 41;

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options?: { type: "minor" | "major" }) => void;
/**
 * A young-generation collection before each timed step of the cold rounds: neither step pays
 * for the garbage of the one before. (A full one makes every step slower: code is flushed.)
 */
const collectGarbage = () => gc({ type: "minor" });
const QUESTION = "When is my sister Ingrid's birthday, and which orchids does she like?";
const TOPICS = ["garden shed", "sourdough starter", "quarterly budget", "bike repair", "kitchen tiles", "chess opening", "water heater", "podcast episode", "tax return", "hiking trail", "flight to Lisbon", "dentist appointment", "insurance claim", "birthday party", "piano lessons"];
const VERBS = ["check", "plan", "compare", "fix", "book", "review", "measure", "order", "clean", "schedule"];

/** Ids are prefixed by the size: the index of a conversation read anew is found by its first message's id. */
function chat(count: number): BaseMessage[] {
  const next = random(26);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)] as T;
  const out: BaseMessage[] = [];
  for (let t = 0; out.length < count - 1; t++) {
    const topic = pick(TOPICS);
    const fact = out.length % 1000 < 4 ? ` My sister Ingrid's birthday is on the ${(t % 28) + 1}th and she likes ${pick(["white", "pink", "blue"])} orchids.` : "";
    out.push(new HumanMessage({ id: `${count}-h${t}`, content: `Session ${Math.floor(t / 40)}: can you ${pick(VERBS)} the ${topic} for me, item ${t * 7}?${fact}` }));
    if (t % 5 === 4) {
      const id = `${count}-k${t}`;
      out.push(new AIMessage({ id: `${count}-c${t}`, content: "", tool_calls: [{ id, name: "search_notes", args: { query: topic, limit: 5 }, type: "tool_call" }] }));
      const rows = Array.from({ length: 5 }, (_, r) => ({ id: `note-${t}-${r}`, date: `2026-0${(r % 9) + 1}-1${r}`, text: `${pick(VERBS)} ${topic} ${pick(TOPICS)}` }));
      out.push(new ToolMessage({ id: `${count}-t${t}`, tool_call_id: id, name: "search_notes", content: JSON.stringify({ query: topic, rows }) }));
    }
    out.push(new AIMessage({ id: `${count}-a${t}`, content: `For the ${topic} (item ${t * 7}): ${pick(VERBS)} it first, then ${pick(VERBS)} the ${pick(TOPICS)} and write down what changed.` }));
  }
  out.length = Math.min(out.length, count - 1);
  out.push(new HumanMessage({ id: `${count}-question`, content: QUESTION }));
  return out;
}

/** The same messages as new objects, as a checkpoint read anew gives them. */
function readAnew(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map((m) => {
    const fields = { id: m.id as string, content: m.content };
    if (m.type === "human") return new HumanMessage(fields);
    if (m.type === "tool") return new ToolMessage({ ...fields, tool_call_id: (m as ToolMessage).tool_call_id, name: (m as ToolMessage).name as string });
    return new AIMessage({ ...fields, tool_calls: (m as AIMessage).tool_calls ?? [] });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function timed(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

const estimator = createEstimator();
/** The block's room: the default `recallBudget` (a view's history room may cap it lower). */
const BLOCK_TOKENS = 4000;
const recall = (conversation: readonly BaseMessage[]) =>
  recallBlock({ conversation, lead: 0, end: conversation.length - KEPT, request: conversation.length - 1, shownIds: new Set(), budget: BLOCK_TOKENS, queryFromTurn: false, estimator });

async function deserializeMs(messages: BaseMessage[]): Promise<{ getTuple: number; read: BaseMessage[] }> {
  const dir = mkdtempSync(join(tmpdir(), "contextview-bench-recall-"));
  try {
    const saver = SqliteSaver.fromConnString(join(dir, "checkpoints.sqlite"));
    const graph = new StateGraph(MessagesAnnotation).addNode("model", async () => ({})).addEdge(START, "model").addEdge("model", END).compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "bench" } };
    await graph.invoke({ messages }, config);
    const read = async () => ((await saver.getTuple(config))?.checkpoint.channel_values["messages"] ?? []) as BaseMessage[];
    const times: number[] = [];
    let last: BaseMessage[] = [];
    for (let i = 0; i < 7; i++) {
      const start = performance.now();
      last = await read();
      times.push(performance.now() - start);
    }
    return { getTuple: median(times), read: last };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const conversations = new Map(SIZES.map((n) => [n, chat(n)]));
  const anew = new Map(SIZES.map((n) => [n, Array.from({ length: RUNS + 1 }, () => readAnew(conversations.get(n) as BaseMessage[]))]));
  const same = new Map<number, number[]>(SIZES.map((n) => [n, []]));
  const fresh = new Map<number, number[]>(SIZES.map((n) => [n, []]));
  const found = new Map<number, ReturnType<typeof recall>["report"]>();
  // Warm every size first, then measure in rounds so that drift hits all sizes alike; one
  // way of reading at a time (alternating them would make every call re-verify by hash).
  for (const n of SIZES) for (let i = 0; i < 3; i++) found.set(n, recall(conversations.get(n) as BaseMessage[]).report);
  for (let round = 0; round < RUNS; round++) for (const n of SIZES) same.get(n)?.push(timed(() => recall(conversations.get(n) as BaseMessage[])));
  for (let round = 0; round < RUNS; round++) for (const n of SIZES) fresh.get(n)?.push(timed(() => recall(anew.get(n)?.[round] as BaseMessage[])));
  const rows = SIZES.map((n) => {
    const report = found.get(n);
    return {
      messages: n,
      "warm ms (same objects)": median(same.get(n) as number[]).toFixed(3),
      "warm ms (read anew)": median(fresh.get(n) as number[]).toFixed(3),
      "query terms": report?.queryTerms ?? 0,
      candidates: report?.candidates ?? 0,
      recalled: report?.recalled ?? 0,
      tokens: report?.tokens ?? 0,
    };
  });
  console.log(`load average: ${loadavg().map((n) => n.toFixed(2)).join(" ")} on this machine during the run`);
  console.log(`recall stage on a warm conversation, a block of ${BLOCK_TOKENS} tokens (the default recallBudget), newest ${KEPT} messages in the view (median of ${RUNS})`);
  console.log(table(rows));
  const ms = (list: Map<number, number[]>, n: number) => median(list.get(n) as number[]);
  console.log(`target ≤ 2 ms at 10,000: measured ${ms(same, 10_000).toFixed(3)} ms (same objects), ${ms(fresh, 10_000).toFixed(3)} ms (read anew)`);
  const growth = (list: Map<number, number[]>) => (ms(list, 50_000) / ms(list, 1000)).toFixed(2);
  const anewNote = "read anew: every message recognised again, linear by design";
  console.log(`target growth 1,000 → 50,000 ≤ 2×: measured ${growth(same)}× (same objects), ${growth(fresh)}× (${anewNote})`);

  const messages = conversations.get(10_000) as BaseMessage[];
  const { getTuple, read } = await deserializeMs(messages);
  const rebuild: number[] = [];
  for (let i = 0; i < 7; i++) rebuild.push(timed(() => new ConversationIndex().sync(read)));
  const cold = median(rebuild);
  console.log(`\ncold rebuild at ${messages.length} messages (median of 7)`);
  console.log(table([
    { step: "SqliteSaver.getTuple (deserializing the thread)", ms: getTuple.toFixed(1) },
    { step: "ConversationIndex rebuilt from those messages", ms: cold.toFixed(1) },
  ]));
  console.log(`target < 0.5× getTuple: measured ${(cold / getTuple).toFixed(2)}×`);
  coldCalls(messages, getTuple);
  longResults();
}

/**
 * `buildContext` on copies of the thread deserialized from its stored form, in rounds: a new
 * copy read (timed: the deserialization), a call on it (cold: every object new, the ids the
 * same), and a call on it again (warm). One copy at a time, and the young generation collected
 * before each timed step, so all three meet the same heap: without it the collection of one
 * step's garbage lands in the next, and the cold ratio went from 0.27× to 2.07× between runs
 * of one commit (0.48–0.58× with it).
 */
function coldCalls(messages: readonly BaseMessage[], getTuple: number): void {
  const stored = JSON.stringify(mapChatMessagesToStoredMessages([...messages]));
  const read = () => mapStoredMessagesToChatMessages(JSON.parse(stored) as StoredMessage[]);
  const build = (copy: BaseMessage[]) => buildContext({ messages: copy, estimator });
  let copy = read();
  for (let i = 0; i < 3; i++) build(copy);
  const deserialize: number[] = [];
  const cold: number[] = [];
  const warm: number[] = [];
  for (let round = 0; round < COLD_RUNS; round++) {
    collectGarbage();
    deserialize.push(timed(() => (copy = read())));
    collectGarbage();
    cold.push(timed(() => build(copy)));
    collectGarbage();
    warm.push(timed(() => build(copy)));
  }
  const [d, c, w] = [median(deserialize), median(cold), median(warm)];
  const { recall } = build(copy).report;
  const about = `default budget, recall ${recall.outcome}, ${recall.recalled} lines`;
  console.log(`\ncold calls: buildContext at ${messages.length} messages (${about}) on a copy deserialized anew (median of ${COLD_RUNS})`);
  console.log(table([
    { step: "deserializing the thread from its stored form (JSON.parse + mapStoredMessagesToChatMessages)", ms: d.toFixed(1) },
    { step: "buildContext, cold (a new copy: new objects, same ids)", ms: c.toFixed(1) },
    { step: "buildContext, warm (the same copy again)", ms: w.toFixed(1) },
  ]));
  console.log(`target cold ≤ 1× deserialization: measured ${(c / d).toFixed(2)}× (${(c / getTuple).toFixed(3)}× SqliteSaver.getTuple)`);
}

/** 200 turns, each a lookup whose result is 400 rows of JSON, the question naming one row of one of them. */
function lookups(): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let t = 0; t < 200; t++) {
    out.push(new HumanMessage({ id: `lh${t}`, content: `Load the invoices of batch ${t}.` }));
    out.push(new AIMessage({ id: `lc${t}`, content: "", tool_calls: [{ id: `lk${t}`, name: "list_invoices", args: { batch: t }, type: "tool_call" }] }));
    const rows = Array.from({ length: 400 }, (_, r) => ({ id: `INV-${t}-${r}`, amount: r * 3, note: "paid on time" }));
    out.push(new ToolMessage({ id: `lt${t}`, tool_call_id: `lk${t}`, name: "list_invoices", content: JSON.stringify(rows) }));
    out.push(new AIMessage({ id: `la${t}`, content: `Batch ${t}: 400 invoices loaded, the amounts are in the result.` }));
  }
  out.push(new HumanMessage({ id: "lq", content: "What was the amount of invoice INV-120-350 in the invoices list?" }));
  return out;
}

function longResults(): void {
  const conversation = lookups();
  const block = () => recallBlock({ conversation, lead: 0, end: conversation.length - KEPT, request: conversation.length - 1, shownIds: new Set(), budget: BLOCK_TOKENS, queryFromTurn: false, estimator });
  const recalled = block();
  const texts = recalled.indices.map((i) => String((conversation[i] as BaseMessage).content)).filter((text) => text.length > 900);
  const terms = new Set(searchTerms(String((conversation.at(-1) as BaseMessage).content)));
  for (let i = 0; i < 3; i++) block();
  const whole: number[] = [];
  const around: number[] = [];
  const beginning: number[] = [];
  for (let round = 0; round < RUNS; round++) {
    whole.push(timed(block));
    around.push(timed(() => texts.forEach((text) => clipAround(text, 900, terms))));
    beginning.push(timed(() => texts.forEach((text) => clip(text, 900))));
  }
  const [w, a, b] = [median(whole), median(around), median(beginning)];
  const shown = String(recalled.messages[1]?.content ?? "").includes('"id":"INV-120-350"');
  console.log(`\nlong results: ${conversation.length} messages, each lookup's result 400 rows (${texts[0]?.length ?? 0} characters); the block recalls ${recalled.indices.length} messages, ${texts.length} of them long (median of ${RUNS})`);
  console.log(table([
    { step: "recallBlock", ms: w.toFixed(3) },
    { step: `the long lines where the request's terms are (clipAround × ${texts.length})`, ms: a.toFixed(3) },
    { step: `the same from their beginning (clip × ${texts.length})`, ms: b.toFixed(3) },
  ]));
  console.log(`clipAround ÷ clip: ${(a / b).toFixed(1)}×; their difference is ${(((a - b) / w) * 100).toFixed(0)}% of the block; the row asked for is ${shown ? "" : "not "}in the block`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
