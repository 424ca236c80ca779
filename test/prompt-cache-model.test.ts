// The prompt-cache models of `pnpm eval` (eval/cache.ts): what a prefix cache serves
// and what a conversation costs, on hand-made prompts whose answers are worked out here.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { anthropicCache, cacheSeries, commonPrefixTokens, conversationCost, newTokens, openAiCache, PRICE_PRESETS, promptBlocks, type Prices } from "../eval/cache.js";

const estimator = createEstimator();
/**
 * A message of exactly `tokens` estimated tokens (4 of them message overhead, the rest a
 * run of digits: 3 a token under the default estimator); `mark` sets its last digit.
 */
const sized = (tokens: number, mark = "a") => new HumanMessage("0".repeat(3 * (tokens - 4) - 1) + String(mark.charCodeAt(0) % 10));
const marked = (message: BaseMessage) => new HumanMessage({ content: [{ type: "text", text: String(message.content), cache_control: { type: "ephemeral" } }] });

describe("OpenAI-style automatic prefix caching", () => {
  it.each([
    [1023, 0],
    [1024, 1024],
    [1151, 1024],
    [1152, 1152],
    [3000, 2944],
  ])("serves %i common tokens as %i (from 1,024, in 128-token steps)", (common, cached) => {
    const shared = [sized(common - 100), sized(100)];
    const previous = promptBlocks([...shared, sized(500, "p")], 0);
    const next = promptBlocks([...shared, new AIMessage("different")], 0);
    expect(commonPrefixTokens(previous, next)).toBe(common);
    expect(openAiCache(previous, next).cached).toBe(cached);
  });

  it("counts the tool schemas, ignores cache_control markers and ids, and reads into the first differing message", () => {
    const system = new SystemMessage("s".repeat(3000));
    const a = promptBlocks([system, new HumanMessage({ id: "1", content: "hello there, how are you" })], 200);
    const markedSystem = new SystemMessage({ content: [{ type: "text", text: "s".repeat(3000), cache_control: { type: "ephemeral" } }] });
    const b = promptBlocks([markedSystem, new HumanMessage({ id: "2", content: "hello there, what now" })], 200);
    const systemTokens = estimator.estimateMessage(system);
    expect(commonPrefixTokens(a, b)).toBe(200 + systemTokens + estimator.estimateText("hello there, "));
  });

  it("serves nothing on the first call, and never more than the prompt", () => {
    const prompts = [promptBlocks([sized(2000)], 0), promptBlocks([sized(2000)], 0)];
    expect(cacheSeries(prompts, "openai").map((c) => c.cached)).toEqual([0, 1920]);
  });
});

describe("Anthropic-style breakpoints", () => {
  const head = sized(1500, "h");
  const older = sized(800, "o");

  it("with the request-level breakpoint only, a changed prefix serves nothing and the whole prompt is written", () => {
    const previous = promptBlocks([head, older, sized(50, "1")], 0);
    const next = promptBlocks([sized(1500, "H"), older, sized(50, "1"), sized(50, "2")], 0);
    expect(anthropicCache(previous, next)).toEqual({ prompt: 2400, cached: 0, written: 2400 });
  });

  it("serves the previous call's last block when the prompt only grew, and writes the rest", () => {
    const previous = promptBlocks([head, older], 0);
    const next = promptBlocks([head, older, sized(100, "n")], 0);
    expect(anthropicCache(previous, next)).toEqual({ prompt: 2400, cached: 2300, written: 100 });
  });

  it("serves up to a block breakpoint the previous call wrote when later blocks changed", () => {
    const previous = promptBlocks([marked(head), sized(300, "x"), sized(50, "1")], 0);
    const next = promptBlocks([marked(head), sized(300, "y"), sized(50, "2")], 0);
    expect(anthropicCache(previous, next)).toEqual({ prompt: 1850, cached: 1500, written: 350 });
    // Without the marker the head is not an entry: nothing is served.
    expect(anthropicCache(promptBlocks([head, sized(300, "x")], 0), promptBlocks([head, sized(300, "y")], 0)).cached).toBe(0);
  });

  it("looks back at most 20 blocks from a breakpoint", () => {
    const previous = promptBlocks([head], 0);
    const grown = (n: number) => promptBlocks([head, ...Array.from({ length: n }, (_, i) => new ToolMessage({ tool_call_id: `c${i}`, content: "r" }))], 0);
    expect(anthropicCache(previous, grown(19)).cached).toBe(1500);
    expect(anthropicCache(previous, grown(20)).cached).toBe(0);
  });
});

describe("new tokens: what no cache can serve", () => {
  it("counts what no earlier call showed, and a result re-shown in another form as not new", () => {
    const request = sized(200, "r");
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "search", args: {} }] });
    const whole = new ToolMessage({ tool_call_id: "c1", content: "0".repeat(2999) });
    const compacted = new ToolMessage({ tool_call_id: "c1", content: "[compacted: 3 rows]" });
    const summary = new AIMessage(`Summary of the earlier part: ${"the user asked about spending by month. ".repeat(12)}`);
    const prompts = [
      promptBlocks([request], 40),
      promptBlocks([request, call, whole], 40),
      // The prefix moved: a summary first, the result compacted — only the summary is new.
      promptBlocks([summary, request, call, compacted], 40),
    ];
    const fresh = newTokens(prompts);
    expect(fresh[0]).toBe(40 + 200);
    expect(fresh[1]).toBe(estimator.estimateMessage(call) + estimator.estimateMessage(whole));
    expect(fresh[2]).toBe(estimator.estimateMessage(summary));
    // What the OpenAI model did not serve on the third call is the new summary plus what was re-sent.
    const third = openAiCache(prompts[1], prompts[2]!);
    expect(third.prompt - third.cached).toBeGreaterThan(fresh[2]!);
  });

  it("counts a summary that grew by a part as new only past the text it kept", () => {
    const old = `summary: ${"0".repeat(1500)}`;
    const grown = `${old}\n\n${"1".repeat(300)}`;
    const prompts = [promptBlocks([new HumanMessage(old), sized(100, "q")], 0), promptBlocks([new HumanMessage(grown), sized(100, "r")], 0)];
    const fresh = newTokens(prompts);
    const part = estimator.estimateMessage(new HumanMessage(grown)) - estimator.estimateMessage(new HumanMessage(old));
    expect(fresh[1]).toBeGreaterThanOrEqual(100 + part);
    expect(fresh[1]).toBeLessThanOrEqual(100 + part + 4);
    // A different message in the same place shares too little to count as an extension.
    expect(newTokens([prompts[0]!, promptBlocks([sized(600, "x"), sized(100, "r")], 0)])[1]).toBe(700);
  });

  it("never counts as new the text a cache serves inside the first block that differs", () => {
    // A summary and evidence in one message: the summary grew, the evidence after it changed.
    const message = (summary: string, evidence: string) => new AIMessage(`${summary}\n\n{"evidence":"${evidence}"}`);
    const old = `Summary: ${"the user tracks spending by month. ".repeat(120)}`;
    const prompts = [
      promptBlocks([sized(300, "s"), message(old, "a".repeat(900)), sized(50, "q")], 0),
      promptBlocks([sized(300, "s"), message(`${old} Later the user moved to EUR.`, "b".repeat(900)), sized(50, "r")], 0),
    ];
    const fresh = newTokens(prompts);
    const cache = openAiCache(prompts[0], prompts[1]!);
    // The cache reads into the grown message; those tokens are served, so not new.
    expect(cache.cached).toBeGreaterThan(300 + estimator.estimateText(old) - 128 - 4);
    expect(fresh[1]).toBeLessThanOrEqual(cache.prompt - cache.cached);
    expect(fresh[1]).toBeGreaterThanOrEqual(50 + estimator.estimateText("b".repeat(900)));
  });
});

describe("conversation cost", () => {
  const prices: Prices = { name: "t", model: "anthropic", input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15, asOf: "test", source: "test" };

  it("bills fresh, cached and written input and the output at their prices", () => {
    const dollars = conversationCost([{ prompt: 1_000_000, cached: 500_000, written: 250_000 }], 100_000, prices);
    expect(dollars).toBeCloseTo(0.25 * 3 + 0.5 * 0.3 + 0.25 * 3.75 + 0.1 * 15, 10);
  });

  it("has two dated presets with a source, one per cache model", () => {
    expect(PRICE_PRESETS.map((p) => p.model)).toEqual(["openai", "anthropic"]);
    for (const p of PRICE_PRESETS) {
      expect(p.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(p.source).toMatch(/^https:\/\//);
      expect(p.cachedInput).toBeLessThan(p.input);
    }
  });
});
