import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage, type MessageContent } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, ContextBudgetError } from "@contextview/core";
import { anthropicOrderProblems, geminiOrderProblems, openAIOrderProblems } from "@contextview/test-support";

// Every shape a long current turn takes in a view (kept, compacted, cleared, excerpted,
// labelled) is one that OpenAI, Anthropic and Gemini accept, at any budget, whenever
// the conversation itself is one that provider accepts.
const checkers = { openai: openAIOrderProblems, anthropic: anthropicOrderProblems, gemini: geminiOrderProblems };

const IMAGE = { type: "image_url", image_url: { url: `data:image/png;base64,${"iVBORw0KGgo".repeat(300)}` } };

/** One step of a random long turn: a tool exchange (parallel calls, results tiny to huge, as text, JSON, blocks or an image) or assistant prose. */
const stepArb = fc.record({
  prose: fc.constantFrom("none", "text", "blocks"),
  alone: fc.boolean(),
  parallel: fc.integer({ min: 1, max: 4 }),
  resultBytes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 400 }), fc.integer({ min: 400, max: 6000 }), fc.constant(60_000)),
  result: fc.constantFrom("plain", "json", "blocks", "image"),
  argBytes: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 200, max: 1500 })),
  repeat: fc.boolean(),
});
const olderTurnArb = fc.record({ calls: fc.integer({ min: 0, max: 3 }), resultBytes: fc.integer({ min: 0, max: 8000 }), answerBytes: fc.integer({ min: 1, max: 6000 }) });
const caseArb = fc.record({
  steps: fc.array(stepArb, { minLength: 1, maxLength: 300 }),
  older: fc.array(olderTurnArb, { maxLength: 4 }),
  /** Assistant prose without calls: never, only as the turn's last message (an answer), or also between steps (Gemini refuses the input then). */
  proseAlone: fc.constantFrom("never", "end", "anywhere"),
  requestImage: fc.boolean(),
  system: fc.constantFrom("message", "option", "none"),
  promptBudget: fc.integer({ min: 600, max: 14000 }),
  dropStep: fc.constantFrom(undefined, 0),
  cacheBreakpoints: fc.boolean(),
  imageInputs: fc.boolean(),
});

type Case = typeof caseArb extends fc.Arbitrary<infer T> ? T : never;

function resultContent(kind: string, bytes: number, i: number): MessageContent {
  const text = `output ${i}: ${"w".repeat(bytes)}`;
  if (kind === "json") return JSON.stringify({ rows: Array.from({ length: Math.ceil(bytes / 40) }, (_, r) => ({ id: `R${i}-${r}`, v: "z".repeat(20) })) });
  if (kind === "blocks") return [{ type: "text", text }];
  if (kind === "image") return [{ type: "text", text: `screenshot ${i}` }, IMAGE];
  return bytes === 0 ? "" : text;
}

function build(spec: Case): BaseMessage[] {
  const messages: BaseMessage[] = spec.system === "message" ? [new SystemMessage("You are an agent that uses tools.")] : [];
  spec.older.forEach((turn, t) => {
    messages.push(new HumanMessage({ id: `old-h${t}`, content: `Earlier request ${t}` }));
    for (let c = 0; c < turn.calls; c++) {
      messages.push(new AIMessage({ id: `old-a${t}-${c}`, content: "", tool_calls: [{ id: `old-c${t}-${c}`, name: "lookup", args: { n: c } }] }));
      messages.push(new ToolMessage({ id: `old-t${t}-${c}`, tool_call_id: `old-c${t}-${c}`, name: "lookup", content: "r".repeat(turn.resultBytes) }));
    }
    messages.push(new AIMessage({ id: `old-answer${t}`, content: `Earlier answer ${t}: ${"x".repeat(turn.answerBytes)}` }));
  });
  messages.push(new HumanMessage({ id: "request", content: spec.requestImage ? [{ type: "text", text: "Do the whole task, step by step." }, IMAGE] : "Do the whole task, step by step." }));
  let previousArgs: Record<string, unknown> = {};
  spec.steps.forEach((x, i) => {
    const prose = `Working on step ${i}. ${"because ".repeat(x.argBytes % 40)}`;
    if ((x.alone && spec.proseAlone === "anywhere") || (spec.proseAlone === "end" && i === spec.steps.length - 1)) {
      messages.push(new AIMessage({ id: `ai${i}`, content: prose }));
      return;
    }
    const calls = Array.from({ length: x.parallel }, (_, p) => ({
      id: `c${i}-${p}`,
      name: `tool_${(i + p) % 4}`,
      args: x.repeat && i > 0 ? previousArgs : { id: `ID-${i}-${p}`, payload: "a".repeat(x.argBytes) },
    }));
    previousArgs = calls[0]?.args ?? {};
    const content = x.prose === "text" ? prose : x.prose === "blocks" ? [{ type: "text", text: prose }] : "";
    messages.push(new AIMessage({ id: `ai${i}`, content, tool_calls: calls }));
    for (const call of calls) messages.push(new ToolMessage({ id: `t${call.id}`, tool_call_id: call.id, name: call.name, content: resultContent(x.result, x.resultBytes, i) }));
  });
  return messages;
}

describe("long current turns meet every provider's ordering rules (property)", () => {
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const broken: string[] = [];
  const refused: string[] = [];
  const checked = { openai: 0, anthropic: 0, gemini: 0 };

  beforeAll(() => {
    fc.sample(caseArb, { numRuns: 50, seed }).forEach((spec, n) => {
      const { dropStep, cacheBreakpoints, imageInputs } = spec;
      const messages = build(spec);
      try {
        const view = buildContext({
          messages,
          ...(spec.system === "option" ? { systemPrompt: "You are an agent that uses tools." } : {}),
          budget: { contextWindow: 32768, promptBudget: spec.promptBudget, responseReserve: 4096 },
          ...(dropStep === undefined ? {} : { dropStep }),
          cacheBreakpoints,
          imageInputs,
        });
        for (const [provider, check] of Object.entries(checkers)) {
          if (check(messages).length > 0) continue;
          checked[provider as keyof typeof checkers]++;
          for (const problem of check(view.messages)) broken.push(`case ${n} (${spec.steps.length} steps, budget ${spec.promptBudget}): ${provider}: ${problem}`);
        }
      } catch (error) {
        // Only the mandatory part may refuse; what it is made of is the long-turn property test's concern.
        if (!ContextBudgetError.isBudgetError(error)) refused.push(`case ${n}: ${String(error)}`);
      }
    });
  });

  it("every view passes the OpenAI, Anthropic and Gemini checkers", () => {
    expect({ seed, broken: broken.slice(0, 20) }).toEqual({ seed, broken: [] });
    // Gemini refuses conversations with prose between steps; most cases have none.
    for (const count of Object.values(checked)) expect(count).toBeGreaterThan(10);
  });

  it("refuses only with a typed budget error", () => {
    expect({ seed, refused }).toEqual({ seed, refused: [] });
  });
});
