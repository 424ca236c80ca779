import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextBudgetError, createEstimator, type ContextView } from "@contextview/core";
import { deepFreeze, itHoldsOver, refusedCase, snapshot, viewProblems, type LawCase } from "@contextview/test-support";

const estimator = createEstimator();

/** One exchange of a random long turn: parallel calls, result sizes from tiny to huge, arguments from small to big. */
const exchangeArb = fc.record({
  parallel: fc.integer({ min: 1, max: 3 }),
  resultBytes: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 400, max: 6000 }), fc.constant(60_000)),
  json: fc.boolean(),
  argBytes: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 200, max: 1200 })),
  prose: fc.boolean(),
  repeat: fc.boolean(),
});
const turnArb = fc.record({
  exchanges: fc.array(exchangeArb, { minLength: 1, maxLength: 300 }),
  promptBudget: fc.integer({ min: 600, max: 12000 }),
  older: fc.integer({ min: 0, max: 3 }),
  // The manager's summary of the first exchanges, of any size, covering any number of them (some past the newest).
  summary: fc.option(fc.record({ steps: fc.integer({ min: 1, max: 300 }), words: fc.integer({ min: 1, max: 600 }) }), { nil: undefined }),
});

type TurnSpec = typeof turnArb extends fc.Arbitrary<infer T> ? T : never;

function build(spec: TurnSpec): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You are an agent that uses tools.")];
  for (let t = 0; t < spec.older; t++) {
    messages.push(new HumanMessage({ id: `old-h${t}`, content: `Earlier request ${t}` }), new AIMessage({ id: `old-a${t}`, content: `Earlier answer ${t}` }));
  }
  messages.push(new HumanMessage({ id: "request", content: "Do the whole task, step by step." }));
  let previousArgs: Record<string, unknown> = {};
  spec.exchanges.forEach((x, i) => {
    const calls = Array.from({ length: x.parallel }, (_, p) => ({
      id: `c${i}-${p}`,
      name: `tool_${(i + p) % 4}`,
      args: x.repeat && i > 0 ? previousArgs : { id: `ID-${i}-${p}`, payload: "a".repeat(x.argBytes) },
    }));
    previousArgs = calls[0]?.args ?? {};
    messages.push(new AIMessage({ id: `ai${i}`, content: x.prose ? `Working on step ${i}. ${"because ".repeat(x.argBytes % 40)}` : "", tool_calls: calls }));
    for (const call of calls) {
      const content = x.json
        ? JSON.stringify({ count: Math.ceil(x.resultBytes / 40), rows: Array.from({ length: Math.ceil(x.resultBytes / 40) }, (_, r) => ({ id: `R${i}-${r}`, v: "z".repeat(20) })) })
        : `plain output ${i}: ${"w".repeat(x.resultBytes)}`;
      messages.push(new ToolMessage({ id: `t${call.id}`, tool_call_id: call.id, name: call.name, content }));
    }
  });
  return messages;
}

/** The mandatory part alone: system prompt, request and the newest exchange with its results narrowed as far as they go. */
function mandatoryFloor(messages: readonly BaseMessage[]): number {
  let newest = messages.length - 1;
  while (newest > 0 && messages[newest]?.type === "tool") newest--;
  const request = messages.findIndex((m) => m.id === "request");
  return estimator.estimateMessages([messages[0] as BaseMessage, messages[request] as BaseMessage, messages[newest] as BaseMessage]);
}

describe("long current turns (property)", () => {
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const cases: LawCase[] = [];
  let summarizedViews = 0;

  beforeAll(() => {
    // One fixed case besides the random ones, so the summary path is reached whatever the seed.
    const reachesSummary: TurnSpec = {
      exchanges: Array.from({ length: 120 }, () => ({ parallel: 1, resultBytes: 600, json: false, argBytes: 20, prose: false, repeat: false })),
      promptBudget: 4000,
      older: 0,
      summary: { steps: 10, words: 5 },
    };
    for (const spec of [...fc.sample(turnArb, { numRuns: 60, seed }), reachesSummary]) {
      const messages = deepFreeze(build(spec));
      const before = snapshot(messages);
      const turnSummary = spec.summary === undefined ? undefined : { steps: spec.summary.steps, text: `- step summary ${"found ID-1-0 ".repeat(spec.summary.words)}` };
      const input = { messages, budget: { contextWindow: 32768, promptBudget: spec.promptBudget, responseReserve: 4096 }, ...(turnSummary === undefined ? {} : { turnSummary }) };
      let view: ContextView;
      try {
        view = buildContext(input);
      } catch (error) {
        // Refused only when the mandatory part cannot fit: its call (with intact arguments) alone is over the limit.
        // (The newest results can shrink to their totals: a few dozen tokens each.)
        const mandatoryOver = ContextBudgetError.isBudgetError(error) && mandatoryFloor(messages) > (error as ContextBudgetError).limit - 200;
        cases.push(mandatoryOver ? refusedCase(error, snapshot(messages) === before) : { problems: [], refusal: `a long turn whose mandatory part fits was refused: ${String(error)}` });
        continue;
      }
      const problems = viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => buildContext(input).messages }, view);
      const t = view.report.currentTurn;
      if (t.kept + t.compacted + t.cleared + t.excerpted + t.summarized !== t.exchanges || t.exchanges !== spec.exchanges.length) {
        problems.push({ law: "omissions counted", detail: `currentTurn ${JSON.stringify(t)} for ${spec.exchanges.length} exchanges` });
      }
      if (t.summarized > 0) summarizedViews++;
      if (t.summarized > 0) {
        // The summarized exchanges are shown only as the summary: none of their calls or results.
        const shown = JSON.stringify(view.messages.map((m) => [m.type === "ai" ? (m as AIMessage).tool_calls?.map((c) => c.id) : undefined, (m as ToolMessage).tool_call_id]));
        const leaked = Array.from({ length: t.summarized }, (_, i) => `"c${i}-0"`).filter((id) => shown.includes(id));
        if (t.summarized !== turnSummary?.steps || leaked.length > 0) problems.push({ law: "omissions counted", detail: `summarized ${t.summarized} of ${turnSummary?.steps}; shown anyway: ${leaked.join(", ")}` });
      }
      const { cleared, compacted, narrowed } = view.report.toolResults;
      if (cleared < 0 || compacted < 0 || narrowed < 0) problems.push({ law: "omissions counted", detail: `toolResults ${JSON.stringify(view.report.toolResults)}` });
      cases.push({ problems });
    }
  });

  itHoldsOver(cases, seed, "over random long current turns");

  it("shows the turn summary in some of them (the cases reach that path)", () => {
    expect(summarizedViews).toBeGreaterThan(0);
  });
});
