// `report.toolResults` is read off the forms the view shows: every tool result the view
// shows changed from the one given, by the marker of its form — cleared, or compacted
// (narrowed to its totals counts with compacted) — and nothing else. Older turns are
// counted against the turns as prepared (a cleared turn of the band, the turn before the
// request shown smaller, results compacted across the turns), the current turn by its form.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { buildContext, type ContextView } from "@contextview/core";
import { compactionMarkerOf } from "@contextview/core/tool-results";
import { conversation, conversationArb } from "@contextview/test-support";

/** The view's tool results that differ from the ones given (by `tool_call_id`), by the form their marker names. */
function changedResults(view: ContextView, given: readonly BaseMessage[]): { cleared: number; compacted: number } {
  const byCall = new Map(given.filter((m) => m.type === "tool").map((m) => [(m as { tool_call_id?: string }).tool_call_id, m]));
  let cleared = 0;
  let compacted = 0;
  for (const message of view.messages) {
    if (message.type !== "tool") continue;
    const original = byCall.get((message as { tool_call_id?: string }).tool_call_id);
    if (original === undefined || JSON.stringify(original.content) === JSON.stringify(message.content)) continue;
    const form = compactionMarkerOf(message)?.form;
    if (form === "cleared") cleared++;
    else if (form !== undefined) compacted++;
  }
  return { cleared, compacted };
}

describe("report.toolResults (property)", () => {
  it("counts every result the view shows changed, by its form, over random conversations", () => {
    let changed = 0;
    fc.assert(
      fc.property(
        conversationArb,
        fc.integer({ min: 1500, max: 12000 }),
        fc.constantFrom("plain", "summary", "small results"),
        fc.constantFrom(0, 2, 10),
        ({ turns, system }, promptBudget, variant, keepRecentToolResults) => {
          const messages = conversation(turns, system);
          const summary = new AIMessage({ content: "Summary of the earlier conversation: flights, budgets and the Lisbon note. ".repeat(12) });
          const options = variant === "summary" ? { historyMessage: summary } : variant === "small results" ? { maxToolResultTokens: 300, clearStep: 1 } : {};
          let view: ContextView;
          try {
            view = buildContext({ messages, budget: { contextWindow: 32768, promptBudget, responseReserve: 4096 }, keepRecentToolResults, ...options });
          } catch {
            return; // the mandatory part does not fit: the budget error, tested elsewhere
          }
          const shown = changedResults(view, messages);
          changed += shown.cleared + shown.compacted;
          const { cleared, compacted, narrowed } = view.report.toolResults;
          expect({ cleared, compacted: compacted + narrowed }).toEqual(shown);
        },
      ),
      { numRuns: 150, seed: Number(process.env["FUZZ_SEED"] ?? 3) },
    );
    // The runs change results: the counts are checked against views that clear and compact.
    expect(changed).toBeGreaterThan(100);
  });
});
