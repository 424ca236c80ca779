import { describeValue } from "@contextview/core/internal";
import type { ContextSettings } from "@contextview/core";
import { z } from "zod";
import { ContextIntegrationError } from "./errors.js";

const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const nonNegativeInt = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** What each field accepts, for error messages; keyed by the field's own name. */
const EXPECTED: Readonly<Record<string, string>> = {
  budget: "an object of budget fields",
  contextWindow: "a positive integer",
  promptBudget: "a positive integer",
  responseReserve: "a non-negative integer",
  safetyReserve: "a non-negative integer",
  memoryBudget: "a non-negative integer",
  summarize: "a boolean",
  triggerRatio: "a number between 0 and 1 (exclusive)",
  keepMinTokens: "a non-negative integer",
  keepMinText: "a non-negative integer",
  keepMaxTokens: "a non-negative integer",
  dropStep: "a number from 0 to 0.9",
  maxOlderMessageTokens: "a non-negative integer",
  maxToolCallProseTokens: "a non-negative integer",
  excerptBudget: "a non-negative integer",
  keepRecentToolResults: "a non-negative integer",
  maxToolResultTokens: "an integer of at least 50",
  clearStep: "a positive integer",
  cacheBreakpoints: "a boolean",
  pinOpeningRequest: "a boolean",
  maxOpeningRequestTokens: "an integer of at least 50",
  pinnedBudget: "a non-negative integer",
};

/**
 * The zod schema of `config.configurable.context`: the settings one request may
 * override. Strict: an unknown key is an error that names it. Every field is
 * optional; a request value overrides the factory's, which overrides the default.
 *
 * @example
 * ```ts
 * await graph.invoke(input, {
 *   configurable: {
 *     thread_id: "t-1",
 *     user_id: "u-1",
 *     context: { budget: { promptBudget: 8000 }, summarize: false, keepMinText: 2 },
 *   },
 * });
 * ```
 */
export const contextConfigSchema = z.strictObject({
  /** Budget fields, in estimated tokens. @default DEFAULT_BUDGET of @contextview/core (and the environment) */
  budget: z
    .strictObject({
      /** The model's context window. @default 32768 */
      contextWindow: positiveInt.optional(),
      /** Target for the whole prompt. @default 16000 */
      promptBudget: positiveInt.optional(),
      /** Room kept for the answer. @default 4096 */
      responseReserve: nonNegativeInt.optional(),
      /** Room kept for estimation error. @default 2048 */
      safetyReserve: nonNegativeInt.optional(),
      /** Budget of saved memories. @default 1000 */
      memoryBudget: nonNegativeInt.optional(),
    })
    .optional(),
  /** Summarize older turns when a summarizer is configured; `false` drops them instead. @default true */
  summarize: z.boolean().optional(),
  /** Share of the context window that triggers summarizing. @default 0.75 */
  triggerRatio: z.number().gt(0).lt(1).optional(),
  /** Newest estimated tokens kept verbatim by a summary cut. @default 2000 */
  keepMinTokens: nonNegativeInt.optional(),
  /** Newest text messages kept verbatim by a summary cut. @default 4 */
  keepMinText: nonNegativeInt.optional(),
  /** Stop gathering the kept tail at this many tokens. @default 6000 */
  keepMaxTokens: nonNegativeInt.optional(),
  /** Share of the history budget dropped at once (prompt-cache stability). @default 0.25 */
  dropStep: z.number().min(0).max(0.9).optional(),
  /** Longest older message, in estimated tokens, before it becomes an excerpt. @default 1000 */
  maxOlderMessageTokens: nonNegativeInt.optional(),
  /** Longest prose of an older tool-calling AI message. @default 200 */
  maxToolCallProseTokens: nonNegativeInt.optional(),
  /** Estimated tokens for excerpts of dropped turns (no summary). @default 600 */
  excerptBudget: nonNegativeInt.optional(),
  /** Tool results kept whole by micro-compaction. @default 3 */
  keepRecentToolResults: nonNegativeInt.optional(),
  /** Largest tool result kept whole when over budget, in estimated tokens. @default 2000 */
  maxToolResultTokens: z.number().int().min(50).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Older tool results cleared at once, about (prompt-cache stability). @default 4 */
  clearStep: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Mark Anthropic cache breakpoints at the end of the head and of the older turns. @default false */
  cacheBreakpoints: z.boolean().optional(),
  /** Keep the request that started the conversation in every view. @default true */
  pinOpeningRequest: z.boolean().optional(),
  /** Longest opening request kept verbatim, in estimated tokens; beyond it, an excerpt of its ends. @default 1500 */
  maxOpeningRequestTokens: z.number().int().min(50).max(Number.MAX_SAFE_INTEGER).optional(),
  /** Estimated tokens shared by the application's pinned messages; `0` turns them off. @default 3000 */
  pinnedBudget: nonNegativeInt.optional(),
});

/** Per-request settings, as accepted in `config.configurable.context` (inferred from {@link contextConfigSchema}). */
export type ContextConfig = z.infer<typeof contextConfigSchema>;

/** The keys of {@link ContextConfig}: the settings a factory option may also set. */
export const CONTEXT_SETTING_KEYS: readonly (keyof ContextConfig)[] = Object.freeze(Object.keys(contextConfigSchema.shape) as (keyof ContextConfig)[]);

/**
 * Validate per-request settings and return them as core `ContextSettings`.
 * Throws a {@link ContextIntegrationError} whose message and `field` name the
 * first wrong field under `prefix`: ``Expected `context.budget.promptBudget` to be a positive integer, got -1``.
 *
 * @param value - The raw value, e.g. `config.configurable.context`; `undefined` and `null` mean "no overrides".
 * @param prefix - How the value is named in messages.
 * @default prefix "context"
 * @example
 * ```ts
 * parseContextConfig({ summarize: false }); // { summarize: false }
 * parseContextConfig({ budgt: {} }); // throws: Unknown setting `context.budgt` …
 * ```
 */
export function parseContextConfig(value: unknown, prefix = "context", code: "INVALID_REQUEST_CONFIG" | "INVALID_OPTION" = "INVALID_REQUEST_CONFIG"): ContextSettings {
  if (value === undefined || value === null) return {};
  let result: ReturnType<typeof contextConfigSchema.safeParse>;
  try {
    result = contextConfigSchema.safeParse(value);
  } catch (cause) {
    // A getter or proxy of the caller's object threw while it was read.
    throw new ContextIntegrationError(code, `Could not read \`${prefix}\`: reading it threw ${describeValue(cause)}`, { field: prefix, cause });
  }
  if (result.success) return withoutUndefined(result.data) as ContextSettings;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    const field = fieldName(prefix, [...path, issue.keys[0] ?? ""]);
    const allowed = path.length === 0 ? CONTEXT_SETTING_KEYS : Object.keys(contextConfigSchema.shape.budget.unwrap().shape);
    throw new ContextIntegrationError(code, `Unknown setting \`${field}\`; expected one of ${allowed.map((key) => `\`${key}\``).join(", ")}`, { field });
  }
  const field = fieldName(prefix, path);
  const leaf = path[path.length - 1];
  const expected = (leaf === undefined ? undefined : EXPECTED[leaf]) ?? "an object of context settings";
  throw new ContextIntegrationError(code, `Expected \`${field}\` to be ${expected}, got ${describeValue(valueAt(value, path))}`, { field });
}

function fieldName(prefix: string, path: readonly string[]): string {
  return [prefix, ...path].filter((part) => part !== "").join(".");
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const key of path) current = typeof current === "object" && current !== null ? (current as Record<string, unknown>)[key] : undefined;
  return current;
}

/** Optional fields parsed as `undefined` are left out, as `exactOptionalPropertyTypes` wants. */
function withoutUndefined<T extends object>(value: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === undefined) continue;
    out[key] = typeof field === "object" && field !== null && !Array.isArray(field) ? withoutUndefined(field) : field;
  }
  return out as T;
}

