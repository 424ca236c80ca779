import { describeValue } from "@contextview/core/internal";
import { ContextIntegrationError } from "./errors.js";
import { unknownOption } from "./unknown-option.js";

/** The options a factory takes at its top level: the ones most agents set. */
export const TOP_LEVEL_OPTIONS = [
  "store",
  "budget",
  "model",
  "profile",
  "summarizer",
  "summarize",
  "systemPrompt",
  "tools",
  "evidence",
  "memories",
  "onReport",
  "logger",
  "resolveUserId",
  "pin",
  "estimator",
  "keepRecentToolResults",
  "maxToolResultTokens",
] as const;

/**
 * The options that sit in a group, by group: how the view is shaped (`view`), when a
 * summary is made and how its summarizer is called (`summaries`), and hooks and switches
 * few agents need (`advanced`). One request overrides the view and summary settings with
 * the same names, flat, in its `context` (see docs/configuration.md).
 */
export const OPTION_GROUPS = {
  view: [
    "dropStep",
    "maxOlderMessageTokens",
    "maxToolCallProseTokens",
    "excerptBudget",
    "imageInputs",
    "clearStep",
    "cacheBreakpoints",
    "pinOpeningRequest",
    "maxOpeningRequestTokens",
    "pinnedBudget",
    "trustPinField",
    "recallBudget",
    "evidenceShare",
    "pinnedImages",
    "messageDate",
    "excludeTools",
  ],
  summaries: [
    "triggerRatio",
    "keepMinTokens",
    "keepMinText",
    "keepMaxTokens",
    "summarizerInputTokens",
    "summarizerTimeoutMs",
    "maxSummarizerFailures",
    "summarizerCooldownMs",
  ],
  advanced: [
    "calibrate",
    "isOverflow",
    "onCompaction",
    "writeBack",
    "onStoreError",
    "largeResults",
    "largeResultWorker",
    "now",
    "strictEvidence",
    "recordViews",
  ],
} as const;

/** The name of an option group. */
export type OptionGroup = keyof typeof OPTION_GROUPS;

/** Where each grouped option sits, for the errors that point to it. */
const GROUP_OF: ReadonlyMap<string, OptionGroup> = new Map(
  (Object.keys(OPTION_GROUPS) as OptionGroup[]).flatMap((group) => OPTION_GROUPS[group].map((key): [string, OptionGroup] => [key, group])),
);

/**
 * Where the factory takes an option: `group.key` for a grouped one, the key itself otherwise.
 *
 * @example
 * ```ts
 * placeOf("dropStep"); // "view.dropStep"
 * placeOf("store"); // "store"
 * ```
 */
export function placeOf(key: string): string {
  const group = GROUP_OF.get(key);
  return group === undefined ? key : `${group}.${key}`;
}

/** Every place an option can be named at: the top-level keys, the groups, and `group.key` for each grouped one. */
export const OPTION_PLACES: readonly string[] = Object.freeze([
  ...TOP_LEVEL_OPTIONS,
  ...Object.keys(OPTION_GROUPS),
  ...[...GROUP_OF].map(([key, group]) => `${group}.${key}`),
]);

/**
 * The factory's options with each group's keys lifted to the top, as the manager and the
 * integration read them. Throws `INVALID_OPTION` naming the field: a key no option has (the
 * closest first), a grouped option given at the top level or in another group (saying
 * where it goes), a group that is not a plain object.
 *
 * @example
 * ```ts
 * flattenOptions({ store, view: { dropStep: 0 }, summaries: { keepMinText: 2 } }); // { store, dropStep: 0, keepMinText: 2 }
 * flattenOptions({ dropStep: 0 }); // throws: Option `dropStep` is not read there; it goes in `view.dropStep` (`view: { dropStep }`)
 * ```
 */
export function flattenOptions(options: Record<string, unknown>): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if ((TOP_LEVEL_OPTIONS as readonly string[]).includes(key)) flat[key] = value;
    else if (Object.hasOwn(OPTION_GROUPS, key)) Object.assign(flat, groupEntries(key as OptionGroup, value));
    else throw misplacedOrUnknown(key, GROUP_OF.get(key));
  }
  return flat;
}

function groupEntries(group: OptionGroup, value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const keys = OPTION_GROUPS[group].slice(0, 3).join(", ");
    const message = `Expected \`${group}\` to be an object of ${group} options (${keys}, …), got ${describeValue(value)}`;
    throw new ContextIntegrationError("INVALID_OPTION", message, { field: group });
  }
  const entries: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    const home = GROUP_OF.get(key);
    if (home !== group) throw misplacedOrUnknown(`${group}.${key}`, home, key);
    entries[key] = inner;
  }
  return entries;
}

/** `field` is not an option where it was given: say where it goes, or the closest option. */
function misplacedOrUnknown(field: string, home: OptionGroup | undefined, key = field): ContextIntegrationError {
  const topLevel = (TOP_LEVEL_OPTIONS as readonly string[]).includes(key);
  if (home === undefined && !topLevel) return unknownOption(field, OPTION_PLACES);
  const place = home === undefined ? `\`${key}\`, at the top level` : `\`${home}.${key}\` (\`${home}: { ${key} }\`)`;
  return new ContextIntegrationError("INVALID_OPTION", `Option \`${field}\` is not read there; it goes in ${place}`, { field });
}
