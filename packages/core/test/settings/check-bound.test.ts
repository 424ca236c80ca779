// A private unit on purpose: how a bound is checked and phrased, for every shape the spec may take.
import { ContextViewError } from "@contextview/core";
import { checkBound, type Bound } from "../../src/settings/check";

describe("checkBound", () => {
  it.each<[Bound, unknown, string]>([
    [{ type: "integer", min: 0 }, -1, "a non-negative integer"],
    [{ type: "integer", min: 1 }, 0, "a positive integer"],
    [{ type: "integer", min: 50 }, 49, "an integer of at least 50"],
    [{ type: "integer", min: 1, max: 1000 }, 1001, "an integer from 1 to 1000"],
    [{ type: "integer", min: 1, max: 9, maxReason: "the reason" }, 10, "an integer from 1 to 9 (the reason)"],
    [{ type: "integer", max: 5 }, 6, "an integer of at most 5"],
    [{ type: "integer" }, 1.5, "an integer"],
    [{ type: "number" }, Number.NaN, "a finite number"],
    [{ type: "number", min: 0, exclusiveMin: true }, 0, "a positive finite number"],
    [{ type: "number", min: 0, max: 0.9 }, 0.95, "a number from 0 to 0.9"],
    [{ type: "number", min: 0, max: 1, exclusiveMin: true, exclusiveMax: true }, 1, "a number between 0 and 1 (exclusive)"],
    [{ type: "number", min: 0, max: 1, exclusiveMax: true }, 1, "a finite number of at least 0 and below 1"],
    [{ type: "number", min: 2 }, Number.POSITIVE_INFINITY, "a finite number of at least 2"],
    [{ type: "boolean" }, "yes", "a boolean"],
  ])("%j refuses %p as %s", (bound, value, expected) => {
    let error: unknown;
    try {
      checkBound("field", bound, value);
    } catch (caught) {
      error = caught;
    }
    expect(ContextViewError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(new RegExp(`^Expected \`field\` to be ${expected.replace(/[().]/g, "\\$&")}, got `));
  });

  it.each<[Bound, unknown]>([
    [{ type: "integer", min: 0 }, 0],
    [{ type: "integer", min: 1, max: 1000 }, 1000],
    [{ type: "number", min: 0, exclusiveMin: true }, 0.001],
    [{ type: "number", min: 0, max: 1, exclusiveMin: true, exclusiveMax: true }, 0.999],
    [{ type: "boolean" }, false],
  ])("%j accepts %p", (bound, value) => {
    expect(checkBound("field", bound, value)).toBe(value);
  });
});
