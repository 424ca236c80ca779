import { buildContext } from "@contextview/core";
import { factsKept } from "./metrics.js";
import { callPoints } from "./replay.js";
import type { Fixture } from "./types.js";

/** What pinning costs and keeps on one fixture: buildContext with its defaults against pinning turned off. */
export interface PinningCost {
  fixture: string;
  calls: number;
  /** Calls whose view holds a pinned block (the opening request or the application's pins). */
  callsWithPinned: number;
  /** Estimated tokens of the pinned block per call (labels included), over all calls. */
  pinnedTokens: { mean: number; max: number };
  /** Mean estimated input tokens per call, with and without pinning (the block replaces older history). */
  meanInput: { pinned: number; unpinned: number };
  /** Required facts in the last call's view, with and without pinning. */
  factsKept: { pinned: number; unpinned: number; required: number };
}

/**
 * Replays each fixture through `buildContext` twice — defaults (opening request and
 * pins kept) and `pinOpeningRequest: false, pinnedBudget: 0` — and reports the
 * tokens the pinned block takes per call and the facts each keeps.
 *
 * @example
 * ```ts
 * const costs = await measurePinningCost([pinnedFixture]);
 * ```
 */
export async function measurePinningCost(fixtures: readonly Fixture[]): Promise<PinningCost[]> {
  const out: PinningCost[] = [];
  for (const fixture of fixtures) {
    const loaded = await fixture.load();
    const points = callPoints(loaded.messages);
    const replay = (pinning: boolean) => {
      const pinned: number[] = [];
      const totals: number[] = [];
      let last: ReturnType<typeof buildContext> | undefined;
      for (const point of points) {
        last = buildContext({
          messages: loaded.messages.slice(0, point),
          systemPrompt: fixture.systemPrompt,
          tools: fixture.tools,
          budget: fixture.budget,
          ...(pinning ? {} : { pinOpeningRequest: false, pinnedBudget: 0 }),
        });
        pinned.push(last.report.tokens.pinned);
        totals.push(last.report.tokens.total);
      }
      const kept = factsKept(last?.messages ?? [], loaded.facts).filter(Boolean).length;
      return { pinned, totals, kept };
    };
    const withPins = replay(true);
    const without = replay(false);
    const mean = (values: number[]) => (values.length ? Math.round(values.reduce((a, b) => a + b, 0) / values.length) : 0);
    out.push({
      fixture: fixture.name,
      calls: points.length,
      callsWithPinned: withPins.pinned.filter((t) => t > 0).length,
      pinnedTokens: { mean: mean(withPins.pinned), max: Math.max(0, ...withPins.pinned) },
      meanInput: { pinned: mean(withPins.totals), unpinned: mean(without.totals) },
      factsKept: { pinned: withPins.kept, unpinned: without.kept, required: loaded.facts.length },
    });
  }
  return out;
}
