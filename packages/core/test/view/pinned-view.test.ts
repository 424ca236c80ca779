import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import {
  buildContext,
  ContextViewError,
  createContextManager,
  createEstimator,
  InMemoryContextStore,
  pinMessage,
  type Summarizer,
} from "@contextview/core";
import { IMAGE_PLACEHOLDER } from "@contextview/core/internal";
import { isSummaryMessage } from "../../src/summarize/summary-message.js";
import { OPENING_REQUEST_LABEL, PINNED_LABEL } from "../../src/view/pinned.js";
import { resolveViewOptions } from "../../src/view/options.js";
import * as currentFormsModule from "../../src/view/current-forms.js";
import { conversation, deepFreeze, snapshot, turnMessages } from "@contextview/test-support";

const estimator = createEstimator();
const budget = { contextWindow: 32768, promptBudget: 3000, responseReserve: 4096 };
const GOAL = "Goal: port the invoicing module to Rust, keeping the public API.";
const DETAIL = "Change of plan: target Rust 1.80 and keep the CLI in Python.";

/** 80 turns: the goal first, a pinned detail at turn 40, filler, then the current request. */
function longThread(): BaseMessage[] {
  const turns = Array.from({ length: 80 }, (_, i) => ({
    text: i === 0 ? GOAL : `Turn ${i}: ${"status update ".repeat(20)}`,
    calls: i % 4 === 0 ? [{ parallel: 2, resultSize: 800 }] : [],
    answer: `Answer ${i}: ${"noted ".repeat(20)}`,
  }));
  const messages = conversation(turns, "You are a careful engineer.");
  const at = messages.findIndex((m) => typeof m.content === "string" && m.content.startsWith("Turn 40:"));
  messages.splice(at, 1, pinMessage(new HumanMessage({ id: "detail", content: DETAIL })));
  messages.push(new HumanMessage({ id: "now", content: "Your test hangs; add timeouts." }));
  return messages;
}

const textOfView = (view: readonly BaseMessage[]) => view.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));

describe("buildContext: pinned context", () => {
  it("keeps the opening request and a pinned message, in order, after the system message, within the limit", () => {
    const messages = deepFreeze(longThread());
    const before = snapshot(messages);
    const { messages: view, report } = buildContext({ messages, budget });
    expect(snapshot(messages)).toBe(before);
    expect(report.messages.dropped + report.messages.unread).toBeGreaterThan(messages.length / 2);
    const texts = textOfView(view);
    expect(view[0]).toBeInstanceOf(SystemMessage);
    expect(texts.slice(1, 5)).toEqual([OPENING_REQUEST_LABEL, GOAL, PINNED_LABEL, DETAIL]);
    expect(texts.at(-1)).toBe("Your test hangs; add timeouts.");
    expect(report.tokens.total).toBe(estimator.estimateMessages(view));
    expect(report.tokens.total).toBeLessThanOrEqual(report.limit);
    expect(report.tokens.pinned).toBe(estimator.estimateMessages(view.slice(1, 5)));
    expect(report.pinned.openingRequest).toMatchObject({ id: messages[1]?.id, role: "human", placement: "pinned", excerpted: false });
    expect(report.pinned.messages).toEqual([{ id: "detail", role: "human", tokens: estimator.estimateMessage(view[4] as BaseMessage), excerpted: false }]);
    // The report carries ids and estimates, never content.
    expect(JSON.stringify(report)).not.toContain("Rust");
    // Kept: what the walk read and did not drop, and the two pins from the part it never read.
    expect(report.messages.kept - (report.messages.read - report.messages.dropped)).toBe(2);
    expect(report.messages.read + report.messages.unread).toBe(report.messages.inCheckpoint);
  });

  it("shows nothing twice while the whole conversation fits, and costs nothing then", () => {
    const messages = conversation([{ text: GOAL, answer: "ok" }, { text: "next", answer: "done" }], "sys");
    messages[3] = pinMessage(messages[3] as BaseMessage);
    const { messages: view, report } = buildContext({ messages, budget });
    expect(view).toHaveLength(messages.length);
    expect(report.tokens.pinned).toBe(0);
    expect(report.pinned.openingRequest?.placement).toBe("in-view");
    expect(report.pinned.inView).toBe(1);
  });

  it("is off with pinOpeningRequest: false and pinnedBudget: 0", () => {
    const { messages: view, report } = buildContext({ messages: longThread(), budget, pinOpeningRequest: false, pinnedBudget: 0 });
    expect(textOfView(view)).not.toContain(GOAL);
    expect(textOfView(view)).not.toContain(DETAIL);
    expect(report.tokens.pinned).toBe(0);
    expect(report.pinned.openingRequest).toBeNull();
  });

  it("sends the pinned opening request's photo as a placeholder, counted, unless pinnedImages", () => {
    const photo = { type: "image_url", image_url: { url: `data:image/png;base64,${"iVBORw0KGgo".repeat(400)}` } };
    const thread = longThread();
    thread[1] = new HumanMessage({ id: thread[1]?.id as string, content: [{ type: "text", text: GOAL }, photo] });
    const messages = deepFreeze(thread);
    const before = snapshot(messages);
    const { messages: view, report } = buildContext({ messages, budget });
    expect(snapshot(messages)).toBe(before);
    expect(report.pinned.openingRequest).toMatchObject({ placement: "pinned", excerpted: false });
    expect(view[2]?.content).toEqual([{ type: "text", text: GOAL }, { type: "text", text: IMAGE_PLACEHOLDER }]);
    expect(report.imagesReplaced).toBe(1);
    expect(report.tokens.total).toBe(estimator.estimateMessages(view));

    const kept = buildContext({ messages, budget, pinnedImages: true });
    expect(kept.messages[2]?.content).toEqual(messages[1]?.content);
    expect(kept.report.imagesReplaced).toBe(0);
    expect(kept.report.tokens.pinned - report.tokens.pinned).toBe(estimator.estimateMessage(messages[1] as BaseMessage) - estimator.estimateMessage(view[2] as BaseMessage));
    expect(kept.report.tokens.pinned - report.tokens.pinned).toBeGreaterThan(1000);
  });

  it("takes a pin predicate", () => {
    const { messages: view, report } = buildContext({ messages: longThread(), budget, pin: (m) => typeof m.content === "string" && m.content.startsWith("Turn 20:") });
    expect(report.pinned.messages.map((m) => m.role)).toEqual(["human", "human"]);
    expect(textOfView(view).findIndex((t) => t.startsWith("Turn 20:"))).toBeLessThan(textOfView(view).indexOf(DETAIL));
  });

  it("gives way to the current request instead of failing: the oldest pins go first, then the opening request", () => {
    const messages = [
      new HumanMessage({ id: "goal", content: `${GOAL} ${"spec ".repeat(600)}` }),
      new AIMessage("ok"),
      pinMessage(new HumanMessage({ id: "p", content: `${DETAIL} ${"more ".repeat(600)}` })),
      new AIMessage("ok"),
      new HumanMessage({ id: "now", content: "question ".repeat(600) }),
    ];
    // The current request (653 tokens with the default estimator) fits; neither pinned item (~670 each) fits beside it.
    const limit = { contextWindow: 32768, promptBudget: 1200, responseReserve: 4096 };
    const { messages: view, report } = buildContext({ messages, budget: limit });
    expect(view.at(-1)?.content).toBe(messages[4]?.content);
    expect(report.tokens.total).toBeLessThanOrEqual(report.limit);
    expect(report.pinned.dropped).toBe(1);
    expect(report.pinned.openingRequest?.placement).toBe("no-room");
    // With room for both beside the current request (not for their turns), the same conversation pins both.
    const roomy = buildContext({ messages, budget: { ...limit, promptBudget: 2200 } });
    expect(roomy.report.pinned.openingRequest?.placement).toBe("pinned");
    expect(roomy.report.pinned.messages.map((m) => m.id)).toEqual(["p"]);
  });

  it("keeps the pins while the current turn fits beside them in its least form, fitting the turn once", () => {
    const fitted = jest.spyOn(currentFormsModule, "chooseCurrentTurn");
    const rows = JSON.stringify({ total: 400, rows: Array.from({ length: 400 }, (_, i) => ({ id: `r${i}`, note: `row ${i} of the ledger export` })) });
    const turn = (request: string) => [
      new HumanMessage({ id: "goal", content: `${GOAL} ${"spec ".repeat(300)}` }),
      new AIMessage(`ok ${"noted ".repeat(300)}`),
      pinMessage(new HumanMessage({ id: "p", content: DETAIL })),
      new AIMessage(`ok ${"noted ".repeat(300)}`),
      new HumanMessage({ id: "now", content: request }),
      new AIMessage({ id: "a", content: "", tool_calls: [{ id: "c1", name: "ledger", args: { month: "March" }, type: "tool_call" }] }),
      new ToolMessage({ id: "t", tool_call_id: "c1", content: rows }),
    ];
    // The result alone is ~7,000 tokens: it is compacted to make room, and the pins stay.
    const limit = { contextWindow: 32768, promptBudget: 1500, responseReserve: 4096 };
    const kept = buildContext({ messages: turn("Which rows are in March?"), budget: limit });
    expect(fitted).toHaveBeenCalledTimes(1);
    expect(kept.report.tokens.total).toBeLessThanOrEqual(kept.report.limit);
    expect(kept.report.pinned.openingRequest?.placement).toBe("pinned");
    expect(kept.report.pinned.messages.map((m) => m.id)).toEqual(["p"]);
    // A request so long that its least form leaves no room beside it: the pins give way, still fitted once.
    fitted.mockClear();
    const crowded = buildContext({ messages: turn(`Which rows are in March? ${"context ".repeat(1100)}`), budget: limit });
    expect(fitted).toHaveBeenCalledTimes(1);
    expect(crowded.report.tokens.total).toBeLessThanOrEqual(crowded.report.limit);
    expect(crowded.report.pinned.openingRequest?.placement).toBe("no-room");
    expect(crowded.report.pinned.dropped).toBe(1);
    fitted.mockRestore();
  });

  it("validates the options with typed errors naming the field", () => {
    expect(resolveViewOptions({})).toMatchObject({ pinOpeningRequest: true, maxOpeningRequestTokens: 1500, pinnedBudget: 3000 });
    const cases: [object, string][] = [
      [{ pinOpeningRequest: "yes" }, "pinOpeningRequest"],
      [{ maxOpeningRequestTokens: 10 }, "maxOpeningRequestTokens"],
      [{ pinnedBudget: -1 }, "pinnedBudget"],
      [{ pin: 3 }, "pin"],
      [{ priorMessages: "x" }, "priorMessages"],
    ];
    for (const [options, field] of cases) {
      let error: unknown;
      try {
        buildContext({ messages: turnMessages({ text: "hi" }), ...options } as never);
      } catch (caught) {
        error = caught;
      }
      expect(ContextViewError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: "INVALID_OPTION", details: { field } });
      expect((error as Error).message).toContain(`\`${field}\``);
    }
  });
});

describe("createContextManager: pins survive a summary", () => {
  it("pins the opening request and a pinned message from the summarized prefix", async () => {
    const summarizer: Summarizer = async () => "The user is porting a module.";
    const manager = createContextManager({ budget, summarizer, store: new InMemoryContextStore(), keepMinTokens: 300, keepMaxTokens: 600 });
    const messages = longThread();
    const view = await manager.build({ messages, key: { userId: "u", conversationId: "c" } });
    expect(view.report.compaction.kind).toBe("summary");
    const texts = textOfView(view.messages);
    expect(view.messages.some((m) => isSummaryMessage(m))).toBe(true);
    expect(texts.slice(1, 5)).toEqual([OPENING_REQUEST_LABEL, GOAL, PINNED_LABEL, DETAIL]);
    expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
    expect(() => createContextManager({ pin: "x" as never })).toThrow(/`pin`/);
  });
});
