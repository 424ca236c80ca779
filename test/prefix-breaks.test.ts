// Where a prompt's prefix moved and why (eval/prefix-breaks.ts): the breaks of a
// conversation add up to the re-sent tokens of `pnpm eval`, each with its cause.
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { createEstimator } from "@contextview/core";
import { newTokens, openAiCache, promptBlocks, type PromptBlock } from "../eval/cache.js";
import { prefixBreaks, resentByCause } from "../eval/prefix-breaks.js";

const estimator = createEstimator();
const text = (tokens: number, mark: string) => mark + "0".repeat(3 * tokens - 1);
const request = (n: number) => new HumanMessage(`request ${n}: ${text(300, "r")}`);
const call = (id: string) => new AIMessage({ content: "", tool_calls: [{ id, name: "search", args: { id } }] });
const result = (id: string, tokens: number) => new ToolMessage({ tool_call_id: id, name: "search", content: `${id}: ${text(tokens, "x")}` });
const answer = (n: number) => new AIMessage(`answer ${n}`);
/** The breaks where a block changed (not the cache's 128-token steps cutting a whole prefix). */
const moved = (prompts: PromptBlock[][]) => prefixBreaks(prompts, estimator).filter((b) => b.cause !== "cache minimum and steps");

/** What the eval's "re-sent" column counts: prompt − cached − new over the conversation. */
function resentOf(prompts: PromptBlock[][]): number {
  const fresh = newTokens(prompts, estimator);
  return prompts.reduce((sum, next, i) => {
    const cache = openAiCache(prompts[i - 1], next, estimator);
    return sum + cache.prompt - cache.cached - fresh[i]!;
  }, 0);
}

describe("prefix breaks", () => {
  const turn1 = [request(1), call("c1"), result("c1", 1500), answer(1)];
  const compacted = [request(1), call("c1"), result("c1", 200), answer(1)];

  it("names a result that changed form, and re-sends what followed it", () => {
    const prompts = [promptBlocks(turn1, 100), promptBlocks([...turn1, request(2)], 100), promptBlocks([...compacted, request(2), call("c2")], 100)];
    const breaks = moved(prompts);
    expect(breaks.map((b) => [b.call, b.cause])).toEqual([[2, "tool result changed form"]]);
    expect(breaks[0]!.same).toBe(3);
    // The compacted result, the answer and the second request were shown before: re-sent.
    const cache = openAiCache(prompts[1], prompts[2]!, estimator);
    expect(breaks[0]!.resent).toBe(cache.prompt - cache.cached - estimator.estimateMessage(call("c2")));
    expect(breaks[0]!.resent).toBeGreaterThan(estimator.estimateMessages([answer(1), request(2)]));
  });

  it("tells a relabelled message, summarized turns and a summary update apart", () => {
    const summary = (n: number) => new AIMessage(`Summary of the earlier part of this conversation (${n}). ${text(400, "s")}`);
    const label = (t: string) => new HumanMessage(`${t} ${text(10, "l")}`);
    const rest = [request(2), call("c2"), result("c2", 900), answer(2), request(3)];
    const prompts = [
      promptBlocks([label("[Earlier in this conversation"), ...turn1, ...rest], 100),
      promptBlocks([label("[Pinned: the request"), ...turn1, ...rest], 100),
      promptBlocks([label("[Pinned: the request"), summary(1), ...rest], 100),
      promptBlocks([label("[Pinned: the request"), summary(2), ...rest, answer(3)], 100),
    ];
    expect(moved(prompts).map((b) => b.cause)).toEqual(["label of a kept message changed", "summary or evidence updated", "summary or evidence updated"]);
  });

  it("calls turns dropped without a summary turns that left the view, even when a label or a later request takes their place", () => {
    const turn2 = [request(2), call("c2"), result("c2", 900), answer(2)];
    const turn3 = [request(3), call("c3"), result("c3", 900), answer(3)];
    const pinned = new HumanMessage(`[Pinned: the request that started this conversation] ${text(10, "p")}`);
    // A later request in the place of a dropped one (trimMessages), a pinned label before the kept request.
    const trimmed = [promptBlocks([...turn1, ...turn2, ...turn3, request(4)], 100), promptBlocks([...turn2, ...turn3, request(4), answer(4)], 100)];
    const pinnedDrop = [promptBlocks([request(1), ...turn2, ...turn3, request(4)], 100), promptBlocks([pinned, request(1), ...turn3, request(4), answer(4)], 100)];
    expect(moved(trimmed).map((b) => b.cause)).toEqual(["older messages left the view"]);
    expect(moved(pinnedDrop).map((b) => b.cause)).toEqual(["older messages left the view"]);
  });

  it("calls the result of the turn that just ended, compacted, a result that changed form", () => {
    const prompts = [promptBlocks([...turn1.slice(0, 3)], 100), promptBlocks([...compacted, request(2)], 100)];
    expect(moved(prompts).map((b) => b.cause)).toEqual(["tool result changed form"]);
  });

  it("adds up, cause by cause, to the re-sent tokens of the eval", () => {
    const prompts = [
      promptBlocks(turn1, 100),
      promptBlocks([...turn1, request(2)], 100),
      promptBlocks([...compacted, request(2), call("c2"), result("c2", 2000)], 100),
      promptBlocks([...compacted, request(2), call("c2"), result("c2", 2000), answer(2)], 100),
      promptBlocks([request(2), call("c2"), result("c2", 300), answer(2), request(3)], 100),
    ];
    const byCause = resentByCause(prefixBreaks(prompts, estimator));
    const total = [...byCause.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(resentOf(prompts));
    expect(byCause.get("tool result changed form")).toBeGreaterThan(0);
    expect(byCause.get("older messages left the view")).toBeGreaterThan(0);
  });

  it("blames the cache's minimum and steps when every earlier block was repeated", () => {
    // 600 tokens, then 1,300: the first prefix is under the 1,024-token minimum.
    const prompts = [promptBlocks([request(1), call("c1")], 300), promptBlocks([request(1), call("c1"), result("c1", 700)], 300)];
    const breaks = prefixBreaks(prompts, estimator);
    expect(breaks).toHaveLength(1);
    expect(breaks[0]).toMatchObject({ call: 1, cause: "cache minimum and steps" });
    expect(breaks[0]!.before).toBeUndefined();
    expect(breaks[0]!.resent).toBe(openAiCache(prompts[0], prompts[1]!, estimator).prompt - estimator.estimateMessage(result("c1", 700)));
  });
});
