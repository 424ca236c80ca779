// What a view changed in the messages it shows — labels inserted for provider ordering,
// images replaced by placeholders, older messages excerpted — is counted over the parts it
// shows, read off the turns it chose (issue 48: "the report is read off the allocation"),
// never over every turn it read: a turn read and then left out changes nothing in the view.
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, type ContextView } from "@contextview/core";
import { conversation, conversationArb } from "@contextview/test-support";
import { CONTINUATION_LABEL } from "../../src/view/head";
import { IMAGE_PLACEHOLDER } from "../../src/view/older";
import { NO_IMAGE_INPUT_PLACEHOLDER } from "../../src/view/images";
import { RECALL_LABEL } from "../../src/view/recall";

/**
 * Labels the view inserted for provider ordering rules: user-role messages of its own saying
 * the conversation continues, and the one before the recalled block (the pinned block's and
 * the history's labels head blocks the view adds; they are not counted).
 */
const labelsShown = (view: ContextView) =>
  view.messages.filter((m) => m.type === "human" && m.id === undefined && (m.content === CONTINUATION_LABEL || m.content === RECALL_LABEL)).length;

/** Image placeholders the view shows (an older turn's, or any message's when the model takes no image input). */
function placeholdersShown(view: ContextView): number {
  let count = 0;
  for (const message of view.messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content as { type?: string; text?: string }[]) {
      if (block?.type === "text" && (block.text === IMAGE_PLACEHOLDER || block.text === NO_IMAGE_INPUT_PLACEHOLDER)) count++;
    }
  }
  return count;
}

/** Messages of the conversation the view shows with an excerpt marker (their text cut to a bound). */
const excerptsShown = (view: ContextView) => view.messages.filter((m) => m.id !== undefined && JSON.stringify(m.content).includes("[… excerpt:")).length;

/** `n` turns, each an assistant's text before its tool call (a label goes between them), and an image in each request. */
function labelledTurns(n: number): BaseMessage[] {
  const image = { type: "image_url", image_url: { url: `data:image/png;base64,${"A".repeat(400)}` } };
  const messages: BaseMessage[] = [];
  for (let i = 0; i < n; i++) {
    messages.push(new HumanMessage({ id: `h${i}`, content: [{ type: "text", text: `Picture ${i}: ${"what grows in the garden ".repeat(20)}` }, image] }));
    messages.push(new AIMessage({ id: `x${i}`, content: `Let me look ${"at the roses ".repeat(10)}` }));
    messages.push(new AIMessage({ id: `a${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "look", args: { picture: i } }] }));
    messages.push(new ToolMessage({ id: `t${i}`, tool_call_id: `c${i}`, content: `roses in picture ${i}` }));
    messages.push(new AIMessage({ id: `f${i}`, content: `Picture ${i} shows roses.` }));
  }
  messages.push(new HumanMessage({ id: "current", content: "Which picture had the most roses?" }));
  return messages;
}

describe("what a view changed, counted over what it shows", () => {
  it("counts the labels and image placeholders of the turns it keeps, not of the turns it read and left out", () => {
    const view = buildContext({ messages: labelledTurns(30), budget: { promptBudget: 2500, contextWindow: 32_768 }, recallBudget: 0, pinOpeningRequest: false });
    const { turns } = view.report;
    expect(turns.dropped).toBeGreaterThan(0);
    // Every kept older turn carries one label and one placeholder; the turns left out none of either.
    const keptOlder = turns.kept - 1;
    expect(keptOlder).toBeGreaterThan(0);
    expect(labelsShown(view)).toBe(keptOlder);
    expect(view.report.labelsInserted).toBe(keptOlder);
    expect(placeholdersShown(view)).toBe(keptOlder);
    expect(view.report.imagesReplaced).toBe(keptOlder);
  });

  it("counts a text kept whole within its marker's allowance as no excerpt", () => {
    // Text blocks just over maxOlderMessageTokens fit the allowance the excerpt marker has: shown whole.
    const messages = [
      new HumanMessage({ id: "h0", content: [{ type: "text", text: "x".repeat(2006) }, { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } }] }),
      new AIMessage({ id: "a0", content: "Noted." }),
      new HumanMessage({ id: "current", content: "And now?" }),
    ];
    for (const maxOlderMessageTokens of [200, 500, 1000]) {
      const view = buildContext({ messages, budget: { promptBudget: 8000, contextWindow: 32_768 }, maxOlderMessageTokens });
      expect(view.report.excerpted).toBe(excerptsShown(view));
    }
  });

  it("equals what the view shows, over random conversations (labels, placeholders, excerpts)", () => {
    const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
    let dropped = 0;
    let labelled = 0;
    let excerpted = 0;
    fc.assert(
      fc.property(
        conversationArb,
        fc.integer({ min: 1500, max: 12_000 }),
        fc.constantFrom(0, 4000),
        fc.boolean(),
        fc.constantFrom(undefined, 0),
        ({ turns, system }, promptBudget, recallBudget, imageInputs, dropStep) => {
          const messages = conversation(turns, system);
          let view: ContextView;
          try {
            // No pinned block: a pinned copy counts an image its excerpt leaves out (see PinnedBlock.imagesReplaced).
            const steps = dropStep === undefined ? {} : { dropStep };
            view = buildContext({ messages, budget: { contextWindow: 32_768, promptBudget, responseReserve: 4096 }, recallBudget, imageInputs, pinOpeningRequest: false, ...steps });
          } catch {
            return; // the mandatory part does not fit: the budget error, tested elsewhere
          }
          if (view.report.turns.dropped > 0) dropped++;
          if (view.report.labelsInserted > 0) labelled++;
          if (view.report.excerpted > 0) excerpted++;
          expect(view.report.labelsInserted).toBe(labelsShown(view));
          expect(view.report.imagesReplaced).toBe(placeholdersShown(view));
          expect(view.report.excerpted).toBe(excerptsShown(view));
        },
      ),
      { numRuns: 200, seed },
    );
    // Views that left turns out were checked, and views with each count.
    expect(dropped).toBeGreaterThan(20);
    expect(labelled).toBeGreaterThan(20);
    expect(excerpted).toBeGreaterThan(5);
  });
});
