import { HumanMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { ContextViewError, buildContext, createEstimator } from "@contextview/core";
import { requestText, MEMORY_BLOCK_HEADER, selectMemories, type SavedMemory } from "@contextview/core/routing";
import { renderMemoryBlock } from "../../src/memories/index";

const NOW = Date.UTC(2025, 5, 1);
const DAY = 86_400_000;
const at = (daysAgo: number) => NOW - daysAgo * DAY;

const saved: readonly SavedMemory[] = Object.freeze([
  { id: "m1", text: "Rent is 900 dollars, due on the 3rd", createdAt: at(200) },
  { id: "m2", text: "Prefers answers in metric units", createdAt: at(1) },
  { id: "m3", text: "Saving for a trip to Japan in spring", createdAt: at(40) },
  { id: "m4", text: "Rent payments go out from the checking account", createdAt: at(300) },
  { id: "m5", text: "Partner's name is Sam", createdAt: at(10) },
]);

describe("selectMemories: ranking", () => {
  it("ranks query-word overlap first, then a small recency bonus", () => {
    const selection = selectMemories(saved, "How much is my rent payment this month?", { now: NOW });
    expect(selection.memories.map((m) => [m.memory, m.overlap])).toEqual([
      [saved[3], 2],
      [saved[0], 1],
      [saved[1], 0],
      [saved[4], 0],
      [saved[2], 0],
    ]);
    // One matching word always outranks recency: the 300-day-old memory leads.
    expect(selection.memories[2]?.recency).toBeGreaterThan(selection.memories[0]?.recency ?? 1);
    expect(selection.memories.every((m) => m.recency >= 0 && m.recency < 0.5)).toBe(true);
  });

  it.each([
    ["recency halves every halfLifeDays", { halfLifeDays: 1 }, (r: number[]) => expect(r[0]).toBeCloseTo(0.25, 5)],
    ["recencyBonus 0 ranks by overlap alone", { recencyBonus: 0 }, (r: number[]) => expect(r).toEqual([0])],
  ])("%s", (_name, options, check) => {
    const selection = selectMemories([{ text: "tea", createdAt: at(1) }], "tea", { now: NOW, ...options });
    check(selection.memories.map((m) => m.recency));
  });

  it("breaks ties by recency, then text, then input order, whatever the input order", () => {
    const tied = [
      { text: "likes jazz" },
      { text: "likes blues" },
      { text: "likes jazz" },
      { text: "likes rock", createdAt: at(5) },
      "likes folk",
    ];
    const texts = selectMemories(tied, "music", { now: NOW }).memories.map((m) => [m.text, m.index]);
    expect(texts).toEqual([
      ["likes rock", 3],
      ["likes blues", 1],
      ["likes folk", 4],
      ["likes jazz", 0],
      ["likes jazz", 2],
    ]);
    fc.assert(
      fc.property(fc.shuffledSubarray(tied, { minLength: tied.length }), (shuffled) => {
        expect(selectMemories(shuffled, "music", { now: NOW }).texts).toEqual(texts.map(([text]) => text));
      }),
    );
  });

  it("reads the user's request text, not attachment contents", () => {
    const request = new HumanMessage({
      content: [
        { type: "text", text: "What should I know about my trip?" },
        { type: "file", mimeType: "text/plain", data: "rent rent rent payments checking", source_type: "base64" } as never,
      ],
    });
    expect(selectMemories(saved, request, { now: NOW }).memories[0]?.memory).toBe(saved[2]);
    expect(selectMemories(saved, requestText([new HumanMessage("old"), request]), { now: NOW }).memories[0]?.memory).toBe(saved[2]);
  });
});

describe("selectMemories: the budget", () => {
  const estimator = createEstimator();

  it("returns a block within budgetTokens, skipping a memory too long for what is left", () => {
    const long = { text: `Long note: ${"detail ".repeat(200)}`, createdAt: at(0) };
    const memories = [long, ...saved];
    const selection = selectMemories(memories, "rent", { now: NOW, budgetTokens: 80 });
    expect(selection.tokens).toBeLessThanOrEqual(80);
    expect(selection.memories.map((m) => m.memory)).not.toContain(long);
    expect(selection.report).toEqual({ in: 6, kept: selection.texts.length, omitted: 6 - selection.texts.length, matched: 2, budgetTokens: 80 });
    expect(selection.texts.length).toBeGreaterThan(2);
    expect(selection.block).toBe(renderMemoryBlock(selection.texts));
    expect(selection.block.startsWith(MEMORY_BLOCK_HEADER)).toBe(true);
  });

  it("is charged by buildContext exactly as selected: every selected memory is kept", () => {
    for (const budgetTokens of [0, 20, 40, 80, 1000]) {
      const selection = selectMemories(saved, "rent", { now: NOW, budgetTokens, estimator });
      const view = buildContext({ messages: [new HumanMessage("rent?")], memories: selection.texts, budget: { memoryBudget: budgetTokens }, estimator });
      expect(view.report.memories).toEqual({ in: selection.texts.length, kept: selection.texts.length });
      expect(view.report.tokens.memories <= budgetTokens + 4).toBe(true);
    }
  });

  it("a zero budget keeps nothing and an empty list gives an empty block", () => {
    expect(selectMemories(saved, "rent", { budgetTokens: 0 })).toMatchObject({ texts: [], block: "", tokens: 0, report: { kept: 0, omitted: 5 } });
    expect(selectMemories([], "rent")).toMatchObject({ texts: [], block: "", tokens: 0 });
  });

  it("never deletes or changes a stored memory", () => {
    const memories = saved.map((m) => Object.freeze({ ...m }));
    const before = JSON.stringify(memories);
    const selection = selectMemories(memories, "rent", { now: NOW, budgetTokens: 40 });
    expect(selection.report.omitted).toBeGreaterThan(0);
    expect(JSON.stringify(memories)).toBe(before);
    expect(memories).toHaveLength(5);
    // What was left out this time comes back when the request is about it.
    const later = selectMemories(memories, "Where am I traveling in spring, Japan?", { now: NOW, budgetTokens: 40 });
    expect(later.memories[0]?.memory).toBe(memories[2]);
  });
});

describe("selectMemories: options are validated, naming the field", () => {
  it.each([
    ["budgetTokens", () => selectMemories([], "q", { budgetTokens: -1 })],
    ["recencyBonus", () => selectMemories([], "q", { recencyBonus: 1 })],
    ["halfLifeDays", () => selectMemories([], "q", { halfLifeDays: 0 })],
    ["now", () => selectMemories([], "q", { now: new Date("nope") })],
    ["memories", () => selectMemories("x" as never, "q")],
    ["memories[1].text", () => selectMemories(["a", { text: 3 } as never], "q")],
    ["memories[0].createdAt", () => selectMemories([{ text: "a", createdAt: "yesterday" }], "q")],
    ["query", () => selectMemories([], null as never)],
  ])("%s", (field, run) => {
    let error: unknown;
    try {
      run();
    } catch (e) {
      error = e;
    }
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect((error as ContextViewError).details["field"]).toBe(field);
  });
});
