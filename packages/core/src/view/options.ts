import type { ResolvedBudget } from "../budget.js";
import { resolveBudget } from "../budget.js";
import { checkSetting, settingNames } from "../settings/check.js";
import { checkExcludeTools } from "../compact/micro-compact.js";
import { SETTINGS_SPEC, type SettingName } from "../settings/spec.js";
import type { BuildContextInput, ViewOptions } from "./types.js";

/**
 * What the view's notes may name besides the settings: the recall tool bound to the
 * call, found among its tools (see `recallToolNameIn`), never a setting of its own.
 */
export interface NoteOptions {
  /** The bound recall tool's name; undefined when none is bound (the notes stay as they are). */
  recallToolName?: string | undefined;
}

/** The view settings of {@link SETTINGS_SPEC}, in table order. */
const VIEW_FIELDS = settingNames((spec) => spec.group === "view") as (keyof ViewOptions & SettingName)[];

/**
 * Defaults of every {@link ViewOptions} field (read from {@link SETTINGS_SPEC}).
 *
 * @example
 * ```ts
 * DEFAULT_VIEW_OPTIONS.keepRecentToolResults; // 3
 * ```
 */
export const DEFAULT_VIEW_OPTIONS: Readonly<Required<ViewOptions>> = Object.freeze({
  ...(Object.fromEntries(VIEW_FIELDS.map((field) => [field, SETTINGS_SPEC[field].default])) as unknown as Required<ViewOptions>),
  excludeTools: Object.freeze([]) as readonly string[],
});

/**
 * The `keepRecentToolResults` of a context manager's views while older results wait
 * for their summary: every result is kept, and the turns the view drops are
 * summarized rather than brought back on a later call (so, for one, a current
 * result is not compacted early to keep older turns in place).
 *
 * @example
 * ```ts
 * views.with({ keepRecentToolResults: EVERY_TOOL_RESULT });
 * ```
 */
export const EVERY_TOOL_RESULT = Number.MAX_SAFE_INTEGER;

/**
 * Validate view options once and fill in defaults. Throws `INVALID_OPTION` naming the field.
 *
 * @example
 * ```ts
 * resolveViewOptions({ dropStep: 0.5 }).keepRecentToolResults; // 3
 * ```
 */
export function resolveViewOptions(options: ViewOptions = {}): Required<ViewOptions> {
  const out: Record<string, unknown> = { ...DEFAULT_VIEW_OPTIONS };
  for (const field of VIEW_FIELDS) {
    const value = options[field];
    if (value !== undefined) out[field] = checkSetting(field, value);
  }
  // Not a number or a switch, so not in SETTINGS_SPEC: checked here, kept as a frozen copy.
  if (options.excludeTools !== undefined) out["excludeTools"] = Object.freeze([...checkExcludeTools(options.excludeTools, "excludeTools")]);
  return out as Required<ViewOptions>;
}

/** A budget from overrides or an already resolved budget (which is re-checked). */
export function budgetOf(budget: BuildContextInput["budget"]): ResolvedBudget {
  if (budget !== undefined && budget !== null && typeof budget === "object" && "promptLimit" in budget) {
    const { promptLimit: _ignored, ...fields } = budget as ResolvedBudget;
    return resolveBudget(fields, {});
  }
  return resolveBudget(budget);
}
