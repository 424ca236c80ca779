// Hashing on the first model call of a turn: the evidence update digests the checkpoint
// prefix, and the summary cache checks the summarized prefix. Before, the summary cache
// hashed its prefix again from the first message in its own format; now it resumes the
// evidence digest from the hash states the evidence pass left on the same messages.
// Both paths run in this process over the same turns; bytes are counted as fed to SHA-256.
// Run: pnpm bench digest
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { InMemoryContextStore } from "@contextview/core";
import { sha256BytesHashed } from "../packages/core/src/sha256";
import { legacySummaryPrefixHash, summaryPrefixHash } from "../packages/core/src/summarize/prefix-hash";
import { table } from "./fixtures";

const TURNS = 120;
/** Turns measured, the last ones: the checkpoint is long there. */
const MEASURED = 20;
/** The summary stands for this share of the messages before the current request. */
const SUMMARIZED_SHARE = 0.7;

/** Turn `i`'s messages as fresh objects, as a checkpoint read on a new turn gives them. */
function turn(i: number): BaseMessage[] {
  return [
    new HumanMessage({ id: `h${i}`, content: `How did category ${i % 12} do in month ${i}? ${"context ".repeat(40)}` }),
    new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "search_transactions", args: { category: i % 12, month: i } }] }),
    new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, name: "search_transactions", content: JSON.stringify({ transactions: Array.from({ length: 60 }, (_, r) => ({ id: `tx-${i}-${r}`, amount: r * 3.5, payee: `payee ${r}`, memo: "groceries and more" })) }) }),
    new AIMessage({ id: `r${i}`, content: `Category ${i % 12} is within budget in month ${i}. ${"detail ".repeat(30)}` }),
  ];
}

function checkpointAt(t: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < t; i++) out.push(...turn(i));
  out.push(new HumanMessage({ id: `h${t}`, content: `Now turn ${t}: summarize my spending.` }));
  return out;
}

interface Tally {
  evidenceBytes: number;
  summaryBytes: number;
  evidenceMs: number;
  summaryMs: number;
}

async function run(summaryHash: (messages: readonly BaseMessage[], n: number) => Promise<string>): Promise<Tally> {
  const store = new InMemoryContextStore();
  const key = { userId: "u", conversationId: "digest" };
  const tally: Tally = { evidenceBytes: 0, summaryBytes: 0, evidenceMs: 0, summaryMs: 0 };
  for (let t = 1; t <= TURNS; t++) {
    const messages = checkpointAt(t);
    const prefixN = Math.max(1, Math.floor((messages.length - 1) * SUMMARIZED_SHARE / 4) * 4);
    const measured = t > TURNS - MEASURED;
    let bytes = sha256BytesHashed();
    let start = performance.now();
    await store.update(key.userId, key.conversationId, messages);
    if (measured) {
      tally.evidenceMs += performance.now() - start;
      tally.evidenceBytes += sha256BytesHashed() - bytes;
    }
    bytes = sha256BytesHashed();
    start = performance.now();
    await summaryHash(messages, prefixN);
    if (measured) {
      tally.summaryMs += performance.now() - start;
      tally.summaryBytes += sha256BytesHashed() - bytes;
    }
  }
  return tally;
}

async function main(): Promise<void> {
  // One warm-up of each path, so neither pays the JIT for the other.
  await run(legacySummaryPrefixHash);
  await run(summaryPrefixHash);
  const before = await run(legacySummaryPrefixHash);
  const after = await run(summaryPrefixHash);
  const mb = (bytes: number) => (bytes / MEASURED / 1e6).toFixed(2);
  const ms = (total: number) => (total / MEASURED).toFixed(2);
  const row = (path: string, t: Tally) => ({
    path,
    "evidence MB hashed": mb(t.evidenceBytes),
    "summary check MB hashed": mb(t.summaryBytes),
    "total MB hashed": mb(t.evidenceBytes + t.summaryBytes),
    "evidence update ms": ms(t.evidenceMs),
    "summary check ms": ms(t.summaryMs),
  });
  console.log(`First model call of a turn, mean over the last ${MEASURED} of ${TURNS} turns (${checkpointAt(TURNS).length} messages at the end):`);
  console.log(table([row("before: own summary hash", before), row("after: one prefix digest", after)]));
  const ratio = (after.evidenceBytes + after.summaryBytes) / (before.evidenceBytes + before.summaryBytes);
  console.log(`bytes hashed after / before: ${ratio.toFixed(2)}`);
}

void main();
