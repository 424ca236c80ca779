import { HumanMessage, ToolMessage } from "@langchain/core/messages";
import { buildContext, ContextViewError, createContextManager, createEstimator, DEFAULT_BUDGET, resolveBudget, type ViewOptions } from "@contextview/core";
import { compactToolResult } from "@contextview/core/tool-results";
import { MAX_TIMER_MS, settingExpectation, SETTINGS_SPEC, type SettingName, type SettingSpec } from "@contextview/core/internal";
import { checkSetting } from "../../src/settings/index.js";
import { DEFAULT_VIEW_OPTIONS } from "../../src/view/options.js";
import { acceptedValues, refusedValues, thrownBy } from "@contextview/test-support";

const FIELDS = Object.keys(SETTINGS_SPEC) as SettingName[];
const spec = (field: SettingName): SettingSpec => SETTINGS_SPEC[field];

const cases = (group?: SettingSpec["group"]) =>
  FIELDS.filter((field) => group === undefined || spec(field).group === group).flatMap((field) => refusedValues(field).map((value) => [field, value] as const));

const errorOf = (run: () => unknown) => thrownBy<ContextViewError>(run, (error) => ContextViewError.isInstance(error));

async function rejectionOf(run: () => Promise<unknown>): Promise<ContextViewError> {
  try {
    await run();
  } catch (error) {
    if (ContextViewError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ContextViewError");
}

function expectNames(error: ContextViewError, name: string, field: SettingName): void {
  expect(error.code).toBe("INVALID_OPTION");
  expect(error.details["field"]).toBe(name);
  expect(error.message).toContain(`Expected \`${name}\` to be ${settingExpectation(field)}, got `);
}

describe("SETTINGS_SPEC", () => {
  it.each(FIELDS.flatMap((field) => acceptedValues(field).map((value) => [field, value] as const)))("%s accepts %p", (field, value) => {
    expect(checkSetting(field, value)).toBe(value);
  });

  it.each(cases())("checkSetting refuses %s = %p, naming the field and what it accepts", (field, value) => {
    expectNames(errorOf(() => checkSetting(field, value)), field, field);
  });

  it.each(FIELDS.filter((field) => typeof spec(field).default !== "object"))("the default of %s is a value it accepts", (field) => {
    expect(() => checkSetting(field, spec(field).default)).not.toThrow();
  });

  it("is where the view and budget defaults come from", () => {
    const viewKeys: Record<keyof ViewOptions, true> = {
      dropStep: true, maxOlderMessageTokens: true, maxToolCallProseTokens: true, excerptBudget: true, keepRecentToolResults: true, maxToolResultTokens: true,
      imageInputs: true, clearStep: true, cacheBreakpoints: true, pinOpeningRequest: true, maxOpeningRequestTokens: true, pinnedBudget: true, recallBudget: true, evidenceShare: true, pinnedImages: true,
      trustPinField: true, excludeTools: true,
    };
    expect(Object.keys(DEFAULT_VIEW_OPTIONS).sort()).toEqual(Object.keys(viewKeys).sort());
    // Every view option but the list of tool names (not a number or a switch) is a setting of the spec.
    const { excludeTools, ...settings } = DEFAULT_VIEW_OPTIONS;
    expect(excludeTools).toEqual([]);
    for (const [field, value] of Object.entries(settings)) expect(spec(field as SettingName).default).toBe(value);
    for (const [field, value] of Object.entries(DEFAULT_BUDGET)) expect(spec(field as SettingName).default).toBe(value);
  });

  it("bounds summarizerTimeoutMs by Node's longest timer", () => {
    expect(SETTINGS_SPEC.summarizerTimeoutMs.max).toBe(MAX_TIMER_MS);
  });

  it("gives keepMinTokens and keepMaxTokens as shares of the prompt limit, as the manager applies them", () => {
    expect(SETTINGS_SPEC.keepMinTokens.default).toEqual({ shareOfPromptLimit: 0.15 });
    expect(SETTINGS_SPEC.keepMaxTokens.default).toEqual({ shareOfPromptLimit: 0.4 });
  });
});

describe("validation derived from SETTINGS_SPEC, through the public entry points", () => {
  it.each(cases("view"))("buildContext refuses %s = %p", (field, value) => {
    expectNames(errorOf(() => buildContext({ messages: [], [field]: value })), field, field);
  });

  it.each(cases("budget"))("resolveBudget refuses %s = %p", (field, value) => {
    expectNames(errorOf(() => resolveBudget({ [field]: value }, {})), field, field);
  });

  it.each([...cases("summarize"), ...cases("manager"), ...cases("view")])("createContextManager refuses %s = %p", (field, value) => {
    expectNames(errorOf(() => createContextManager({ [field]: value })), field, field);
  });

  it.each([...cases("summarize"), ...cases("view")].filter(([field]) => spec(field).scope === "request"))("manager.build refuses the override %s = %p as `context.<field>`", async (field, value) => {
    const manager = createContextManager();
    const request = { messages: [new HumanMessage("q")], key: { userId: "u", conversationId: "c" }, overrides: { [field]: value } };
    expectNames(await rejectionOf(() => manager.build(request)), `context.${field}`, field);
  });

  it.each(cases("estimator"))("createEstimator refuses %s = %p", (field, value) => {
    expectNames(errorOf(() => createEstimator({ [field]: value })), field, field);
  });

  it.each(cases("compact"))("compactToolResult refuses %s = %p", (field, value) => {
    const message = new ToolMessage({ tool_call_id: "c1", content: "{}" });
    expectNames(errorOf(() => compactToolResult(message, 1500, { [field]: value })), field, field);
  });
});
