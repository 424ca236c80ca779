// The current turn's room by value (issue 48, a first step of the allocator): the newest
// exchange's results are worth the most — the next call is decided from them — so they never
// get less room than an older result of the turn unless they are whole, and a newest
// assistant message whose prose alone overflows is bounded like older prose (its calls whole)
// rather than failing the call.
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextBudgetError, createEstimator } from "@contextview/core";
import { viewProblems } from "@contextview/test-support";
import { waterFill } from "../../src/view/current-turn-room";

const estimator = createEstimator();
const textOf = (message: BaseMessage): string => (typeof message.content === "string" ? message.content : JSON.stringify(message.content));
const shown = (message: BaseMessage) => estimator.estimateText(textOf(message));

/** A coding agent's turn: one request answered by `outputs.length` shell calls, each output `outputs[i]` lines of a file. */
function codingTurn(outputs: ReadonlyArray<number | number[]>): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are a coding agent."), new HumanMessage({ id: "req", content: "Fix the failing test." })];
  outputs.forEach((spec, i) => {
    const parallel = Array.isArray(spec) ? spec : [spec];
    const calls = parallel.map((_, p) => ({ id: `c${i}-${p}`, name: "bash", args: { command: `sed -n '${i * 10},${i * 10 + 10}p' file${p}.py` }, type: "tool_call" as const }));
    messages.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: calls }));
    parallel.forEach((lines, p) => {
      const content = Array.from({ length: lines }, (_, l) => `${875 + l}: value_${l} = compute(${l}, "x")`).join("\n");
      messages.push(new ToolMessage({ id: `t${i}-${p}`, tool_call_id: `c${i}-${p}`, name: "bash", content }));
    });
  });
  return messages;
}

/** The results of the view's newest exchange, and those of the older exchanges of the current turn. */
function resultsOf(view: readonly BaseMessage[]): { newest: BaseMessage[]; older: BaseMessage[] } {
  const lastAi = view.map((m) => m.type).lastIndexOf("ai");
  const request = view.findIndex((m) => m.id === "req");
  return { newest: view.slice(lastAi + 1).filter((m) => m.type === "tool"), older: view.slice(request, lastAi).filter((m) => m.type === "tool") };
}

describe("the newest exchange's results", () => {
  it.each([
    [[1, 1, 1], 20_000, [2000, 6000, 8000], [2000, 6000, 8000]],
    [[1, 1, 1], 3500, [400, 600, 6000], [400, 600, 2500]],
    [[1, 2], 3000, [6000, 6000], [1000, 2000]],
    [[1, 1], 0, [500, 500], [1, 1]],
  ])("waterFill: weights %j, room %d, sizes %j → %j", (weights, room, sizes, expected) => {
    expect(waterFill(sizes, weights, room)).toEqual(expected);
  });

  it("a small sed output after large ones is shown whole: the line the next call edits stays", () => {
    const messages = codingTurn([200, 250, 180, 220, 240, 200, 11]);
    const view = buildContext({ messages, budget: { promptBudget: 8000 } });
    expect(viewProblems({ conversation: messages }, view)).toEqual([]);
    const { newest, older } = resultsOf(view.messages);
    expect(newest.map(textOf)).toEqual([textOf(messages.at(-1)!)]);
    expect(textOf(newest[0]!)).toContain('881: value_6 = compute(6, "x")');
    expect(older.some((m) => textOf(m) !== textOf(messages.find((o) => o.id === m.id)!))).toBe(true);
  });

  it("over random turns of parallel results, a newest result that is cut keeps at least what any older result of the turn keeps", () => {
    const turnArb = fc.record({
      outputs: fc.array(fc.oneof(fc.integer({ min: 1, max: 300 }), fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 2, maxLength: 3 })), { minLength: 2, maxLength: 40 }),
      promptBudget: fc.integer({ min: 3000, max: 16000 }),
    });
    let cut = 0;
    fc.assert(
      fc.property(turnArb, ({ outputs, promptBudget }) => {
        const messages = codingTurn(outputs);
        let view;
        try {
          view = buildContext({ messages, budget: { promptBudget } });
        } catch (error) {
          if (ContextBudgetError.isInstance(error)) return;
          throw error;
        }
        expect(viewProblems({ conversation: messages }, view)).toEqual([]);
        const { newest, older } = resultsOf(view.messages);
        const original = new Map(messages.map((m) => [m.id, textOf(m)]));
        for (const result of newest) {
          if (textOf(result) === original.get(result.id)) continue;
          cut++;
          for (const other of older) expect(shown(result)).toBeGreaterThanOrEqual(shown(other));
        }
      }),
      { numRuns: 60 },
    );
    // The sample reaches newest results that had to be cut.
    expect(cut).toBeGreaterThan(0);
  });
});

describe("the newest assistant message's prose", () => {
  it("is bounded like older prose when the mandatory part would not fit otherwise; its call's arguments stay whole", () => {
    const args = { path: "src/app.py", patch: "x = 1\n".repeat(40) };
    const messages: BaseMessage[] = [
      new SystemMessage("You are a coding agent."),
      new HumanMessage({ id: "req", content: "Fix the failing test." }),
      new AIMessage({ id: "a0", content: `Reasoning: ${"I considered the stack trace and the fixture again. ".repeat(400)}`, tool_calls: [{ id: "c0", name: "apply_patch", args, type: "tool_call" }] }),
      new ToolMessage({ id: "t0", tool_call_id: "c0", name: "apply_patch", content: "Patch applied." }),
    ];
    const view = buildContext({ messages, budget: { promptBudget: 3000 } });
    expect(viewProblems({ conversation: messages }, view)).toEqual([]);
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    const ai = view.messages.find((m) => m.id === "a0") as AIMessage;
    expect(ai.tool_calls?.[0]?.args).toEqual(args);
    expect(textOf(ai)).toContain("[… excerpt:");
    expect(view.report.excerpted).toBeGreaterThanOrEqual(1);
    expect(view.messages.find((m) => m.id === "t0")?.content).toBe("Patch applied.");
  });

  it("still fails, naming the newest exchange, when even its arguments do not fit", () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ id: "req", content: "Write the file." }),
      new AIMessage({ id: "a0", content: "Writing.", tool_calls: [{ id: "c0", name: "write", args: { text: "y".repeat(40_000) }, type: "tool_call" }] }),
      new ToolMessage({ id: "t0", tool_call_id: "c0", name: "write", content: "ok" }),
    ];
    expect(() => buildContext({ messages, budget: { promptBudget: 3000 } })).toThrow(ContextBudgetError);
  });
});
