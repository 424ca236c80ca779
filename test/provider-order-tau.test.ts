import { buildContext } from "@contextview/core";
import { providerOrderProblems } from "@contextview/test-support";
import { tauAirlineFixture } from "../eval/fixtures/tau-airline.js";
import { callPoints } from "../eval/replay.js";

// The views of a recorded long tool loop (one request, 123 tool calls) before each of its
// model calls, built as `pnpm eval` builds them, meet OpenAI's, Anthropic's and Gemini's ordering rules.
describe("tau-airline views and the providers' ordering rules", () => {
  it.each([
    ["its budget", tauAirlineFixture.budget],
    ["an 8,000-token budget", { promptBudget: 8000 }],
  ])("hold at %s", async (_name, budget) => {
    const { messages } = await tauAirlineFixture.load();
    expect(providerOrderProblems(messages)).toEqual([]);
    const broken: string[] = [];
    for (const point of callPoints(messages)) {
      const view = buildContext({ messages: messages.slice(0, point), systemPrompt: tauAirlineFixture.systemPrompt, tools: tauAirlineFixture.tools, budget, cacheBreakpoints: true });
      for (const problem of providerOrderProblems(view.messages)) broken.push(`call at ${point}: ${problem}`);
    }
    expect(broken).toEqual([]);
  });
});
