// Child process of long-running.int.test.ts and bench/memory.bench.ts: serves many
// conversations of ~1 MB through one surface with default options, drops every
// reference to them, collects garbage and prints the heap the surface retained
// as one JSON line. Run with `node --expose-gc --import tsx`.
//   retained-heap.ts <withContext|node|middleware> <conversations> [<kB per conversation>]
import { createContextNode, withContext } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";

const gc = (globalThis as { gc?: () => void }).gc;
/** Conversations served before the baseline. */
const WARM_UP = 10;

function conversation(n: number, kB: number): BaseMessage[] {
  const turns = 50;
  const chars = Math.floor((kB * 1024) / (2 * turns));
  const out: BaseMessage[] = [];
  for (let t = 0; t < turns; t++) {
    // A distinct string per message, so nothing is shared between conversations.
    out.push(new HumanMessage({ id: `h${n}-${t}`, content: `Conversation ${n}, question ${t}: we must keep the ledger in UTC. ${`q${n}.${t} `.repeat(chars / 8)}`.slice(0, chars) }));
    out.push(new AIMessage({ id: `a${n}-${t}`, content: `Answer ${t} of ${n}: decided to reconcile first. ${`a${n}.${t} `.repeat(chars / 8)}`.slice(0, chars) }));
  }
  out.push(new HumanMessage({ id: `h${n}-last`, content: `What did we decide in conversation ${n}?` }));
  return out;
}

const answer = () => new AIMessage({ content: "ok", usage_metadata: { input_tokens: 100, output_tokens: 1, total_tokens: 101 } } as never);

type Serve = (messages: BaseMessage[], config: { configurable: Record<string, string> }) => Promise<unknown>;

function surface(name: string): Serve {
  if (name === "withContext") {
    const model = withContext(RunnableLambda.from(async (_: BaseMessage[]) => answer()));
    return (messages, config) => model.invoke(messages, config);
  }
  if (name === "node") {
    const node = createContextNode();
    return async (messages, config) => {
      await node.invoke({ messages }, config);
      // The next turn, with the model's answer: the node reads its usage for calibration.
      await node.invoke({ messages: [...messages, answer(), new HumanMessage({ id: "next", content: "And then?" })] }, config);
    };
  }
  if (name === "middleware") {
    const middleware = contextMiddleware();
    const wrap = middleware.wrapModelCall as unknown as (request: unknown, handler: (request: unknown) => Promise<unknown>) => Promise<unknown>;
    return (messages, config) =>
      wrap({ messages, systemMessage: new SystemMessage("You are careful."), tools: [], state: { messages }, runtime: { configurable: config.configurable } }, async () => answer());
  }
  throw new Error(`unknown surface ${name}`);
}

async function main(): Promise<void> {
  const [name = "withContext", countArg = "300", kBArg = "1024"] = process.argv.slice(2);
  if (!gc) throw new Error("run with node --expose-gc");
  const count = Number(countArg);
  const kB = Number(kBArg);
  const serve = surface(name);
  // Warm up on conversations like the measured ones, so the code the runs compile (which a loaded
  // machine compiles later) and the caches of the libraries are in the baseline: what is measured
  // is what the surface keeps per conversation, not when the JIT finished.
  for (let w = 1; w <= WARM_UP; w++) await serve(conversation(-w, kB), { configurable: { thread_id: `warm-${w}`, user_id: "u" } });
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const before = process.memoryUsage().heapUsed;
  let served = 0;
  for (let n = 0; n < count; n++) {
    await serve(conversation(n, kB), { configurable: { thread_id: `t-${n}`, user_id: `u-${n % 7}` } });
    served++;
  }
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const after = process.memoryUsage().heapUsed;
  const retained = Math.max(0, after - before);
  process.stdout.write(`${JSON.stringify({ surface: name, conversations: served, kBPerConversation: kB, retainedBytes: retained, bytesPerConversation: Math.round(retained / served) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
