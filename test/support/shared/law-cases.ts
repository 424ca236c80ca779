import { ContextBudgetError } from "@contextview/core";
import { LAWS, problemsOf, type ViewProblem } from "./laws.js";

/** One random case of a property test: the law problems of its view, and why its build was refused, when it was not allowed to be. */
export interface LawCase {
  problems: ViewProblem[];
  refusal?: string;
}

/**
 * A refused build as a law case. Law 4 allows only a typed budget error whose figures
 * are over the limit (anything else is kept as `refusal`); law 1 still holds.
 *
 * @example
 * ```ts
 * try { view = buildContext(input); } catch (error) { cases.push(refusedCase(error, snapshot(messages) === before)); }
 * ```
 */
export function refusedCase(error: unknown, inputsUnchanged: boolean): LawCase {
  const typed = ContextBudgetError.isBudgetError(error) && (error as ContextBudgetError).required > (error as ContextBudgetError).limit;
  const problems: ViewProblem[] = inputsUnchanged ? [] : [{ law: "inputs untouched", detail: "the input messages changed during a refused build" }];
  return typed ? { problems } : { problems, refusal: String(error) };
}

/**
 * One `it` per law of {@link LAWS} (but "something to answer") and one for refusals,
 * over the cases a `beforeAll` builds; a failure names the law, the conversation and
 * the seed that replays it.
 *
 * @example
 * ```ts
 * itHoldsOver(cases, seed, "over random conversations");
 * ```
 */
export function itHoldsOver(cases: readonly LawCase[], seed: number, where: string): void {
  it.each(LAWS.filter((law) => law !== "something to answer"))(`%s holds ${where}`, (law) => {
    const broken = cases.flatMap((c, i) => problemsOf(law, c.problems).map((detail) => `conversation ${i}: ${detail}`));
    expect({ seed, broken }).toEqual({ seed, broken: [] });
  });

  it("refuses only with a typed budget error whose figures are over the limit", () => {
    const refusals = cases.flatMap((c, i) => (c.refusal === undefined ? [] : [`conversation ${i}: ${c.refusal}`]));
    expect({ seed, refusals }).toEqual({ seed, refusals: [] });
  });
}
