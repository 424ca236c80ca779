import fc from "fast-check";
import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, createEstimator } from "@contextview/core";
import { readableText, snapshot, viewProblems } from "@contextview/test-support";
import { renderTranscript } from "../../src/summarize/transcript.js";
import { assistantStep, reasoningOf, SECRET_MARKS, sentText, toolTurn, type Shape } from "../support/provider-shapes";
import { budgetOf, loopCaseArb } from "../support/reasoning-loops";

// Issue 50, item 3: older turns' reasoning (Anthropic thinking, OpenAI reasoning items) is
// neither sent nor charged, and counted; the current tool loop's goes back unmodified; a view
// copy of an OpenAI message says in `response_metadata.output` what its content says.

const estimator = createEstimator();

function conversationOf(shape: Shape, olderSteps: number[], currentSteps: number, resultChars: number): BaseMessage[] {
  const messages: BaseMessage[] = [new SystemMessage("You reconcile ledgers.")];
  olderSteps.forEach((steps, t) => messages.push(...toolTurn(shape, t, steps, resultChars, 300 + 200 * (t % 3))));
  const current = toolTurn(shape, olderSteps.length, currentSteps, resultChars);
  messages.push(...current.slice(0, -1));
  return messages;
}

/** Ids of the messages of the current turn (from the newest user message on). */
function currentIds(messages: readonly BaseMessage[]): Set<string> {
  let start = messages.length - 1;
  while (start > 0 && messages[start]?.type !== "human") start--;
  return new Set(messages.slice(start).map((m) => m.id ?? ""));
}

describe("provider reasoning outside the tool loop (issue 50, item 3)", () => {
  it("older turns' reasoning is cleared, the loop's is unmodified, output says what content says, every law holds", () => {
    fc.assert(
      fc.property(loopCaseArb(1), (loopCase) => {
        const messages = conversationOf(loopCase.shape, loopCase.olderSteps, loopCase.steps, loopCase.resultChars);
        const before = snapshot(messages);
        const build = () => buildContext({ messages, budget: budgetOf(loopCase) });
        const view = build();
        expect(viewProblems({ conversation: messages, messages, before, estimator, rebuild: () => build().messages }, view)).toEqual([]);
        const current = currentIds(messages);
        const byId = new Map(messages.map((m) => [m.id, m]));
        let olderShown = 0;
        for (const message of view.messages) {
          if (message.type !== "ai" || message.id === undefined || !byId.has(message.id)) continue;
          const original = byId.get(message.id) as BaseMessage;
          if (current.has(message.id)) {
            // Every reasoning block of the loop goes back as it came.
            const kept = JSON.stringify(reasoningOf(original));
            for (const block of reasoningOf(message)) expect(kept).toContain(JSON.stringify(block));
          } else {
            olderShown++;
            expect(reasoningOf(message)).toEqual([]);
          }
          // What LangChain's OpenAI converter sends is what the view shows and charges.
          expect(sentText(message)).toEqual(sentTextOfContent(message));
        }
        if (olderShown > 0) expect(view.report.reasoningCleared).toBeGreaterThan(0);
        const text = readableText(view.messages) + renderTranscript(messages).join("\n");
        for (const mark of SECRET_MARKS) expect(text).not.toContain(mark);
        expect(text).not.toMatch(/THOUGHT-a\d+_(\d+|end)/);
      }),
      { numRuns: 120 },
    );
  });
});

function sentTextOfContent(message: BaseMessage): string[] {
  if (typeof message.content === "string") return message.content === "" ? [] : [message.content];
  return (message.content as { type?: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text ?? "");
}

describe("an older OpenAI message the view excerpts (issue 50, item 3)", () => {
  const long = `Answer: ${"the ledger balances and every account reconciles. ".repeat(80)}`;
  const older = assistantStep("openai", "a0_end", long);
  const messages: BaseMessage[] = [new HumanMessage({ id: "h0", content: "Reconcile." }), older, new HumanMessage({ id: "h1", content: "And now?" })];
  const view = buildContext({ messages, budget: { promptBudget: 16000 }, maxOlderMessageTokens: 100 });
  const shown = view.messages.find((m) => m.id === "a0_end") as AIMessage;

  it("sends the excerpt it charges, not the whole output", () => {
    expect(view.report.excerpted).toBe(1);
    expect(sentText(shown)).toEqual(sentTextOfContent(shown));
    expect(sentText(shown).join("").length).toBeLessThan(long.length / 2);
  });

  it("drops the reasoning item and keeps the message item's id; the input is untouched", () => {
    const output = shown.response_metadata["output"] as { type: string; id?: string }[];
    expect(output.map((item) => item.type)).toEqual(["message"]);
    expect(output[0]?.id).toBe("msg_a0_end");
    expect(shown.additional_kwargs["reasoning"]).toBeUndefined();
    expect(view.report.reasoningCleared).toBe(1);
    expect((older.response_metadata["output"] as unknown[]).length).toBe(2);
  });

  it("sends a current-turn message's output byte for byte", () => {
    const loop = [new HumanMessage({ id: "h0", content: "Go." }), assistantStep("openai", "a0_x", "Done.")];
    const copy = buildContext({ messages: loop, budget: { promptBudget: 16000 } }).messages.find((m) => m.id === "a0_x");
    expect(copy?.response_metadata["output"]).toEqual(loop[1]?.response_metadata["output"]);
    expect(copy?.additional_kwargs["reasoning"]).toEqual(loop[1]?.additional_kwargs["reasoning"]);
  });
});
