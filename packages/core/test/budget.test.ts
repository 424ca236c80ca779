import { ContextViewError, DEFAULT_BUDGET, resolveBudget } from "@contextview/core";

describe("resolveBudget", () => {
  it("uses the seed defaults and the prompt limit rule", () => {
    const budget = resolveBudget({}, {});
    expect(budget).toMatchObject(DEFAULT_BUDGET);
    // min(16000, 32768 - 4096 - 2048) = 16000
    expect(budget.promptLimit).toBe(16000);
  });

  it.each([
    [{ contextWindow: 8192 }, 8192 - 4096 - 1024],
    [{ promptBudget: 1000 }, 1000],
    [{ contextWindow: 200000, promptBudget: 100000 }, 100000],
    [{ contextWindow: 10000, responseReserve: 0, safetyReserve: 0 }, 10000],
  ])("limit for %j is %d", (overrides, limit) => {
    expect(resolveBudget(overrides, {}).promptLimit).toBe(limit);
  });

  it("reads the environment, and explicit overrides win over it", () => {
    const env = { CONTEXT_WINDOW_TOKENS: "65536", PROMPT_BUDGET_TOKENS: " 30000 ", RESPONSE_RESERVE_TOKENS: "1000" };
    expect(resolveBudget({}, env)).toMatchObject({ contextWindow: 65536, promptBudget: 30000, responseReserve: 1000 });
    expect(resolveBudget({ promptBudget: 2000 }, env).promptBudget).toBe(2000);
  });

  it.each([
    ["CONTEXT_WINDOW_TOKENS", "abc"],
    ["CONTEXT_WINDOW_TOKENS", "-1"],
    ["PROMPT_BUDGET_TOKENS", "1.5"],
    ["PROMPT_BUDGET_TOKENS", "NaN"],
    ["RESPONSE_RESERVE_TOKENS", "1e3"],
  ])("rejects %s=%s naming the variable", (name, value) => {
    expect(() => resolveBudget({}, { [name]: value })).toThrow(new RegExp(`\`${name}\``));
  });

  it.each([
    [{ promptBudget: -1 }, "promptBudget", "positive integer"],
    [{ contextWindow: 0 }, "contextWindow", "positive integer"],
    [{ responseReserve: 1.5 }, "responseReserve", "non-negative integer"],
    [{ safetyReserve: Number.NaN }, "safetyReserve", "non-negative integer"],
    [{ memoryBudget: -5 }, "memoryBudget", "non-negative integer"],
  ])("rejects %j", (overrides, field, expected) => {
    let error: unknown;
    try {
      resolveBudget(overrides as never, {});
    } catch (err) {
      error = err;
    }
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect((error as ContextViewError).code).toBe("INVALID_OPTION");
    expect((error as Error).message).toContain(`\`${field}\``);
    expect((error as Error).message).toContain(expected);
  });

  it("rejects reserves that leave no room for the prompt", () => {
    expect(() => resolveBudget({ contextWindow: 6000, responseReserve: 4096, safetyReserve: 2048 }, {})).toThrow(
      "Expected `responseReserve` + `safetyReserve` (4096 as set + 2048 as set) to be less than `contextWindow` (6000 as set), leaving room for the prompt",
    );
    expect(() => resolveBudget({ responseReserve: 30000 }, { CONTEXT_WINDOW_TOKENS: "32000" })).toThrow(
      "(30000 as set + 2048 by default) to be less than `contextWindow` (32000 from `CONTEXT_WINDOW_TOKENS`)",
    );
  });

  it.each([
    // window, responseReserve, safetyReserve left to their defaults
    [3000, 1500, 375],
    [4096, 2048, 512],
    [8192, 4096, 1024],
    [16384, 4096, 2048],
    [32768, 4096, 2048],
    [200000, 4096, 2048],
  ])("a %d-token window keeps default reserves of %d and %d", (contextWindow, responseReserve, safetyReserve) => {
    expect(resolveBudget({ contextWindow }, {})).toMatchObject({ responseReserve, safetyReserve, promptLimit: Math.min(16000, contextWindow - responseReserve - safetyReserve) });
  });

  it("scales only the reserves left to their defaults", () => {
    expect(resolveBudget({ contextWindow: 3000, safetyReserve: 100 }, {})).toMatchObject({ responseReserve: 1500, safetyReserve: 100 });
    expect(resolveBudget({ contextWindow: 3000 }, { RESPONSE_RESERVE_TOKENS: "2000" })).toMatchObject({ responseReserve: 2000, safetyReserve: 375 });
  });

  it("rejects unknown fields and non-objects", () => {
    expect(() => resolveBudget({ promptBudgte: 5 } as never, {})).toThrow(/budget\.promptBudgte/);
    expect(() => resolveBudget(5 as never, {})).toThrow(/`budget`/);
  });
});
