import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, createEstimator } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { conversation, conversationArb } from "@contextview/test-support";

/**
 * Issue 48, "with steps, the forms inside the cached prefix change only at anchors":
 * over random conversations replayed call by call (a view for every assistant message,
 * built from the messages before it, default steps), two consecutive views that keep the
 * same oldest older message show every older message of the first again, in order and
 * in the same form. Anything else re-sends the prompt from that message on between
 * anchors. What may still change, each named where it is allowed below (found by this
 * test; what they cost on `pnpm eval` is in docs/evaluation.md):
 * - a tool result the second view clears: a clear step (results clear at a stable anchor result, see `clearStep`);
 * - every older result, when compaction starts (the whole history stopped fitting) or stops (it fits again);
 * - the turn right before the request, shown smaller beside large current results (`besideHistory`) and back after;
 * - the oldest kept turn shown with its results cleared below the window floor (`clearedNextTurn`), and back when it fits;
 * - a turn of the band of turns kept with their results cleared shown whole again, when the anchor of the turns
 *   shown whole after the band moves back (the room grew; see `clearedBand`): only what follows it is sent anew.
 */
describe("cache steps (property)", () => {
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const budgetArb = fc.record({ promptBudget: fc.integer({ min: 1500, max: 12000 }), clearStep: fc.constantFrom(1, 4, 32), summary: fc.boolean() });
  const broken: string[] = [];
  let held = 0;
  let moved = 0;

  beforeAll(() => {
    const samples = fc.sample(fc.tuple(conversationArb, budgetArb), { numRuns: 15, seed });
    samples.forEach(([{ turns, system }, { promptBudget, clearStep, summary }], c) => {
      // Up to 16 turns: a view for every call of each is built, and anchors move within a few turns.
      const messages = conversation(turns.slice(0, 16), system);
      let previous: OlderPart | undefined;
      for (let point = 1; point <= messages.length; point++) {
        if (point < messages.length && messages[point]?.type !== "ai") continue;
        const history = messages.slice(0, point);
        const historyMessage = summary ? { historyMessage: new AIMessage("Summary of earlier turns: the user tracks a budget.") } : {};
        let view: readonly BaseMessage[];
        try {
          view = buildContext({ messages: history, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, clearStep, ...historyMessage }).messages;
        } catch {
          previous = undefined;
          continue;
        }
        const part = olderPart(history, view);
        if (previous !== undefined && previous.shown.length > 0 && part.shown[0]?.id === previous.shown[0]?.id) {
          held++;
          const problem = changedBetweenAnchors(previous, part);
          if (problem !== undefined) broken.push(`conversation ${c} (budget ${promptBudget}, clearStep ${clearStep}), call at message ${point}: ${problem}`);
        } else if (previous !== undefined && previous.shown.length > 0) moved++;
        previous = part;
      }
    });
  });

  it("keeps the older part's forms between anchors, but for results a clear step clears", () => {
    expect({ seed, broken: broken.slice(0, 12), count: broken.length }).toEqual({ seed, broken: [], count: 0 });
  });

  it("reaches views that hold their anchor and views that move it", () => {
    // 40 to 132 holding pairs over seeds 1–8: the seed is the date's unless FUZZ_SEED is set.
    expect(held).toBeGreaterThan(30);
    expect(moved).toBeGreaterThan(0);
  });
});


/** One shown message of an older turn: its id and its form as sent. */
interface ShownOlder {
  id: string;
  form: string;
  cleared: boolean;
}

/** The messages of the turns before the request that a view shows, in view order. */
interface OlderPart {
  shown: ShownOlder[];
  /** Some older result is shown compacted or cleared: the whole history did not fit. */
  compacting: boolean;
  /** The request's id, the ids of the turn right before it, and of the oldest turn shown. */
  request: string | undefined;
  newestTurn: Set<string>;
  oldestTurn: Set<string>;
}

function olderPart(history: readonly BaseMessage[], view: readonly BaseMessage[]): OlderPart {
  let request = history.length - 1;
  while (request >= 0 && history[request]?.type !== "human") request--;
  // The opening request is the pinned block's: its copy goes before the older turns when its turn left the view.
  const opening = history.find((m) => m.type === "human")?.id;
  const older = new Set<string>();
  for (let i = 0; i < request; i++) if (history[i]?.id !== undefined && history[i]!.id !== opening) older.add(history[i]!.id!);
  let newestStart = request - 1;
  while (newestStart > 0 && history[newestStart]?.type !== "human") newestStart--;
  const newestTurn = new Set<string>();
  for (let i = Math.max(0, newestStart); i < request; i++) if (history[i]?.id !== undefined) newestTurn.add(history[i]!.id!);
  const shown: ShownOlder[] = [];
  let compacting = false;
  for (const message of view) {
    if (message.id === undefined || !older.has(message.id)) continue;
    const calls = message.type === "ai" ? JSON.stringify((message as { tool_calls?: unknown }).tool_calls ?? []) : "";
    shown.push({ id: message.id, form: `${message.type}|${JSON.stringify(message.content)}|${calls}`, cleared: compactionMarkerOf(message)?.form === "cleared" });
    if (compactionMarkerOf(message) !== undefined) compacting = true;
  }
  // The turn of the oldest message shown: from the user message at or before it to the next one.
  const oldestTurn = new Set<string>();
  const at = shown.length === 0 ? -1 : history.findIndex((m) => m.id === shown[0]!.id);
  if (at >= 0) {
    let start = at;
    while (start > 0 && history[start]?.type !== "human") start--;
    for (let i = start; i < request && (i === start || history[i]?.type !== "human"); i++) if (history[i]?.id !== undefined) oldestTurn.add(history[i]!.id!);
  }
  return { shown, compacting, request: history[request]?.id, newestTurn, oldestTurn };
}

/** Why `next` does not send `previous`'s older part again (undefined when it does). */
function changedBetweenAnchors(previous: OlderPart, next: OlderPart): string | undefined {
  for (const [k, before] of previous.shown.entries()) {
    const after = next.shown[k];
    if (after === undefined || after.id !== before.id) return `older message ${before.id} (${k}) left the view while the anchor ${previous.shown[0]!.id} held`;
    if (after.form === before.form || after.cleared) continue;
    // Compaction of older results starts once the whole history stops fitting, and stops when it fits again (see chooseCurrentTurn).
    if (previous.compacting !== next.compacting) continue;
    // The turn before the request may be shown smaller beside large current results, and back once they are older (see besideHistory).
    if (previous.newestTurn.has(before.id)) continue;
    // Below the window floor the oldest kept turn may come with its results cleared, and go back when it fits (see clearedNextTurn).
    if (previous.oldestTurn.has(before.id) && (before.cleared || after.cleared)) continue;
    // A turn of the band comes back whole when the anchor of the turns shown whole moves back, the room grown (see clearedBand).
    if (before.cleared) continue;
    return `older message ${before.id} changed form while the anchor held: ${before.form.slice(0, 80)} → ${after.form.slice(0, 80)}`;
  }
  return undefined;
}

/**
 * The same law inside one long current turn: over random tool loops replayed call by call,
 * two consecutive views that show the same oldest exchange send the same excerpt of the
 * exchanges before it (see `fitLongTurn`): the prompt's prefix holds up to that exchange.
 */
/** What the long turn's excerpt may take of the turn's room, with steps (`LONG_TURN_EXCERPT_SHARE` in long-turn-forms.ts), and a label's tokens at most. */
const LONG_TURN_EXCERPT_SHARE = 0.3;
const LABEL_TOKENS = 20;
const estimator = createEstimator();

describe("cache steps in a long turn (property)", () => {
  const seed = Number(process.env["FUZZ_SEED"] ?? Date.now() % 2 ** 31);
  const loopArb = fc.record({
    steps: fc.array(fc.record({ parallel: fc.integer({ min: 1, max: 3 }), size: fc.oneof(fc.integer({ min: 10, max: 800 }), fc.integer({ min: 1000, max: 3000 })), prose: fc.nat({ max: 3000 }) }), { minLength: 20, maxLength: 50 }),
    promptBudget: fc.integer({ min: 6000, max: 16000 }),
  });
  const broken: string[] = [];
  let held = 0;

  beforeAll(() => {
    fc.sample(loopArb, { numRuns: 8, seed }).forEach(({ steps, promptBudget }, c) => {
      const messages: BaseMessage[] = [new HumanMessage({ id: `c${c}-req`, content: "Work through the whole queue, one case at a time." })];
      let previous: { first: string | undefined; excerpt: string | undefined; roomy: boolean } | undefined;
      steps.forEach(({ parallel, size, prose }, s) => {
        const calls = Array.from({ length: parallel }, (_, p) => ({ id: `c${c}-call-${s}-${p}`, name: "lookup", args: { case: `C-${s}-${p}` }, type: "tool_call" as const }));
        messages.push(new AIMessage({ id: `c${c}-ai-${s}`, content: "x".repeat(prose), tool_calls: calls }));
        for (const call of calls) messages.push(new ToolMessage({ id: `c${c}-t-${call.id}`, tool_call_id: call.id, name: "lookup", content: JSON.stringify({ rows: Array.from({ length: Math.ceil(size / 12) }, (_, r) => ({ id: `R${s}-${r}` })) }) }));
        let view: readonly BaseMessage[];
        try {
          view = buildContext({ messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 } }).messages;
        } catch {
          previous = undefined;
          return;
        }
        const first = view.find((m) => m.type === "ai" && m.id?.startsWith(`c${c}-ai-`))?.id;
        const excerpt = view.find((m) => m.type === "ai" && String(m.content).startsWith("Earlier steps of this turn"));
        // The mandatory part: the request and the newest exchange as shown.
        let newest = view.length - 1;
        while (newest > 0 && view[newest]?.type !== "ai") newest--;
        const mandatory = estimator.estimateMessages([view.find((m) => m.type === "human")!, ...view.slice(newest)]);
        // The excerpt keeps its room while the mandatory part leaves twice that; past that it takes half of what is left (see fitLongTurn).
        const roomy = mandatory <= (1 - 2 * LONG_TURN_EXCERPT_SHARE) * promptBudget - 2 * LABEL_TOKENS;
        const now = { first, excerpt: excerpt === undefined ? undefined : String(excerpt.content), roomy };
        if (previous?.excerpt !== undefined && now.excerpt !== undefined && previous.first === now.first && previous.roomy && now.roomy) {
          held++;
          if (previous.excerpt !== now.excerpt) broken.push(`loop ${c} (budget ${promptBudget}), step ${s}: the excerpt changed while ${first} stayed the oldest exchange shown`);
        }
        previous = now;
      });
    });
  });

  it("sends the same excerpt while the oldest exchange shown holds", () => {
    expect({ seed, broken: broken.slice(0, 8), count: broken.length }).toEqual({ seed, broken: [], count: 0 });
  });

  it("reaches views that hold it", () => {
    expect(held).toBeGreaterThan(10);
  });
});
