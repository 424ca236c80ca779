import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, createEstimator, pinMessage, type BuildContextInput, type ContextView } from "@contextview/core";
import { IMAGE_PLACEHOLDER } from "@contextview/core/internal";
import { OPENING_REQUEST_LABEL } from "../../src/view/pinned.js";
import { conversation, conversationArb, deepFreeze, itHoldsOver, refusedCase, snapshot, viewProblems, type LawCase } from "@contextview/test-support";

/** The default estimator: every view here is built with it. */
const estimator = createEstimator();

/** A content with each image block (the kinds `conversation` makes) as the older-turn placeholder. */
const withPlaceholders = (content: BaseMessage["content"]): BaseMessage["content"] =>
  typeof content === "string"
    ? content
    : (content.map((block) => (block.type === "image_url" || block.type === "image" ? { type: "text", text: IMAGE_PLACEHOLDER } : block)) as BaseMessage["content"]);

/**
 * Random conversations with random pins, pin bounds, budgets and summarized prefixes:
 * every law holds (one `it` per law, so a failure names its law) and pins keep their
 * promises. The views are built once (120 conversations; the seed is printed on
 * failure, FUZZ_SEED replays it) and every check reads them.
 */
describe("buildContext with pinned context (property)", () => {
  const settingsArb = fc.record({
    pins: fc.array(fc.nat(), { maxLength: 8 }),
    pinOpeningRequest: fc.boolean(),
    maxOpeningRequestTokens: fc.integer({ min: 50, max: 2000 }),
    pinnedBudget: fc.integer({ min: 0, max: 4000 }),
    pinnedImages: fc.boolean(),
    promptBudget: fc.integer({ min: 300, max: 16000 }),
    serialized: fc.boolean(),
    summary: fc.boolean(),
    /** Share of the history before the current request moved into `priorMessages` (a summarized prefix). */
    priorShare: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
  });

  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  type Settings = typeof settingsArb extends fc.Arbitrary<infer T> ? T : never;
  interface Case extends LawCase {
    s: Settings;
    built: BaseMessage[];
    pinnedAt: Set<number>;
    prior: BaseMessage[];
    result?: ContextView;
  }
  const cases: Case[] = [];

  beforeAll(() => {
    for (const [{ turns, system }, s] of fc.sample(fc.tuple(conversationArb, settingsArb), { numRuns: 120, seed })) {
      const plain = conversation(turns, system);
      const pinnedAt = new Set(plain.length > 0 ? s.pins.map((p) => p % plain.length) : []);
      const built = plain.map((m, i) => (pinnedAt.has(i) ? pinMessage(m) : m));
      const lead = built.findIndex((m) => m.type !== "system");
      const lastHuman = built.map((m) => m.type).lastIndexOf("human");
      let kept: BaseMessage[] = built;
      let prior: BaseMessage[] = [];
      if (s.priorShare !== undefined && lead >= 0 && lastHuman > lead) {
        const k = lead + Math.floor(s.priorShare * (lastHuman - lead));
        prior = built.slice(lead, k);
        kept = [...built.slice(0, lead), ...built.slice(k)];
      }
      const asInput = (list: BaseMessage[]) => deepFreeze(s.serialized ? (JSON.parse(JSON.stringify(list)) as Record<string, unknown>[]) : list);
      const messages = asInput(kept);
      const before = snapshot(messages);
      const input: BuildContextInput = {
        messages,
        budget: { contextWindow: 32768, promptBudget: s.promptBudget, responseReserve: 4096 },
        pinOpeningRequest: s.pinOpeningRequest,
        maxOpeningRequestTokens: s.maxOpeningRequestTokens,
        pinnedBudget: s.pinnedBudget,
        pinnedImages: s.pinnedImages,
        ...(prior.length > 0 ? { priorMessages: asInput(prior) } : {}),
        ...(s.summary ? { historyMessage: new AIMessage("Evidence of earlier turns: the user tracks a monthly budget.") } : {}),
      };
      let result: ContextView;
      try {
        result = buildContext(input);
      } catch (error) {
        cases.push({ s, built, pinnedAt, prior, ...refusedCase(error, snapshot(messages) === before) });
        continue;
      }
      cases.push({ s, built, pinnedAt, prior, result, problems: viewProblems({ conversation: built, messages, before, estimator, rebuild: () => buildContext(input).messages }, result) });
    }
  });
  const views = () => cases.filter((c): c is Case & { result: ContextView } => c.result !== undefined);

  itHoldsOver(cases, seed, "with pins");

  it("keeps pinned messages in conversation order, and in the view", () => {
    for (const { built, result } of views()) {
      const { messages: view, report } = result;
      const position = new Map(built.map((m, i) => [m.id as string, i]));
      const order = report.pinned.messages.map((m) => position.get(m.id as string) as number);
      expect(order).toEqual([...order].sort((a, b) => a - b));
      for (const pinned of report.pinned.messages) expect(view.some((m) => m.id === pinned.id)).toBe(true);
    }
  });

  it("puts a pinned opening request right after the system message, labelled, verbatim unless excerpted (images as placeholders unless pinnedImages)", () => {
    for (const { s, built, result } of views()) {
      const { messages: view, report } = result;
      const start = view[0]?.type === "system" ? 1 : 0;
      const opening = report.pinned.openingRequest;
      if (opening?.placement === "pinned") {
        expect(view[start]?.content).toBe(OPENING_REQUEST_LABEL);
        const original = built.find((m) => m.type === "human") as BaseMessage;
        expect(view[start + 1]?.id).toBe(original.id);
        if (!opening.excerpted) expect(view[start + 1]?.content).toEqual(s.pinnedImages ? original.content : withPlaceholders(original.content));
      }
      if (!s.pinOpeningRequest) expect(opening).toBeNull();
    }
  });

  it("shows every pinned user message when nothing is left out", () => {
    for (const { s, built, pinnedAt, result } of views()) {
      const { messages: view, report } = result;
      if (report.pinned.dropped === 0 && s.pinnedBudget > 0) {
        for (const i of pinnedAt) {
          const m = built[i] as BaseMessage;
          if (m.type === "human") expect(view.some((v) => v.id === m.id)).toBe(true);
        }
      }
    }
  });

  it("reaches every path: pins shown, the opening pinned, excerpts, pins left out, prior messages", () => {
    const seen = { pinsShown: 0, openingPinned: 0, excerpted: 0, dropped: 0, prior: 0 };
    for (const { prior, result } of views()) {
      const { report } = result;
      if (report.pinned.messages.length > 0) seen.pinsShown++;
      if (report.pinned.openingRequest?.placement === "pinned") seen.openingPinned++;
      if (report.pinned.excerpted > 0) seen.excerpted++;
      if (report.pinned.dropped > 0) seen.dropped++;
      if (prior.length > 0) seen.prior++;
    }
    const unreached = Object.entries(seen).flatMap(([path, count]) => (count > 0 ? [] : [path]));
    expect({ seed, unreached }).toEqual({ seed, unreached: [] });
  });
});
