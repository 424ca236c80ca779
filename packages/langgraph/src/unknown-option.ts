import { closestName } from "./closest-name.js";
import { ContextIntegrationError } from "./errors.js";
import { BUDGET_SETTING_KEYS } from "./request-config.js";

/**
 * The options most agents set, in the order an unknown-option error lists them. Every
 * option is in docs/configuration.md and docs/langgraph.md.
 */
export const EVERYDAY_OPTIONS: readonly string[] = Object.freeze([
  "store",
  "budget",
  "summarizer",
  "model",
  "systemPrompt",
  "tools",
  "evidence",
  "memories",
  "keepRecentToolResults",
  "maxToolResultTokens",
  "onReport",
  "logger",
]);

/** Options of LangChain's middlewares and other libraries, and what does their job here; the 0.x names of options. */
const EQUIVALENTS: Readonly<Record<string, string>> = Object.freeze({
  keepRecent: "renamed `keepRecentToolResults` in 1.0 (docs/migrating.md); the former name is not read",
  maxResultTokens: "renamed `maxToolResultTokens` in 1.0 (docs/migrating.md); the former name is not read",
  trigger:
    "LangChain's `trigger` is not an option here: a summary is made when the view would pass the prompt limit " +
    "(`budget: { promptBudget }`) or `summaries.triggerRatio` of the context window, whichever is lower",
  keep:
    "LangChain's `keep` is `summaries: { keepMinTokens, keepMinText }` here (the newest tokens and text messages kept verbatim after a summary), " +
    "bounded by `keepMaxTokens`",
  maxTokensBeforeSummary: "a summary is made when the view would pass `budget: { promptBudget }` (or `summaries.triggerRatio` of the context window)",
  messagesToKeep: "the newest messages kept verbatim after a summary are `summaries.keepMinText` (text messages) and `summaries.keepMinTokens`",
  summaryPrompt: "a summary prompt goes to the summarizer: `summarizer: chatModelSummarizer(model, { prompt })`",
  tokenCounter: "a token counter goes to the estimator: `estimator: createEstimator({ tokenCounter })`",
  systemMessage: "did you mean `systemPrompt`? (a string or a SystemMessage)",
  llm: "did you mean `model`? (the node's chat model, for its profile)",
});


/**
 * The error for a factory option no factory has: the closest option first
 * (``did you mean `budget`?``; a budget field given beside `budget` is pointed inside it; a
 * LangChain name such as `trigger` or `keep` to what does its job here), then the
 * everyday options, not all of them.
 *
 * @example
 * ```ts
 * unknownOption("budgt", OPTION_KEYS).message;
 * // "Unknown option `budgt`; did you mean `budget`? Everyday options: `store`, `budget`, … (all of them: docs/configuration.md)"
 * ```
 */
export function unknownOption(field: string, optionKeys: readonly string[]): ContextIntegrationError {
  const everyday = `Everyday options: ${EVERYDAY_OPTIONS.map((key) => `\`${key}\``).join(", ")} (all of them: docs/configuration.md)`;
  const equivalent = Object.hasOwn(EQUIVALENTS, field) ? EQUIVALENTS[field] : undefined;
  if (equivalent !== undefined) return new ContextIntegrationError("INVALID_OPTION", `Unknown option \`${field}\`: ${equivalent}. ${everyday}`, { field });
  if (BUDGET_SETTING_KEYS.includes(field)) {
    const inside = `(budget fields go inside \`budget\`: \`budget: { ${field}: … }\`)`;
    return new ContextIntegrationError("INVALID_OPTION", `Unknown option \`${field}\`; did you mean \`budget.${field}\`? ${inside}. ${everyday}`, { field });
  }
  const candidates = [...EVERYDAY_OPTIONS, ...BUDGET_SETTING_KEYS.map((name) => `budget.${name}`), ...optionKeys];
  // An option in a group (or a budget field) is matched by its own name: `promptBudgt` means
  // `budget.promptBudget`, `recordView` `advanced.recordViews`; so is the key given in a group.
  const leafOf = (name: string) => name.slice(name.lastIndexOf(".") + 1);
  const closest = closestName(leafOf(field), candidates.map(leafOf));
  const suggestion = closest === undefined ? undefined : candidates.find((name) => leafOf(name) === closest);
  const guess = suggestion === undefined ? "." : `; did you mean \`${suggestion}\`?`;
  return new ContextIntegrationError("INVALID_OPTION", `Unknown option \`${field}\`${guess} ${everyday}`, { field });
}
