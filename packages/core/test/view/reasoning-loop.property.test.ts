import fc from "fast-check";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator, ContextBudgetError, InMemoryContextStore, type ContextView } from "@contextview/core";
import { leftParts } from "../../src/view/loop-front.js";
import { anthropicOrderProblems, readableText, snapshot, viewProblems } from "@contextview/test-support";
import { assistantStep, reasoningOf, SECRET_MARKS, toolTurn } from "../support/provider-shapes";
import { budgetOf, loopCalls, loopCaseArb, loopRelation, wire } from "../support/reasoning-loops";
import { holdsReasoning, withoutReasoning } from "../../src/provider-content.js";

// Issue 50, item 2: a tool loop whose replies carry reasoning (Anthropic thinking, OpenAI
// reasoning items) is bound to what was sent before each reply. While the loop fits beside
// its first call's view, each call's view starts with the previous call's byte for byte.

const estimator = createEstimator();

/** The view of a later call starts with the previous call's view, byte for byte. */
const startsWith = (view: ContextView, previous: ContextView) => loopRelation(view.messages, previous.messages) === "appended";

describe("a tool loop whose replies carry reasoning (issue 50, item 2)", () => {
  it("each call's view is its first call's view, whole messages left from its front once the loop outgrows it, then the loop; every law holds", async () => {
    let appendOnly = 0;
    let outgrown = 0;
    let evidenceOfLoop = 0;
    await fc.assert(
      fc.asyncProperty(
        loopCaseArb(2, 6),
        // Durable evidence: none, the store's as the loop's first call had it (held through the loop, as the
        // context manager holds it), or the store's as each call has it (quoting the loop's own messages).
        fc.constantFrom("none", "held", "fresh"),
        async (loopCase, evidence) => {
          const { calls, loopStart } = loopCalls(loopCase);
          const budget = budgetOf(loopCase);
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
            expect(anthropicOrderProblems(view.messages)).toEqual([]);
            // Reasoning is never text: no signature or encrypted payload reads as text.
            const text = readableText(view.messages);
            for (const mark of SECRET_MARKS) expect(text).not.toContain(mark);
            views.push(view);
          }
          const first = views[0];
          // Evidence that changes from call to call changes the view's history slot: the laws hold, the prefix may move.
          if (first === undefined || evidence === "fresh") return;
          const firstWire = first.messages.map(wire);
          let droppedBefore = 0;
          for (let k = 1; k < views.length; k++) {
            const loop = (calls[k] as BaseMessage[]).slice(loopStart);
            const view = views[k] as ContextView;
            const sent = view.messages.map(wire);
            const tail = sent.slice(sent.length - loop.length);
            if (first.report.tokens.total + estimator.estimateMessages(loop) <= first.report.limit) {
              // The loop fits beside its first call's view: that view, then the loop.
              appendOnly++;
              expect(sent.slice(0, firstWire.length)).toEqual(firstWire);
              expect(startsWith(view, views[k - 1] as ContextView)).toBe(true);
            } else {
              // Outgrown: whole messages of the first view left from its front (after the system message), never edited.
              const request = firstWire.length - 1;
              const lean = estimator.estimateMessages([first.messages[0] as BaseMessage, first.messages[request] as BaseMessage, ...loop]);
              if (lean > first.report.limit) continue;
              outgrown++;
              const dropped = firstWire.length + loop.length - sent.length;
              expect(dropped).toBeGreaterThan(0);
              expect(sent[0]).toEqual(firstWire[0]);
              expect(sent.slice(1, sent.length - loop.length)).toEqual(firstWire.slice(1 + dropped));
              expect(view.messages[1]?.type).toBe("human");
              // The report says what left: turns dropped, the cut moved on, within the limit.
              expect(view.report.turns.dropped).toBeGreaterThanOrEqual(first.report.turns.dropped);
              expect(view.report.cut).toBeGreaterThanOrEqual(first.report.cut);
              expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
              // Each later call leaves as many or more; with as many, it starts with the previous call's view.
              expect(dropped).toBeGreaterThanOrEqual(droppedBefore);
              if (dropped === droppedBefore) expect(startsWith(view, views[k - 1] as ContextView)).toBe(true);
              droppedBefore = dropped;
            }
            // The loop goes back whole: its reasoning unmodified.
            expect(tail).toEqual(loop.map(wire));
            for (const message of view.messages.slice(view.messages.length - loop.length)) if (message.type === "ai") expect(reasoningOf(message).length).toBeGreaterThan(0);
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
    const { calls, loopStart } = loopCalls({ shape: "anthropic", olderSteps: [2, 3], steps: 3, resultChars: 600, promptBudget: 12000 });
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

describe("leftParts: how many parts leave the front of a loop's first view", () => {
  it("none while nothing is over; all the parts or undefined at the end", () => {
    expect(leftParts(0, [400, 300], 0.25)).toBe(0);
    expect(leftParts(700, [400, 300], 0.25)).toBe(2);
    expect(leftParts(701, [400, 300], 0.25)).toBeUndefined();
  });

  it("with dropStep 0, exactly what is needed; with a step, up to the next anchor", () => {
    expect(leftParts(350, [400, 300, 700, 500], 0)).toBe(1);
    expect(leftParts(401, [400, 300, 700, 500], 0)).toBe(2);
    // Anchors every 475 tokens: 401 over → the anchor at 475 → two parts (700 freed).
    expect(leftParts(401, [400, 300, 700, 500], 0.25)).toBe(2);
    expect(leftParts(900, [400, 300, 700, 500], 0.25)).toBe(3);
  });

  it("over random parts, what leaves frees at least what is over, and more over never leaves fewer", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 2000 }), { minLength: 1, maxLength: 12 }), fc.constantFrom(0, 0.1, 0.25, 0.5), fc.integer({ min: 1, max: 30000 }), fc.integer({ min: 0, max: 3000 }), (tokens, step, over, more) => {
        const a = leftParts(over, tokens, step);
        const b = leftParts(over + more, tokens, step);
        const freed = (n: number) => tokens.slice(0, n).reduce((x, y) => x + y, 0);
        if (a === undefined) return expect(b).toBeUndefined();
        expect(freed(a)).toBeGreaterThanOrEqual(over);
        if (b !== undefined) expect(b).toBeGreaterThanOrEqual(a);
      }),
      { numRuns: 300 },
    );
  });
});

describe("holdsReasoning: what makes a loop one whose replies reason", () => {
  it.each(["anthropic", "openai", "v1"] as const)("%s: a reply with reasoning holds it; the same reply without it does not", (shape) => {
    const reply = assistantStep(shape, "a1", "Checking the ledger.", "call_1");
    expect(holdsReasoning(reply)).toBe(true);
    expect(holdsReasoning(withoutReasoning(reply, "ai").message)).toBe(false);
  });

  it("a plain reply, and one whose only output item is its message, hold none", () => {
    expect(holdsReasoning(new AIMessage("plain"))).toBe(false);
    const output = [{ type: "message", id: "m", role: "assistant", content: [{ type: "output_text", text: "hi", annotations: [] }] }];
    expect(holdsReasoning(new AIMessage({ content: "hi", response_metadata: { output } }))).toBe(false);
  });
});

describe("the brief of a reasoning loop's first call", () => {
  it("stays on every later call of the loop while it fits (a loop without reasoning drops it after the first call)", () => {
    const early = [new HumanMessage({ id: "zh", content: "Open the Zanzibar account for the import business." }), new AIMessage({ id: "za", content: "Opened the Zanzibar account." })];
    const older = Array.from({ length: 12 }, (_, t) => toolTurn("anthropic", t, 2, 1500, 400)).flat();
    const loop = toolTurn("anthropic", 12, 3, 300);
    (loop[0] as HumanMessage).content = "Reconcile the Zanzibar account against the ledger.";
    const head = [new SystemMessage("You reconcile ledgers."), ...early, ...older];
    const viewsOf = (turn: BaseMessage[]) => [0, 1, 2, 3].map((k) => buildContext({ messages: [...head, ...turn.slice(0, 1 + 2 * k)], budget: { promptBudget: 4000 } }));
    const views = viewsOf(loop);
    expect(views[0]?.report.recall).toMatchObject({ brief: true, outcome: "recalled" });
    const brief = (views[0] as ContextView).messages.map(wire).filter((m) => m.includes("Zanzibar account for the import"));
    expect(brief).toHaveLength(1);
    for (const view of views.slice(1)) {
      expect(view.messages.map(wire)).toEqual(expect.arrayContaining(brief));
      expect(view.report.recall.brief).toBe(true);
    }
    // The same loop without reasoning: its later calls are built as any view, and the brief goes.
    const plain = loop.map((m) => (m.type === "ai" ? new AIMessage({ id: m.id!, content: "Checking.", tool_calls: (m as AIMessage).tool_calls ?? [] }) : m));
    const plainViews = viewsOf(plain);
    expect(plainViews[0]?.report.recall.brief).toBe(true);
    expect(plainViews[1]?.report.recall.outcome).toBe("later-call");
  });
});
