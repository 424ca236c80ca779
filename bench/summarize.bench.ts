// contextview's summarizing compaction against langchain v1 summarizationMiddleware,
// over the same 200-turn scripted agent conversation, same trigger, keep and summarizer.
// Run: pnpm bench summarize
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, summarizationMiddleware } from "langchain";
import { chatModelSummarizer, createContextManager, createEstimator, InMemoryContextStore } from "@contextview/core";
import { ScriptedChatModel } from "../examples/finance-agent/scripted-model";
import { userRequest } from "../examples/finance-agent/script";
import { TOOLS } from "../examples/finance-agent/tools";
import { cacheSeries, promptBlocks, type CacheModel, type PromptBlock } from "../eval/cache";
import { BREAK_CAUSES, prefixBreaks, resentByCause, type BreakCause } from "../eval/prefix-breaks";
import { table } from "./fixtures";

const TURNS = 200;
const TRIGGER = 16000;
const KEEP = 3000;
const estimator = createEstimator();

/** The same fake summarizer for both: records what it is sent, answers with a fixed-size summary. */
class RecordingSummarizerModel extends BaseChatModel {
  inputs: string[] = [];
  _llmType(): string {
    return "recording-summarizer";
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const text = messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
    this.inputs.push(text);
    const reply = new AIMessage(`Summary ${this.inputs.length}: the user tracks spending by category and month, reads budget notes, prefers EUR.`);
    return { generations: [{ message: reply, text: String(reply.content) }] };
  }
}

/**
 * Share of the prompt tokens (tool schemas and view) a provider's prefix cache would
 * serve over the run, with the cache models of `pnpm eval` (eval/cache.ts).
 */
function prefixReuse(prompts: PromptBlock[][], model: CacheModel): number {
  const series = cacheSeries(prompts, model, estimator);
  const prompt = series.reduce((a, c) => a + c.prompt, 0);
  return prompt === 0 ? 0 : series.reduce((a, c) => a + c.cached, 0) / prompt;
}

interface Outcome {
  name: string;
  calls: number;
  summarizerTokens: number;
  prefixSeen: number;
  reuse: number;
  anthropicReuse: number;
  maxView: number;
  overBudget: number;
  /** Share of the prompt tokens re-sent after the prefix moved, by what moved it (eval/prefix-breaks.ts). */
  resent: Map<BreakCause, number>;
}

/** Share of the user requests that left the model's view and that some summarizer input contained. */
function seenShare(inputs: string[], summarized: number[]): number {
  if (summarized.length === 0) return 1;
  const all = inputs.join("\n");
  return summarized.filter((i) => all.includes(`[r${i}]`)).length / summarized.length;
}

function measure(name: string, views: BaseMessage[][], summarizer: RecordingSummarizerModel, summarizedRequests: number[]): Outcome {
  const sizes = views.map((v) => estimator.estimateMessages(v));
  const toolTokens = estimator.estimateTools(TOOLS);
  const prompts = views.map((v) => promptBlocks(v, toolTokens, estimator));
  const promptTokens = prompts.flat().reduce((sum, b) => sum + b.tokens, 0);
  const resent = new Map([...resentByCause(prefixBreaks(prompts, estimator))].map(([cause, tokens]) => [cause, tokens / promptTokens]));
  return {
    name,
    calls: summarizer.inputs.length,
    summarizerTokens: summarizer.inputs.reduce((sum, text) => sum + estimator.estimateText(text), 0),
    prefixSeen: seenShare(summarizer.inputs, summarizedRequests),
    reuse: prefixReuse(prompts, "openai"),
    anthropicReuse: prefixReuse(prompts, "anthropic"),
    maxView: Math.max(...sizes),
    overBudget: sizes.filter((s) => s > TRIGGER).length,
    resent,
  };
}

/** Requests whose marker is missing from every view after a given one: they were summarized away. */
function summarizedAway(views: BaseMessage[][]): number[] {
  const last = views.at(-1) ?? [];
  const visible = JSON.stringify(last.map((m) => m.content));
  const out: number[] = [];
  for (let i = 0; i < TURNS; i++) if (!visible.includes(`[r${i}]`)) out.push(i);
  return out;
}

async function runLangChain(): Promise<Outcome> {
  const model = new ScriptedChatModel();
  const summarizer = new RecordingSummarizerModel({});
  // langchain's middleware types do not compile under exactOptionalPropertyTypes; the values are right.
  const summarization = summarizationMiddleware({
    model: summarizer,
    trigger: { tokens: TRIGGER },
    keep: { tokens: KEEP },
    tokenCounter: (messages: BaseMessage[]) => estimator.estimateMessages(messages),
  } as never);
  const agent = createAgent({ model, tools: TOOLS, checkpointer: new MemorySaver(), middleware: [summarization] as never });
  const config = { configurable: { thread_id: "bench" }, recursionLimit: 50 };
  for (let i = 0; i < TURNS; i++) await agent.invoke({ messages: [new HumanMessage(userRequest(i))] } as never, config as never);
  const views = model.calls.map((c) => c.messages);
  return measure("langchain summarizationMiddleware", views, summarizer, summarizedAway(views));
}

async function runContextview(): Promise<Outcome> {
  const model = new ScriptedChatModel();
  const summarizer = new RecordingSummarizerModel({});
  const manager = createContextManager({
    budget: { contextWindow: 32768, promptBudget: TRIGGER, responseReserve: 4096, safetyReserve: 2048 },
    summarizer: chatModelSummarizer(summarizer),
    keepMinTokens: KEEP,
    keepMaxTokens: KEEP * 2,
    store: new InMemoryContextStore(),
    estimator,
    // As docs/configuration.md sets it up for Anthropic; the marks change no text, so the OpenAI figures are the same.
    cacheBreakpoints: true,
  });
  const tools = new Map<string, StructuredToolInterface>(TOOLS.map((t) => [t.name, t as StructuredToolInterface]));
  const messages: BaseMessage[] = [];
  const key = { userId: "bench", conversationId: "bench" };
  for (let i = 0; i < TURNS; i++) {
    messages.push(new HumanMessage({ id: `h${i}`, content: userRequest(i) }));
    for (let step = 0; step < 5; step++) {
      const view = await manager.build({ messages, key });
      const reply = (await model.invoke(view.messages)) as AIMessage;
      messages.push(new AIMessage({ id: `a${i}-${step}`, content: reply.content, tool_calls: reply.tool_calls ?? [] }));
      if (!reply.tool_calls?.length) break;
      for (const call of reply.tool_calls) {
        const result = (await (tools.get(call.name) as StructuredToolInterface).invoke({ ...call, type: "tool_call" })) as ToolMessage;
        messages.push(result);
      }
    }
  }
  const views = model.calls.map((c) => c.messages);
  return measure("contextview", views, summarizer, summarizedAway(views));
}

async function main(): Promise<void> {
  const ours = await runContextview();
  const theirs = await runLangChain();
  console.log(`${TURNS} turns, trigger ${TRIGGER} tokens, keep ${KEEP} tokens, the same fake summarizer and scripted model`);
  console.log("targets: no more summarizer calls than the middleware; 100% of the summarized prefix seen; ≥ 90% prefix reuse (OpenAI-style cache model of pnpm eval)");
  console.log(
    table(
      [ours, theirs].map((o) => ({
        system: o.name,
        "summarizer calls": o.calls,
        "tokens to summarizer": o.summarizerTokens,
        "summarized requests seen": `${(o.prefixSeen * 100).toFixed(1)}%`,
        "prefix reuse (OpenAI cache)": `${(o.reuse * 100).toFixed(1)}%`,
        "prefix reuse (Anthropic cache)": `${(o.anthropicReuse * 100).toFixed(1)}%`,
        "largest view": o.maxView,
        "views over trigger": o.overBudget,
      })),
    ),
  );
  console.log("re-sent after the prefix moved, share of the prompt tokens by cause (OpenAI cache; eval/prefix-breaks.ts):");
  const causes = BREAK_CAUSES.filter((cause) => [ours, theirs].some((o) => (o.resent.get(cause) ?? 0) !== 0));
  console.log(table([ours, theirs].map((o) => ({ system: o.name, ...Object.fromEntries(causes.map((cause) => [cause, `${((o.resent.get(cause) ?? 0) * 100).toFixed(1)}%`])) }))));
}

void main();
