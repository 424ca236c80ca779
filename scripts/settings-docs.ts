// The settings tables of the docs, rendered from core's SETTINGS_SPEC. Each table sits
// between two markers, `<!-- settings-table:<kind> … -->` and `<!-- /settings-table:<kind> -->`;
// `pnpm docs:settings` rewrites what is between them, and a core test fails when a doc
// and the spec disagree. Pure: reading and writing files is scripts/settings-table.ts's job.
import { resolveBudget } from "../packages/core/src/budget.js";
import { settingExpectation, settingNames } from "../packages/core/src/settings/check.js";
import { SETTINGS_SPEC, type SettingGroup, type SettingName, type SettingSpec } from "../packages/core/src/settings/spec.js";

/** The docs that hold generated settings tables, from the repository root. */
export const SETTINGS_DOCS: readonly string[] = ["docs/configuration.md", "docs/langgraph.md"];

/** Which settings each kind of table lists, and its columns. */
const TABLES = {
  budget: { groups: ["budget"], columns: ["option", "default", "env", "accepts", "meaning"] },
  view: { groups: ["view"], columns: ["option", "default", "accepts", "meaning"] },
  summarize: { groups: ["summarize", "manager"], columns: ["option", "default", "accepts", "meaning"] },
  estimator: { groups: ["estimator"], columns: ["option", "default", "accepts", "meaning"] },
  request: { groups: ["budget", "summarize", "view"], columns: ["field", "accepts", "default"] },
} as const satisfies Record<string, { groups: readonly SettingGroup[]; columns: readonly string[] }>;

/** A kind of settings table. */
export type SettingsTableKind = keyof typeof TABLES;

const MARKER = /<!-- settings-table:(\w+)[^>]*-->\n[\s\S]*?<!-- \/settings-table:\1 -->/g;

function defaultOf(spec: SettingSpec): string {
  const value = spec.default;
  let text: string;
  if (typeof value === "object") {
    // Shown with what it comes to under the default budget, so a reader has a number.
    const promptLimit = resolveBudget({}, {}).promptLimit;
    text = `${Math.round(value.shareOfPromptLimit * 100)}% of the prompt limit (${Math.round(value.shareOfPromptLimit * promptLimit)} by default)`;
  } else {
    text = String(value);
  }
  return spec.defaultNote === undefined ? text : `${text} (${spec.defaultNote})`;
}

function cell(text: string): string {
  return text.replace(/\|/g, "\\|");
}

function rowOf(kind: SettingsTableKind, field: SettingName): string {
  const spec: SettingSpec = SETTINGS_SPEC[field];
  const cells: Record<string, string> = {
    option: `\`${field}\``,
    field: `\`${spec.group === "budget" ? `budget.${field}` : field}\``,
    default: defaultOf(spec),
    env: spec.env === undefined ? "" : `\`${spec.env}\``,
    accepts: settingExpectation(field),
    meaning: spec.doc,
  };
  return `| ${TABLES[kind].columns.map((column) => cell(cells[column] ?? "")).join(" | ")} |`;
}

/**
 * The markdown table of one kind, without markers.
 *
 * @example
 * ```ts
 * settingsTable("budget").split("\n")[2]; // "| `contextWindow` | 32768 | `CONTEXT_WINDOW_TOKENS` | a positive integer | … |"
 * ```
 */
export function settingsTable(kind: SettingsTableKind): string {
  const { groups, columns } = TABLES[kind];
  const inTable = (spec: SettingSpec) => (groups as readonly SettingGroup[]).includes(spec.group) && !(kind === "request" && (spec.scope !== "request" || spec.notInRequestConfig === true));
  const fields = settingNames(inTable);
  // Group order, then spec order within a group.
  fields.sort((a, b) => (groups as readonly SettingGroup[]).indexOf(SETTINGS_SPEC[a].group) - (groups as readonly SettingGroup[]).indexOf(SETTINGS_SPEC[b].group));
  return [`| ${columns.join(" | ")} |`, `|${columns.map(() => "---").join("|")}|`, ...fields.map((field) => rowOf(kind, field))].join("\n");
}

/**
 * The document with every marked settings table rendered from the spec. Throws on a
 * marker of an unknown kind, so a typo does not leave a table unchecked.
 *
 * @example
 * ```ts
 * withSettingsTables(readFileSync("docs/configuration.md", "utf8"));
 * ```
 */
export function withSettingsTables(markdown: string): string {
  return markdown.replace(MARKER, (block: string, kind: string) => {
    if (!(kind in TABLES)) throw new Error(`Unknown settings table \`${kind}\`; expected one of ${Object.keys(TABLES).join(", ")}`);
    const start = block.slice(0, block.indexOf("\n") + 1);
    return `${start}${settingsTable(kind as SettingsTableKind)}\n<!-- /settings-table:${kind} -->`;
  });
}

/**
 * The kinds of the tables marked in a document, in order.
 *
 * @example
 * ```ts
 * markedTables(readFileSync("docs/langgraph.md", "utf8")); // ["request"]
 * ```
 */
export function markedTables(markdown: string): string[] {
  return [...markdown.matchAll(MARKER)].map((match) => match[1] as string);
}
