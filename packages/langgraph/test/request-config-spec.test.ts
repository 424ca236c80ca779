import { settingExpectation, SETTINGS_SPEC, type SettingName, type SettingSpec } from "@contextview/core/internal";
import { ContextIntegrationError, contextConfigSchema, createContextNode, type ContextConfig } from "@contextview/langgraph";
import { CONTEXT_SETTING_KEYS, parseContextConfig } from "../src/request-config.js";
import { placeOf } from "../src/option-groups.js";
import { acceptedValues, refusedValues, thrownBy } from "@contextview/test-support";

// The inferred type is part of the API: checked by `pnpm typecheck`.
type Expected = {
  budget?: { contextWindow?: number | undefined; promptBudget?: number | undefined; responseReserve?: number | undefined; safetyReserve?: number | undefined; memoryBudget?: number | undefined } | undefined;
  summarize?: boolean | undefined;
  triggerRatio?: number | undefined;
  keepMinTokens?: number | undefined;
  keepMinText?: number | undefined;
  keepMaxTokens?: number | undefined;
  dropStep?: number | undefined;
  maxOlderMessageTokens?: number | undefined;
  maxToolCallProseTokens?: number | undefined;
  excerptBudget?: number | undefined;
  keepRecentToolResults?: number | undefined;
  maxToolResultTokens?: number | undefined;
  clearStep?: number | undefined;
  cacheBreakpoints?: boolean | undefined;
  pinOpeningRequest?: boolean | undefined;
  maxOpeningRequestTokens?: number | undefined;
  pinnedBudget?: number | undefined;
  recallBudget?: number | undefined;
  evidenceShare?: number | undefined;
  pinnedImages?: boolean | undefined;
};
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const inferredTypeIsUnchanged: Same<ContextConfig, Expected> = true;

const spec = (field: SettingName): SettingSpec => SETTINGS_SPEC[field];
const REQUEST = (Object.keys(SETTINGS_SPEC) as SettingName[]).filter((field) => spec(field).scope === "request" && spec(field).notInRequestConfig !== true);
/** How a setting is written in `config.configurable.context`. */
const pathOf = (field: SettingName): string => (spec(field).group === "budget" ? `budget.${field}` : field);
const settingAt = (field: SettingName, value: unknown): Record<string, unknown> => (spec(field).group === "budget" ? { budget: { [field]: value } } : { [field]: value });

const errorOf = (run: () => unknown) => thrownBy<ContextIntegrationError>(run, (error) => ContextIntegrationError.isInstance(error));

describe("contextConfigSchema, built from SETTINGS_SPEC", () => {
  it("infers the same ContextConfig type as before", () => {
    expect(inferredTypeIsUnchanged).toBe(true);
  });

  it("has one key per request setting (budget fields under `budget`), in spec order", () => {
    const topLevel = REQUEST.filter((field) => spec(field).group !== "budget");
    expect(CONTEXT_SETTING_KEYS).toEqual(["budget", ...topLevel]);
    expect(Object.keys(contextConfigSchema.shape.budget.unwrap().shape)).toEqual(REQUEST.filter((field) => spec(field).group === "budget"));
  });

  it.each(REQUEST.flatMap((field) => acceptedValues(field).map((value) => [pathOf(field), field, value] as const)))("accepts %s = %p", (_, field, value) => {
    expect(parseContextConfig(settingAt(field, value))).toEqual(settingAt(field, value));
  });

  it.each(REQUEST.flatMap((field) => refusedValues(field).map((value) => [pathOf(field), field, value] as const)))(
    "refuses %s = %p, naming the field and what it accepts",
    (path, field, value) => {
      const error = errorOf(() => parseContextConfig(settingAt(field, value)));
      expect(error).toMatchObject({ code: "INVALID_REQUEST_CONFIG", field: `context.${path}` });
      expect(error.message).toContain(`Expected \`context.${path}\` to be ${settingExpectation(field)}, got `);
    },
  );

  it.each(REQUEST.flatMap((field) => refusedValues(field).slice(0, 1).map((value) => [pathOf(field), field, value] as const)))(
    "a factory refuses %s = %p as INVALID_OPTION, named where the factory takes it",
    (path, field, value) => {
      // A factory takes the view and summary settings in their groups (`view: { dropStep }`), a request flat.
      const place = spec(field).group === "budget" ? path : placeOf(field);
      const [group, key] = place.includes(".") ? place.split(".") : [undefined, place];
      const error = errorOf(() => createContextNode(group === undefined ? { [field]: value } : { [group]: { [key as string]: value } }));
      expect(error).toMatchObject({ code: "INVALID_OPTION", field: place });
      expect(error.message).toContain(settingExpectation(field));
    },
  );

  it("leaves imageInputs to the factory and the model's profile, as before: not a per-request setting", () => {
    expect(errorOf(() => parseContextConfig({ imageInputs: false })).message).toContain("Unknown setting `context.imageInputs`");
  });

  it("takes trustPinField on the factory only: a request (whose configurable a client may send) cannot choose who may pin", () => {
    expect(errorOf(() => parseContextConfig({ trustPinField: true })).message).toContain("Unknown setting `context.trustPinField`");
    expect(() => createContextNode({ view: { trustPinField: false } })).not.toThrow();
    const error = thrownBy<Error & { details: Record<string, unknown> }>(() => createContextNode({ view: { trustPinField: "no" as never } }));
    expect(error.details["field"]).toBe("view.trustPinField");
  });
});
