import fc from "fast-check";
import { BUDGET_ENV } from "../src/budget.js";
import { DEFAULT_BUDGET, resolveBudgetSources, type Budget, type BudgetSource } from "@contextview/core";

const FIELDS = Object.keys(DEFAULT_BUDGET) as (keyof Budget)[];
const big = fc.integer({ min: 60_000, max: 400_000 });
const small = fc.integer({ min: 0, max: 3000 });
const partial = fc.record(
  { contextWindow: big, promptBudget: fc.integer({ min: 1, max: 50_000 }), responseReserve: small, safetyReserve: small, memoryBudget: small },
  { requiredKeys: [] },
);
const profileArb = fc.record(
  { maxInputTokens: fc.oneof(big, fc.constant(-1), fc.constant(1.5)), maxOutputTokens: fc.integer({ min: 1, max: 64_000 }), imageInputs: fc.boolean() },
  { requiredKeys: [] },
);
const envArb = fc.record({ contextWindow: big, promptBudget: fc.integer({ min: 1, max: 50_000 }), responseReserve: small }, { requiredKeys: [] });

describe("resolveBudgetSources (property)", () => {
  it("takes every field from the strongest layer that sets it, and names that layer", () => {
    fc.assert(
      fc.property(profileArb, partial, partial, envArb, (profile, option, request, envFields) => {
        const env: Record<string, string> = {};
        for (const [field, value] of Object.entries(envFields)) env[BUDGET_ENV[field as keyof Budget] as string] = String(value);
        const { budget, sources } = resolveBudgetSources({ profile, option, request, env });
        for (const field of FIELDS) {
          const fromProfile =
            field === "contextWindow" && Number.isSafeInteger(profile.maxInputTokens) && (profile.maxInputTokens as number) > 0
              ? profile.maxInputTokens
              : field === "responseReserve" && profile.maxOutputTokens !== undefined && profile.maxOutputTokens < DEFAULT_BUDGET.responseReserve
                ? profile.maxOutputTokens
                : undefined;
          const layers: [BudgetSource, number | undefined][] = [
            ["request", request[field]],
            ["option", option[field]],
            ["env", (envFields as Partial<Budget>)[field]],
            ["profile", fromProfile],
            ["default", DEFAULT_BUDGET[field]],
          ];
          const [source, value] = layers.find(([, v]) => v !== undefined) as [BudgetSource, number];
          expect(sources[field]).toBe(source);
          expect(budget[field]).toBe(value);
        }
        expect(budget.promptLimit).toBe(Math.min(budget.promptBudget, budget.contextWindow - budget.responseReserve - budget.safetyReserve));
      }),
      { numRuns: 300, plugins: [fc.interruptAfterTimeLimit(30_000, { failOnInterrupt: true })] },
    );
  });
});
