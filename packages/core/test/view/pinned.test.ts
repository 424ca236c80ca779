import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { buildContext, ContextViewError, createEstimator, pinMessage } from "@contextview/core";
import { CONTINUATION_LABEL, IMAGE_PLACEHOLDER } from "@contextview/core/internal";
import { OPENING_REQUEST_LABEL, PINNED_LABEL } from "../../src/view/pinned.js";
import { PIN_FIELD } from "../../src/view/pin-message.js";
import { collectPinned, type CollectPinnedInput, type PinnedCandidates } from "../../src/view/pinned";
import { fitPinned, pinnedBlock } from "../../src/view/pinned-block";
import { excerptEnds } from "../../src/view/pinned-bound";
import { NO_IMAGE_INPUT_PLACEHOLDER } from "../../src/view/images";
import { isMarkedPinned } from "../../src/view/pin-message";
import { markedIndices } from "../../src/view/message-marks";
import { deepFreeze, geminiOrderProblems, snapshot, thrownBy, viewProblems } from "@contextview/test-support";

const estimator = createEstimator();

const errorOf = (run: () => unknown) => thrownBy<ContextViewError>(run);

function call(id: string, ids: string[], content = "Looking it up."): AIMessage {
  return new AIMessage({ id, content, tool_calls: ids.map((c) => ({ id: c, name: "search", args: { q: c }, type: "tool_call" as const })) });
}
const result = (id: string, callId: string, content = `rows of ${callId}`) => new ToolMessage({ id, tool_call_id: callId, content });

/** A conversation: system, opening request, a tool exchange, a pinned constraint, more turns, the current request. */
function thread(): BaseMessage[] {
  return [
    new SystemMessage({ id: "s", content: "You are careful." }),
    new HumanMessage({ id: "h0", content: "Goal: migrate the billing service to Postgres." }),
    call("a0", ["c1", "c2"]),
    result("t1", "c1"),
    result("t2", "c2"),
    new AIMessage({ id: "a1", content: "Done with the survey." }),
    new HumanMessage({ id: "h1", content: "Constraint: never touch the prod database." }),
    new AIMessage({ id: "a2", content: "Understood." }),
    new HumanMessage({ id: "h2", content: "Now add timeouts to the tests." }),
    new AIMessage({ id: "a3", content: "Added." }),
    new HumanMessage({ id: "h3", content: "Why does the test hang?" }),
  ];
}

const base = (messages: readonly BaseMessage[], extra: Partial<CollectPinnedInput> = {}): CollectPinnedInput => ({
  messages,
  lead: 1,
  currentStart: messages.length - 1,
  pinOpeningRequest: true,
  maxOpeningRequestTokens: 1500,
  pinnedBudget: 3000,
  estimator,
  ...extra,
});

const withPins = (messages: BaseMessage[], ids: string[]) => messages.map((m) => (ids.includes(m.id as string) ? pinMessage(m) : m));

describe("pinMessage", () => {
  it("returns a marked copy with the same id and leaves the original as it was", () => {
    const original = deepFreeze(new HumanMessage({ id: "h", content: "keep me", additional_kwargs: { other: 1 } }));
    const before = snapshot([original]);
    const pinned = pinMessage(original);
    expect(snapshot([original])).toBe(before);
    expect(pinned).not.toBe(original);
    expect(pinned).toBeInstanceOf(HumanMessage);
    expect(pinned.id).toBe("h");
    expect(pinned.additional_kwargs).toEqual({ other: 1, [PIN_FIELD]: true });
    expect(isMarkedPinned(original)).toBe(false);
    expect(isMarkedPinned(pinned)).toBe(true);
  });

  it("is read back from every serialized form", () => {
    const pinned = pinMessage(new AIMessage({ id: "a", content: "x" }));
    const lc = JSON.parse(JSON.stringify(pinned)) as Record<string, unknown>;
    expect(isMarkedPinned(lc)).toBe(true);
    expect(isMarkedPinned({ type: "ai", data: { content: "x", additional_kwargs: { [PIN_FIELD]: true } } })).toBe(true);
    expect(isMarkedPinned({ role: "user", content: "x", additional_kwargs: { [PIN_FIELD]: true } })).toBe(true);
    expect(isMarkedPinned({ role: "user", content: "x", additional_kwargs: { [PIN_FIELD]: "yes" } })).toBe(false);
  });

  it("refuses what is not a message with a typed error", () => {
    const error = errorOf(() => pinMessage("text" as never));
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect(error.code).toBe("INVALID_MESSAGES");
    expect(error.details["field"]).toBe("message");
  });
});

describe("markedIndices", () => {
  it("finds the same pins as a full scan when the conversation grows, or a message is pinned or unpinned in place", () => {
    const base = thread();
    const fullScan = (messages: readonly BaseMessage[]) => messages.flatMap((m, i) => (isMarkedPinned(m) ? [i] : []));
    const calls: BaseMessage[][] = [];
    calls.push(withPins(base, ["h1"]));
    calls.push([...(calls[0] as BaseMessage[])]);
    calls.push([...(calls[1] as BaseMessage[]), pinMessage(new HumanMessage({ id: "h4", content: "pinned later" }))]);
    const repinned = [...(calls[2] as BaseMessage[])];
    repinned[3] = pinMessage(repinned[3] as BaseMessage);
    calls.push(repinned);
    const unpinned = [...repinned];
    unpinned[6] = new HumanMessage({ id: "h1", content: "Constraint: never touch the prod database." });
    calls.push(unpinned);
    calls.push(unpinned.slice(0, 5));
    for (const messages of calls) expect(markedIndices(messages)).toEqual(fullScan(messages));
    expect(markedIndices(calls[4] as BaseMessage[])).toEqual([3, 11]);
  });
});

describe("excerptEnds", () => {
  it.each([
    ["short", 10, "short"],
    ["a".repeat(50) + "b".repeat(50), 10, `aaaaaa\n[… pinned excerpt: 90 of 100 characters omitted …]\nbbbb`],
  ])("keeps the beginning and the end of %#", (text, max, expected) => {
    expect(excerptEnds(text, max)).toBe(expected);
  });

  it("never splits a surrogate pair", () => {
    const out = excerptEnds("🎉".repeat(40), 11);
    expect(out).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(out).not.toMatch(/(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});

describe("collectPinned and pinnedBlock: the opening request", () => {
  it("pins the first user message, labelled, when its turn has left the view", () => {
    const messages = deepFreeze(thread());
    const before = snapshot(messages);
    const pinned = collectPinned(base(messages));
    const block = pinnedBlock(pinned, 8, messages.slice(8), estimator);
    expect(snapshot(messages)).toBe(before);
    expect(block.messages.map((m) => m.content)).toEqual([OPENING_REQUEST_LABEL, "Goal: migrate the billing service to Postgres."]);
    expect(block.messages[1]).not.toBe(messages[1]);
    expect(block.report.openingRequest).toEqual({ id: "h0", role: "human", tokens: estimator.estimateMessage(messages[1] as BaseMessage), excerpted: false, placement: "pinned" });
    expect(block.tokens).toBe(estimator.estimateMessages(block.messages));
    expect(block.tokens).toBe(pinned.reserve);
  });

  it("is not duplicated while its turn is in the view", () => {
    const messages = thread();
    const pinned = collectPinned(base(messages));
    const kept = messages.slice(1);
    const block = pinnedBlock(pinned, 1, kept, estimator);
    expect(block.messages).toEqual([]);
    expect(block.tokens).toBe(0);
    expect(block.report.openingRequest?.placement).toBe("in-view");
  });

  it("is shown again when the view keeps its turn only as an excerpt", () => {
    const messages = thread();
    const pinned = collectPinned(base(messages));
    const kept = [new HumanMessage({ id: "h0", content: "Goal: migrate…\n[… excerpt: 20 of 46 characters omitted]" }), ...messages.slice(2)];
    expect(pinnedBlock(pinned, 1, kept, estimator).report.openingRequest?.placement).toBe("pinned");
  });

  it("reserves nothing when it is the current request, or when pinning it is off", () => {
    const only = [new HumanMessage({ id: "h", content: "The one request." }), new AIMessage("Working on it.")];
    const current = collectPinned(base(only, { lead: 0, currentStart: 0 }));
    expect(current.reserve).toBe(0);
    expect(pinnedBlock(current, 0, only, estimator).report.openingRequest?.placement).toBe("in-view");
    const off = collectPinned(base(thread(), { pinOpeningRequest: false }));
    expect(off.opening).toBeNull();
    expect(off.reserve).toBe(0);
  });

  it("becomes a marked excerpt of its beginning and end beyond maxOpeningRequestTokens", () => {
    const long = `BEGIN ${"spec line. ".repeat(2000)} END-OF-REQUEST`;
    const messages = [new HumanMessage({ id: "h0", content: long }), new AIMessage("ok"), new HumanMessage("next")];
    const pinned = collectPinned(base(messages, { lead: 0, currentStart: 2, maxOpeningRequestTokens: 200 }));
    const block = pinnedBlock(pinned, 2, messages.slice(2), estimator);
    const text = String(block.messages[1]?.content);
    expect(text.startsWith("BEGIN ")).toBe(true);
    expect(text.endsWith("END-OF-REQUEST")).toBe(true);
    expect(text).toMatch(/pinned excerpt: \d+ of \d+ characters omitted/);
    expect(estimator.estimateText(text)).toBeLessThanOrEqual(200 + 20);
    expect(block.report.openingRequest?.excerpted).toBe(true);
  });

  it("is found among prior messages (a prefix a summary stands for)", () => {
    const messages = thread();
    const pinned = collectPinned(base([messages[0] as BaseMessage, ...messages.slice(6)], { prior: messages.slice(1, 6), currentStart: 5 }));
    expect(pinned.opening?.start).toBe(-1);
    const block = pinnedBlock(pinned, 1, messages.slice(6), estimator);
    expect(block.messages[1]?.id).toBe("h0");
  });
});

describe("collectPinned and pinnedBlock: the application's pins", () => {
  it("pins a tool result with its call and all sibling results, in conversation order, after the opening request", () => {
    const messages = withPins(thread(), ["t2", "h1"]);
    const pinned = collectPinned(base(messages));
    const block = pinnedBlock(pinned, 8, messages.slice(8), estimator);
    expect(block.messages.map((m) => m.id ?? m.content)).toEqual([OPENING_REQUEST_LABEL, "h0", PINNED_LABEL, "a0", "t1", "t2", "h1"]);
    expect(block.report.messages.map((m) => [m.id, m.role])).toEqual([
      ["a0", "ai"],
      ["t1", "tool"],
      ["t2", "tool"],
      ["h1", "human"],
    ]);
    expect(block.report.messages.every((m) => m.tokens > 0 && !m.excerpted)).toBe(true);
    expect(block.tokens).toBeLessThanOrEqual(pinned.reserve);
  });

  it("labels a pinned tool call that follows a pinned AI reply, so ordering rules hold", () => {
    const messages = withPins(thread(), ["a1", "a0"]);
    // a1 (a reply) comes after a0 in the conversation; pin a later tool call after a reply too.
    const more = [...messages.slice(0, 10), pinMessage(call("a9", ["c9"])), result("t9", "c9"), new HumanMessage({ id: "h9", content: "go" })];
    const pinned = collectPinned(base(more, { currentStart: more.length - 1 }));
    const block = pinnedBlock(pinned, more.length - 1, [], estimator);
    const ids = block.messages.map((m) => m.id ?? m.content);
    expect(ids).toEqual([OPENING_REQUEST_LABEL, "h0", PINNED_LABEL, "a0", "t1", "t2", "a1", CONTINUATION_LABEL, "a9", "t9"]);
    expect(block.labels).toBe(1);
    expect(block.tokens).toBeLessThanOrEqual(pinned.reserve);
  });

  it("counts pins of the current turn and of kept turns as in view, and never shows a kept tool exchange twice", () => {
    const messages = withPins(thread(), ["t1", "h2", "h3"]);
    const pinned = collectPinned(base(messages));
    expect(pinned.inCurrent).toBe(1);
    const block = pinnedBlock(pinned, 2, messages.slice(2), estimator);
    // Only the opening request (index 1, before the cut) is shown.
    expect(block.messages.map((m) => m.id ?? m.content)).toEqual([OPENING_REQUEST_LABEL, "h0"]);
    expect(block.report.messages).toEqual([]);
    expect(block.report.inView).toBe(1 + 3 + 1);
  });

  it("excerpts the oldest pins first to fit pinnedBudget, then leaves out the oldest", () => {
    const big = (id: string, tag: string) => pinMessage(new HumanMessage({ id, content: `${tag} ${"detail ".repeat(300)} ${tag}-END` }));
    const messages = [big("p1", "FIRST"), new AIMessage("ok"), big("p2", "SECOND"), new AIMessage("ok"), new HumanMessage({ id: "now", content: "now" })];
    const each = estimator.estimateMessage(messages[0] as BaseMessage);
    const pinned = collectPinned(base(messages, { lead: 0, currentStart: 4, pinOpeningRequest: false, pinnedBudget: Math.round(each * 1.5) }));
    const block = pinnedBlock(pinned, 4, [], estimator);
    expect(block.report.messages.map((m) => [m.id, m.excerpted])).toEqual([
      ["p1", true],
      ["p2", false],
    ]);
    expect(block.report.excerpted).toBe(1);
    expect(String(block.messages[1]?.content)).toMatch(/^FIRST[\s\S]*FIRST-END$/);
    expect(block.report.messages.reduce((sum, m) => sum + m.tokens, 0)).toBeLessThanOrEqual(Math.round(each * 1.5));

    // Two excerpts at their smallest do not fit: the oldest is left out. (The smallest excerpt
    // is measured at 47 tokens with the default estimator, so 80 holds one and not two.)
    const tiny = collectPinned(base(messages, { lead: 0, currentStart: 4, pinOpeningRequest: false, pinnedBudget: 80 }));
    const shown = pinnedBlock(tiny, 4, [], estimator).report;
    expect(shown.messages.map((m) => [m.id, m.excerpted])).toEqual([["p2", true]]);
    expect(shown.dropped).toBe(1);
    expect(shown.messages[0]?.tokens).toBeLessThanOrEqual(80);
  });

  it("counts what cannot be pinned: a misplaced system message, an orphan result, a call without all its results", () => {
    const messages = [
      new HumanMessage({ id: "h0", content: "start" }),
      pinMessage(new SystemMessage({ id: "s1", content: "late system" })),
      call("a0", ["c1", "c2"]),
      pinMessage(result("t1", "c1")),
      new AIMessage({ id: "a1", content: "reply" }),
      pinMessage(result("t-ghost", "ghost")),
      new HumanMessage({ id: "now", content: "now" }),
    ];
    const pinned = collectPinned(base(messages, { lead: 0, currentStart: 6 }));
    expect(pinned.pins).toEqual([]);
    expect(pinned.unpinnable).toBe(3);
  });

  it("takes a pin predicate with the index in the whole conversation, and validates it", () => {
    const messages = thread();
    const seen: number[] = [];
    const pinned = collectPinned(
      base(messages, {
        pinOpeningRequest: false,
        pin: (m, i) => {
          seen.push(i);
          return m.id === "h2";
        },
      }),
    );
    expect(seen).toEqual(Array.from({ length: messages.length - 1 }, (_, i) => i + 1));
    expect(pinned.pins.map((p) => p.originals[0]?.id)).toEqual(["h2"]);
    const error = errorOf(() => collectPinned(base(messages, { pin: "yes" as never })));
    expect([error.code, error.details["field"]]).toEqual(["INVALID_OPTION", "pin"]);
  });

  it("reads serialized messages as LangGraph checkpoints hold them", () => {
    const messages = JSON.parse(JSON.stringify(withPins(thread(), ["h1"]))) as Record<string, unknown>[];
    const pinned = collectPinned({ ...base([]), messages, currentStart: messages.length - 1 });
    expect(pinnedBlock(pinned, 8, [], estimator).messages.map((m) => m.id ?? m.content)).toEqual([OPENING_REQUEST_LABEL, "h0", PINNED_LABEL, "h1"]);
  });
});

describe("images of pinned copies", () => {
  const photo = { type: "image_url", image_url: { url: `data:image/png;base64,${"iVBORw0KGgo".repeat(400)}` } };
  const GOAL = "Goal: migrate the billing service to Postgres.";
  /** {@link thread} whose opening request carries a photo. */
  const withPhoto = (): BaseMessage[] => {
    const messages = thread();
    messages[1] = new HumanMessage({ id: "h0", content: [{ type: "text", text: GOAL }, photo] });
    return messages;
  };

  it("replaces the opening request's image by a placeholder in its pinned copy, counted, and leaves the input as it was", () => {
    const messages = deepFreeze(withPhoto());
    const before = snapshot(messages);
    const pinned = collectPinned(base(messages));
    const copy = pinned.opening?.messages[0] as BaseMessage;
    expect(copy.content).toEqual([{ type: "text", text: GOAL }, { type: "text", text: IMAGE_PLACEHOLDER }]);
    expect(copy.id).toBe("h0");
    expect(pinned.opening?.tokens).toBe(estimator.estimateMessage(copy));
    expect(pinned.opening?.tokens).toBeLessThan(estimator.estimateMessage(messages[1] as BaseMessage) - 1000);
    const block = pinnedBlock(pinned, 8, messages.slice(8), estimator);
    expect(block.messages[1]?.content).toEqual(copy.content);
    expect(block.imagesReplaced).toBe(1);
    expect(block.tokens).toBe(pinned.reserve);
    expect(snapshot(messages)).toBe(before);
    expect((messages[1] as BaseMessage).content).toEqual([{ type: "text", text: GOAL }, photo]);
  });

  it("keeps the image with pinnedImages: true", () => {
    const messages = deepFreeze(withPhoto());
    const pinned = collectPinned(base(messages, { pinnedImages: true }));
    expect(pinned.opening?.messages[0]?.content).toEqual(messages[1]?.content);
    expect(pinned.opening?.tokens).toBe(estimator.estimateMessage(messages[1] as BaseMessage));
    expect(pinnedBlock(pinned, 8, messages.slice(8), estimator).imagesReplaced).toBe(0);
  });

  it("counts nothing while the opening request's turn is in the view: that is the turn's own copy", () => {
    const messages = withPhoto();
    const block = pinnedBlock(collectPinned(base(messages)), 1, messages.slice(1), estimator);
    expect(block.report.openingRequest?.placement).toBe("in-view");
    expect(block.messages).toEqual([]);
    expect(block.imagesReplaced).toBe(0);
  });

  it("counts the images an excerpted opening request names instead of showing", () => {
    const messages = withPhoto();
    messages[1] = new HumanMessage({ id: "h0", content: [{ type: "text", text: `${GOAL} ${"spec line. ".repeat(2000)}` }, photo] });
    const block = pinnedBlock(collectPinned(base(messages, { maxOpeningRequestTokens: 200, pinnedImages: true })), 8, messages.slice(8), estimator);
    expect(String(block.messages[1]?.content)).toMatch(/\[1 image\(s\) of this pinned message omitted\]$/);
    expect(block.imagesReplaced).toBe(1);
  });

  it("replaces the images of the application's pins too, unless pinnedImages", () => {
    const messages = thread();
    messages[6] = pinMessage(new HumanMessage({ id: "h1", content: [{ type: "text", text: "Constraint: this diagram." }, photo] }));
    const block = pinnedBlock(collectPinned(base(messages)), 8, messages.slice(8), estimator);
    expect(block.messages.at(-1)?.content).toEqual([{ type: "text", text: "Constraint: this diagram." }, { type: "text", text: IMAGE_PLACEHOLDER }]);
    expect(block.imagesReplaced).toBe(1);
    const kept = pinnedBlock(collectPinned(base(messages, { pinnedImages: true })), 8, messages.slice(8), estimator);
    expect(kept.messages.at(-1)?.content).toEqual(messages[6]?.content);
    expect(kept.imagesReplaced).toBe(0);
  });

  it("uses the no-image-input placeholder when the model takes no image input, whatever pinnedImages says", () => {
    const messages = withPhoto();
    const block = pinnedBlock(collectPinned(base(messages, { imageInputs: false, pinnedImages: true })), 8, messages.slice(8), estimator);
    expect(block.messages[1]?.content).toEqual([{ type: "text", text: GOAL }, { type: "text", text: NO_IMAGE_INPUT_PLACEHOLDER }]);
    expect(block.imagesReplaced).toBe(1);
  });
});

describe("fitPinned", () => {
  it("leaves out the oldest pins first, then the opening request, to leave room for the current request", () => {
    const messages = withPins(thread(), ["t1", "h1"]);
    const pinned = collectPinned(base(messages));
    const opening = estimator.estimateMessage(new HumanMessage(OPENING_REQUEST_LABEL)) + (pinned.opening?.tokens ?? 0);
    expect(fitPinned(pinned, pinned.reserve, estimator)).toBe(pinned);
    const fewer: PinnedCandidates = fitPinned(pinned, pinned.reserve - 1, estimator);
    expect(fewer.pins.map((p) => p.originals[0]?.id)).toEqual(["h1"]);
    expect(fewer.dropped).toBe(3);
    const none = fitPinned(pinned, opening, estimator);
    expect(none.pins).toEqual([]);
    expect(none.reserve).toBe(opening);
    const nothing = fitPinned(pinned, opening - 1, estimator);
    expect(nothing.reserve).toBe(0);
    const block = pinnedBlock(nothing, 8, [], estimator);
    expect(block.messages).toEqual([]);
    expect(block.report.openingRequest?.placement).toBe("no-room");
  });
});

describe("an opening request the application pinned too", () => {
  it("counts as a pinned message left out when there is no room for it", () => {
    // Found by the pinned-context property test: a 1,000-token image request, pinned, with a 300-token budget
    // (its image kept: as a placeholder the request would fit).
    const image = { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } };
    const messages = deepFreeze([
      pinMessage(new HumanMessage({ id: "h-1", content: [{ type: "text", text: "budget" }, image] })),
      new AIMessage({ id: "a-2", content: "", tool_calls: [{ id: "c-1", name: "search", args: {} }] }),
      new ToolMessage({ id: "t-3", tool_call_id: "c-1", content: "x".repeat(5000) }),
      new AIMessage({ id: "a-4", content: "" }),
      new HumanMessage({ id: "h-5", content: "budget" }),
    ]);
    const { report } = buildContext({ messages, budget: { contextWindow: 32768, promptBudget: 300, responseReserve: 4096 }, maxOpeningRequestTokens: 50, pinnedBudget: 1, pinnedImages: true });
    expect(report.pinned.openingRequest?.placement).toBe("no-room");
    expect(report.pinned.dropped).toBe(1);
  });
});

describe("pinned answers of different turns", () => {
  it("get a continuation label between them (no two model turns in a row), charged within the limit", () => {
    // Two answers pinned, the user message between them not: in the block they would be adjacent assistant messages.
    const messages = [
      new HumanMessage({ id: "h0", content: "Track my budget." }),
      pinMessage(new AIMessage({ id: "a0", content: "Budget noted: 400 a month for food." })),
      new HumanMessage({ id: "h1", content: "And rent?" }),
      pinMessage(new AIMessage({ id: "a1", content: "Rent noted: 900 a month." })),
      ...Array.from({ length: 30 }, (_, i) => [new HumanMessage({ id: `q${i}`, content: `Question ${i} about something else entirely, with some words to fill it.` }), new AIMessage({ id: `r${i}`, content: `Answer ${i} about something else entirely, with some words to fill it.` })]).flat(),
      new HumanMessage({ id: "now", content: "What is my food budget?" }),
    ];
    const view = buildContext({ messages, budget: { contextWindow: 32768, promptBudget: 700 }, recallBudget: 0 });
    const ids = view.messages.map((m) => m.id ?? (m.content === CONTINUATION_LABEL ? "label" : ""));
    expect(ids.slice(ids.indexOf("a0"), ids.indexOf("a1") + 1)).toEqual(["a0", "label", "a1"]);
    expect(geminiOrderProblems(view.messages)).toEqual([]);
    expect(view.report.pinned.messages.map((m) => m.id)).toEqual(["a0", "a1"]);
    expect(viewProblems({ conversation: messages, messages, estimator }, view)).toEqual([]);
  });
});
