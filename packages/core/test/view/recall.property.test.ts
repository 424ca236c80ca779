import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, createEstimator } from "@contextview/core";
import { RECALL_LABEL } from "../../src/view/recall.js";
import { conversation, conversationArb, deepFreeze, readableText, snapshot, viewProblems } from "@contextview/test-support";
import { briefBudget } from "../../src/view/recall";

const estimator = createEstimator();

/**
 * The recall stage over random conversations (parallel calls, orphans, cancelled
 * calls, images, huge results) and a request made of words found earlier in them:
 * every law holds; a brief leaves the rest of the view exactly as without recall; what
 * is recalled (block or brief) is never a message the view shows; the request is last.
 */
/** A date for some messages (a run of five messages a day), none for every seventh. */
const dateOf = (_message: BaseMessage, index: number) => (index % 7 === 0 ? undefined : `day ${Math.floor(index / 5)}`);

/** The view without its recalled block (the label and the block). */
function withoutRecall(messages: readonly BaseMessage[]): string {
  const label = messages.findIndex((m) => m.content === RECALL_LABEL);
  return JSON.stringify(label < 0 ? messages : [...messages.slice(0, label), ...messages.slice(label + 2)]);
}

/**
 * With `messageDate`, every law still holds; only the recalled block differs from the
 * undated view; each recalled line sits under its own message's date heading.
 */
function checkDates(input: Parameters<typeof buildContext>[0], plain: ReturnType<typeof buildContext>, all: BaseMessage[], messages: readonly BaseMessage[], before: ReturnType<typeof snapshot>, context: string): void {
  const datedInput = { ...input, messageDate: dateOf };
  const dated = buildContext(datedInput);
  expect([context, viewProblems({ conversation: all, messages, before, estimator, rebuild: () => buildContext(datedInput).messages }, dated)]).toEqual([context, []]);
  expect([context, withoutRecall(dated.messages)]).toEqual([context, withoutRecall(plain.messages)]);
  if (dated.report.recall.outcome !== "recalled") return;
  const block = String(dated.messages[dated.messages.findIndex((m) => m.content === RECALL_LABEL) + 1]?.content);
  let heading: string | undefined;
  for (const line of block.split("\n").slice(1)) {
    const date = /^\[date (.+)\]$/.exec(line)?.[1];
    if (date !== undefined || line === "[no date]") {
      heading = date;
      continue;
    }
    const index = /^\[#(\d+) /.exec(line)?.[1];
    if (index === undefined) continue; // a line of a recalled text's own
    expect([context, index, heading]).toEqual([context, index, dateOf(all[Number(index)] as BaseMessage, Number(index))]);
  }
}

describe("the recall stage (property)", () => {
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const caseArb = fc.tuple(conversationArb, fc.integer({ min: 1200, max: 9000 }), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.constantFrom(1000, 2000, 4000), fc.boolean());

  it("keeps every law, repeats nothing the view shows, and a brief changes nothing else", () => {
    let briefs = 0;
    let blocks = 0;
    let cases = 0;
    // 60 cases, more (up to 200) until both placements occurred: a brief needs turns left
    // out and a word of the request that no message the view shows holds.
    for (const [{ turns, system }, promptBudget, picks, recallBudget, chatty] of fc.sample(caseArb, { numRuns: 200, seed })) {
      if (cases++ >= 60 && briefs > 0 && blocks > 0) break;
      const built = conversation(turns, system);
      // Words of earlier messages, from the first fifth of the conversation's text: a
      // request that points back past what a view of its newest turns shows.
      const text = readableText(built);
      const words = text.slice(0, Math.min(100_000, Math.ceil(text.length / 5))).match(/[\p{L}\p{N}][\p{L}\p{N}_-]{3,}/gu) ?? [];
      const request = new HumanMessage({ id: "q-final", content: picks.map((p) => words[p % Math.max(words.length, 1)] ?? "hello").join(" ") });
      // Half the cases end in a conversational stretch (3 turns without tools): a block;
      // the others in a turn that called a tool: a brief.
      const chat = chatty
        ? [0, 1, 2].flatMap((k) => [new HumanMessage({ id: `chat-u${k}`, content: `Thanks, noted ${k}.` }), new AIMessage({ id: `chat-a${k}`, content: `You're welcome ${k}.` })])
        : [
            new HumanMessage({ id: "tool-u", content: "Check the latest status." }),
            new AIMessage({ id: "tool-c", content: "", tool_calls: [{ id: "tool-k", name: "status", args: { full: true }, type: "tool_call" }] }),
            new ToolMessage({ id: "tool-r", tool_call_id: "tool-k", name: "status", content: "ok" }),
            new AIMessage({ id: "tool-a", content: "All fine." }),
          ];
      const all = [...built, ...chat, request];
      const messages = deepFreeze(all);
      const before = snapshot(messages);
      const input = { messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, recallBudget };
      let view;
      try {
        view = buildContext(input);
      } catch {
        continue; // The mandatory part does not fit: the laws suite covers the error.
      }
      const context = `seed ${seed}, budget ${promptBudget}, recallBudget ${recallBudget}`;
      expect([context, viewProblems({ conversation: all, messages, before, estimator, rebuild: () => buildContext(input).messages }, view)]).toEqual([context, []]);
      const { recall } = view.report;
      if (recall.outcome !== "recalled") continue;
      // Dates are read only for recalled lines: a view that recalls nothing is the same with them.
      checkDates(input, view, all, messages, before, context);
      const label = view.messages.findIndex((m) => m.content === RECALL_LABEL);
      const recalledText = String(view.messages[label + 1]?.content);
      expect(view.messages.at(-1)?.id).toBe("q-final");
      const shownIds = new Set(view.messages.map((m: BaseMessage) => m.id).filter((id): id is string => id !== undefined));
      for (const [, id] of recalledText.matchAll(/ · id ([^\]\s]+)\]/g)) expect([context, id, shownIds.has(id as string)]).toEqual([context, id, false]);
      if (recall.brief) {
        briefs++;
        expect(recall.tokens).toBeLessThanOrEqual(briefBudget(recallBudget));
        const off = buildContext({ ...input, recallBudget: 0 });
        const rest = [...view.messages.slice(0, label), ...view.messages.slice(label + 2)];
        expect([context, JSON.stringify(rest)]).toEqual([context, JSON.stringify(off.messages)]);
      } else blocks++;
    }
    // Both placements occur over the sample.
    expect(briefs).toBeGreaterThan(0);
    expect(blocks).toBeGreaterThan(0);
  });

  it("gives the same view whatever was built before: lines remembered from other budgets, recall budgets and pins change nothing", () => {
    let recalled = 0;
    let cases = 0;
    // 40 cases, more (up to 200) until 10 of them recalled something.
    for (const [{ turns, system }, promptBudget, picks, recallBudget] of fc.sample(caseArb, { numRuns: 200, seed: seed + 1 })) {
      if (cases >= 40 && recalled >= 10) break;
      const built = conversation(turns, system);
      // As above: words from the first fifth of the text, after a stretch without tools (a block).
      const text = readableText(built);
      const words = text.slice(0, Math.min(100_000, Math.ceil(text.length / 5))).match(/[\p{L}\p{N}][\p{L}\p{N}_-]{3,}/gu) ?? [];
      const request = new HumanMessage({ id: "q-final", content: picks.map((p) => words[p % Math.max(words.length, 1)] ?? "hello").join(" ") });
      const chat = [0, 1, 2].flatMap((k) => [new HumanMessage({ id: `chat-u${k}`, content: `Thanks, noted ${k}.` }), new AIMessage({ id: `chat-a${k}`, content: `You're welcome ${k}.` })]);
      const messages = deepFreeze([...built, ...chat, request]);
      const input = { messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, recallBudget };
      // Warm the conversation's index with other rooms and other pins first.
      for (const [budget, recall, pin] of [[promptBudget * 2, 4000, false], [Math.ceil(promptBudget / 2), 1000, false], [promptBudget, recallBudget, true]] as const) {
        try {
          buildContext({ ...input, budget: { ...input.budget, promptBudget: budget }, recallBudget: recall, ...(pin ? { pin: (m: BaseMessage) => (m.id ?? "").endsWith("1") } : {}) });
        } catch {
          // Too small for the mandatory part: it still read what it could.
        }
      }
      let view;
      try {
        view = buildContext(input);
      } catch {
        continue;
      }
      cases++;
      if (view.report.recall.recalled > 0) recalled++;
      // The same messages read anew (new objects): nothing remembered of them.
      const anew = messages.map((m) => new (m.constructor as new (fields: unknown) => BaseMessage)({ ...m, content: m.content }));
      const context = `seed ${seed + 1}, budget ${promptBudget}, recallBudget ${recallBudget}`;
      expect([context, JSON.stringify(buildContext({ ...input, messages: anew }).messages)]).toEqual([context, JSON.stringify(view.messages)]);
    }
    expect([`seed ${seed + 1}: ${cases} cases`, recalled]).toEqual([`seed ${seed + 1}: ${cases} cases`, Math.max(recalled, 10)]);
  });
});
