import type { BaseMessage } from "@langchain/core/messages";
import { createContextManager, InMemoryContextStore, type Summarizer } from "@contextview/core";
import * as buildContextModule from "../../src/view/build-context";
import * as viewOptionsModule from "../../src/view/options";
import * as settingsCheck from "../../src/settings/check";
import { budget, financeTurns, upToRequest } from "./finance-turns";

// Issue 48, "the manager as a straight line": the summary, the turn summary and the
// evidence are decided first, then the view is built once — twice on the call that makes a
// new summary. Before, the manager rebuilt until the evidence stopped repeating the view
// (up to three passes) and again when a new summary outlived the held evidence; then once
// more whenever the view left out excerpts of messages it shows. The view now leaves them out
// itself, as it places the turns they quote.
describe("views built per model call", () => {
  afterEach(() => jest.restoreAllMocks());

  it("builds one view per call, two on a call that makes a summary, over a growing conversation with evidence", async () => {
    const built = jest.spyOn(buildContextModule, "buildResolvedView");
    const store = new InMemoryContextStore();
    const summarizer: Summarizer = async (transcript) => `Summary of ${transcript.length} characters: the user tracks item budgets; all are fine.`;
    const manager = createContextManager({ budget, summarizer, store });
    const key = { userId: "u1", conversationId: "views" };
    const all = financeTurns(60);
    const perCall: Array<{ builds: number; summarized: boolean; evidenceShown: number }> = [];
    for (let turn = 4; turn <= 60; turn += 2) {
      const messages: BaseMessage[] = upToRequest(all, turn);
      const evidence = (await store.update(key.userId, key.conversationId, messages)).asMessage();
      built.mockClear();
      const view = await manager.build({ messages, key, evidence });
      perCall.push({ builds: built.mock.calls.length, summarized: view.report.compaction.kind === "summary", evidenceShown: view.report.history.evidenceShown });
    }
    // The paths this test is about are reached: summaries are made, and views leave out evidence of messages they show.
    expect(perCall.some((c) => c.summarized)).toBe(true);
    expect(perCall.some((c) => c.evidenceShown > 0)).toBe(true);
    // No view is built again for the evidence of messages it shows: the view left them out as it chose.
    for (const call of perCall) expect(call.builds).toBe(1 + (call.summarized ? 1 : 0));
  });

  it("builds one view per call without a summarizer, two only when the held evidence is outlived by the turns the view drops", async () => {
    const built = jest.spyOn(buildContextModule, "buildResolvedView");
    const store = new InMemoryContextStore();
    const manager = createContextManager({ budget, store });
    const key = { userId: "u1", conversationId: "plain" };
    const all = financeTurns(40);
    const calls: Array<{ builds: number; replaced: boolean; evidenceShown: number }> = [];
    let previousCursor: number | undefined;
    for (let turn = 4; turn <= 40; turn++) {
      const messages = upToRequest(all, turn);
      const evidence = (await store.update(key.userId, key.conversationId, messages)).asMessage();
      built.mockClear();
      const view = await manager.build({ messages, key, evidence });
      const cursor = cursorOf(view.messages);
      calls.push({ builds: built.mock.calls.length, replaced: previousCursor !== undefined && cursor !== previousCursor, evidenceShown: view.report.history.evidenceShown });
      previousCursor = cursor;
    }
    expect(calls.some((c) => c.builds === 2)).toBe(true);
    expect(calls.some((c) => c.evidenceShown > 0)).toBe(true);
    // The second view is the one with the fresh evidence in place of the held one.
    for (const call of calls) expect(call.builds).toBe(1 + (call.replaced ? 1 : 0));
  });

  it("resolves the view settings once per request into one frozen value, however many views it builds: no view validates them again", async () => {
    const built = jest.spyOn(buildContextModule, "buildResolvedView");
    const resolved = jest.spyOn(viewOptionsModule, "resolveViewOptions");
    const checked = jest.spyOn(settingsCheck, "checkSetting");
    const store = new InMemoryContextStore();
    const summarizer: Summarizer = async (transcript) => `Summary of ${transcript.length} characters: the user tracks item budgets; all are fine.`;
    const manager = createContextManager({ budget, summarizer, store, dropStep: 0.1, recallBudget: 2000 });
    expect(checked.mock.calls.map(([field]) => field)).toEqual(expect.arrayContaining(["dropStep", "recallBudget"]));
    const key = { userId: "u1", conversationId: "resolved" };
    const all = financeTurns(40);
    let several = 0;
    for (let turn = 4; turn <= 40; turn += 3) {
      const messages = upToRequest(all, turn);
      const evidence = (await store.update(key.userId, key.conversationId, messages)).asMessage();
      [built, resolved, checked].forEach((spy) => spy.mockClear());
      await manager.build({ messages, key, evidence, overrides: { keepMinText: 2, budget: { promptBudget: 5000 } } });
      if (built.mock.calls.length > 1) several++;
      expect(resolved).not.toHaveBeenCalled();
      // The factory's settings were checked when it was called, the overrides as the request came in (the
      // request's own budget field among them); no view, and no later step, checks one again.
      expect(checked.mock.calls.map(([field]) => field)).toEqual(["promptBudget"]);
      const options = built.mock.calls.map(([, settings]) => settings.options);
      expect(options.every((o) => Object.isFrozen(o) && o.dropStep === 0.1 && o.recallBudget === 2000)).toBe(true);
      // A view made with changed settings (older results kept while they wait for their summary) shares the request's otherwise.
      expect(new Set(options.map((o) => o.keepRecentToolResults)).size).toBe(1);
    }
    expect(several).toBeGreaterThan(0);
  });

  it("reads the budget option as it was when the factory checked it: a later change to the caller's object is not read", async () => {
    const given = { ...budget };
    const manager = createContextManager({ budget: given, store: new InMemoryContextStore() });
    given.promptBudget = -1;
    const view = await manager.build({ messages: upToRequest(financeTurns(6), 6), key: { userId: "u1", conversationId: "kept" } });
    expect(view.report.budget.promptBudget).toBe(budget.promptBudget);
  });
});

/** The cursor of the evidence a view shows (the held one's, or the fresh one's). */
function cursorOf(messages: readonly BaseMessage[]): number | undefined {
  const shown = messages.find((m) => typeof m.content === "string" && m.content.includes('{"contextview_evidence"'));
  if (shown === undefined) return undefined;
  const text = shown.content as string;
  return (JSON.parse(text.slice(text.indexOf('{"contextview_evidence"'))) as { contextview_evidence: { cursor: number } }).contextview_evidence.cursor;
}
