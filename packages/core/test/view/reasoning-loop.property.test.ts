import fc from "fast-check";
import { AIMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator, ContextBudgetError, InMemoryContextStore, type ContextView } from "@contextview/core";
import { snapshot, viewProblems } from "@contextview/test-support";
import { reasoningOf, toolTurn, type Shape } from "../support/provider-shapes";

// Issue 50, item 2: a tool loop whose replies carry reasoning (Anthropic thinking, OpenAI
// reasoning items) is bound to what was sent before each reply. While the loop fits beside
// its first call's view, each call's view starts with the previous call's byte for byte.

const estimator = createEstimator();
const shapeArb = fc.constantFrom<Shape>("anthropic", "openai", "v1");

/** What a message puts on the wire, every field a converter reads. */
function wire(message: BaseMessage): string {
  const m = message as BaseMessage & { tool_calls?: unknown; tool_call_id?: unknown };
  return JSON.stringify([m.type, m.id, m.name, m.content, m.tool_calls, m.tool_call_id, m.additional_kwargs, m.response_metadata]);
}

function startsWith(view: ContextView, previous: ContextView): boolean {
  if (view.messages.length < previous.messages.length) return false;
  return previous.messages.every((message, i) => wire(message) === wire(view.messages[i] as BaseMessage));
}

/** The calls of one tool loop: the conversation as it is at each model call of the current turn. */
function loopCalls(shape: Shape, olderSteps: number[], steps: number, resultChars: number): { calls: BaseMessage[][]; loopStart: number } {
  const head: BaseMessage[] = [new SystemMessage("You reconcile ledgers.")];
  olderSteps.forEach((n, t) => head.push(...toolTurn(shape, t, n, resultChars, 300 + 200 * (t % 3))));
  const turn = toolTurn(shape, olderSteps.length, steps, resultChars);
  const loopStart = head.length + 1;
  const calls: BaseMessage[][] = [];
  for (let k = 0; k <= steps; k++) calls.push([...head, ...turn.slice(0, 1 + 2 * k)]);
  return { calls, loopStart };
}

describe("a tool loop whose replies carry reasoning (issue 50, item 2)", () => {
  it("while the loop fits beside its first call's view, each view starts with the previous one byte for byte; every law holds", async () => {
    let appendOnly = 0;
    let outgrown = 0;
    let evidenceOfLoop = 0;
    await fc.assert(
      fc.asyncProperty(
        shapeArb,
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 200, max: 2500 }),
        fc.integer({ min: 3000, max: 16000 }),
        // Durable evidence: none, the store's as the loop's first call had it (held through the loop, as the
        // context manager holds it), or the store's as each call has it (quoting the loop's own messages).
        fc.constantFrom("none", "held", "fresh"),
        async (shape, olderSteps, steps, resultChars, promptBudget, evidence) => {
          const { calls, loopStart } = loopCalls(shape, olderSteps, steps, resultChars);
          const budget = { contextWindow: promptBudget + 8192, promptBudget, responseReserve: 4096 };
          const evidenceAt = async (messages: BaseMessage[]) => (await new InMemoryContextStore().update("u", "c", messages)).asMessage();
          const held = evidence === "held" ? await evidenceAt(calls[0] as BaseMessage[]) : null;
          const views: ContextView[] = [];
          for (const messages of calls) {
            const before = snapshot(messages);
            const historyMessage = evidence === "fresh" ? await evidenceAt(messages) : held;
            if (historyMessage !== null && evidence === "fresh" && messages.length > loopStart) evidenceOfLoop++;
            const build = () => buildContext({ messages, budget, ...(historyMessage !== null ? { historyMessage } : {}) });
            let view: ContextView;
            try {
              view = build();
            } catch (error) {
              if (error instanceof ContextBudgetError) break;
              throw error;
            }
            expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => build().messages }, view)).toEqual([]);
            views.push(view);
          }
          const first = views[0];
          // Evidence that changes from call to call changes the view's history slot: the laws hold, the prefix may move.
          if (first === undefined || evidence === "fresh") return;
          for (let k = 1; k < views.length; k++) {
            const loop = (calls[k] as BaseMessage[]).slice(loopStart);
            const fits = first.report.tokens.total + estimator.estimateMessages(loop) <= first.report.limit;
            if (!fits) {
              outgrown++;
              continue;
            }
            appendOnly++;
            const view = views[k] as ContextView;
            expect(startsWith(view, views[k - 1] as ContextView)).toBe(true);
            // The loop goes back whole: its reasoning unmodified.
            const sent = view.messages.slice(first.messages.length);
            expect(sent.map(wire)).toEqual(loop.map(wire));
            for (const message of sent) if (message.type === "ai") expect(reasoningOf(message).length).toBeGreaterThan(0);
            expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
          }
        },
      ),
      { numRuns: 40 },
    );
    // The sample reaches loops that fit and loops that outgrow their first call's room.
    expect(appendOnly).toBeGreaterThan(20);
    expect(outgrown).toBeGreaterThan(5);
    expect(evidenceOfLoop).toBeGreaterThan(5);
  });
});

describe("evidence that quotes the loop's own messages", () => {
  it("is left out of the first call's view the loop goes on from, and counted as shown", async () => {
    const { calls, loopStart } = loopCalls("anthropic", [2, 3], 3, 600);
    const messages = calls[2] as BaseMessage[];
    const evidence = (await new InMemoryContextStore().update("u", "c", messages)).asMessage();
    expect(evidence).not.toBeNull();
    // An application's envelope quoting the loop's first reply (the store quotes finished turns only).
    const quoted = messages[loopStart] as BaseMessage;
    const forged = String((evidence as BaseMessage).content).replace('"messageId":"a1_end","index":14', `"messageId":"${quoted.id}","index":${loopStart}`);
    expect(forged).toContain(`"messageId":"${quoted.id}"`);
    const { id, response_metadata } = evidence as BaseMessage;
    const envelope = (content: string) => new AIMessage({ ...(id === undefined ? {} : { id }), content, response_metadata });
    const historyMessage = envelope(forged);
    const budget = { promptBudget: 12000 };
    const view = buildContext({ messages, budget, historyMessage });
    expect(viewProblems({ conversation: messages, messages, before: snapshot(messages), estimator, rebuild: () => buildContext({ messages, budget, historyMessage }).messages }, view)).toEqual([]);
    expect(view.messages.map((m) => m.id)).toContain(quoted.id);
    expect(view.report.history.evidenceShown).toBeGreaterThanOrEqual(1);
    // The loop goes on from its first call's view (with evidence as the first call could have it).
    const first = buildContext({ messages: messages.slice(0, loopStart), budget, historyMessage });
    expect(view.messages.slice(0, first.messages.length).map(wire)).not.toEqual(first.messages.map(wire));
    const firstWithout = buildContext({ messages: messages.slice(0, loopStart), budget, historyMessage: envelope(forged.replace(/,?\{"role":"assistant","messageId":"a2_0"[^}]*\}/, "")) });
    expect(view.messages.slice(0, firstWithout.messages.length).map(wire)).toEqual(firstWithout.messages.map(wire));
  });
});
