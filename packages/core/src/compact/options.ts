import { invalidOption } from "../errors.js";
import { checkEstimator, createEstimator, type Estimator } from "../estimate.js";
import { settingOrDefault } from "../settings/check.js";

/**
 * Options of {@link compactToolResult}. Every field has a default; the key lists
 * replace the defaults (spread the exported defaults to extend them).
 *
 * @example
 * ```ts
 * import { compactToolResult, DEFAULT_TEXT_FIELDS } from "@contextview/core/tool-results";
 * compactToolResult(message, 1500, { textFields: [...DEFAULT_TEXT_FIELDS, "body"] });
 * ```
 */
export interface CompactToolResultOptions {
  /**
   * How tokens are estimated; the limit bounds `estimator.estimateText(content)`.
   * @default createEstimator()
   */
  estimator?: Estimator;
  /**
   * Keys whose arrays are the main row collections: they are shortened first.
   * Arrays under other keys are shortened too, but keep twice as many rows.
   * @default DEFAULT_COLLECTION_KEYS
   */
  collectionKeys?: readonly string[];
  /**
   * Keys whose strings are prose that may become a prefix excerpt of any length.
   * Other strings keep at least 256 characters.
   * @default DEFAULT_TEXT_FIELDS
   */
  textFields?: readonly string[];
  /**
   * Row fields that identify a row; an omitted row keeps them in `omitted_refs`.
   * An entry starting with `*` matches a key suffix (`"*_id"` matches `account_id`).
   * @default DEFAULT_REFERENCE_FIELDS
   */
  referenceFields?: readonly string[];
  /**
   * Keys whose values are never shortened, at any depth (filters, query, totals…).
   * @default DEFAULT_PRESERVED_KEYS
   */
  preserveKeys?: readonly string[];
  /**
   * Longest heading index attached to a markdown excerpt.
   * @default 24
   */
  maxHeadings?: number;
  /**
   * Deepest nesting accepted in a structured payload; deeper artifacts are rejected
   * with `INVALID_TOOL_RESULT`, deeper JSON content is excerpted as text. The
   * projection recurses this deep, so keep it well under the stack's limit.
   * @default 200
   */
  maxDepth?: number;
  /**
   * Most values a payload may expand to (shared sub-objects count each time they
   * are reached), so a small artifact that expands exponentially is rejected.
   * @default 20_000_000
   */
  maxNodes?: number;
  /**
   * The name of a recall tool bound to this model call (see `createRecallTool`):
   * a compacted result then names the call of it that reads its omitted rows back
   * (a `"$recall"` key first in the JSON, charged within the limit). The view sets
   * it when it finds the recall tool among the call's tools.
   * @default undefined (the notes name no tool)
   */
  recallToolName?: string | undefined;
}

/**
 * Row collections common in tool payloads (finance and search APIs): their rows are
 * cut first and referred to, the rest of the payload kept.
 *
 * @example
 * ```ts
 * compactToolResult(message, 2000, { collectionKeys: [...DEFAULT_COLLECTION_KEYS, "items"] });
 * ```
 */
export const DEFAULT_COLLECTION_KEYS: readonly string[] = Object.freeze(["transactions", "rows", "results", "documents", "categories", "accounts", "payees"]);

/**
 * Prose fields that may be excerpted to any length.
 *
 * @example
 * ```ts
 * compactToolResult(message, 2000, { textFields: [...DEFAULT_TEXT_FIELDS, "body"] });
 * ```
 */
export const DEFAULT_TEXT_FIELDS: readonly string[] = Object.freeze(["markdown", "snippet", "content", "text", "memo", "description"]);

/**
 * Identifying fields kept for omitted rows: ids, numbers, paths, dates, urls and
 * source references. `*` entries match key suffixes.
 *
 * @example
 * ```ts
 * compactToolResult(message, 2000, { referenceFields: [...DEFAULT_REFERENCE_FIELDS, "name"] });
 * ```
 */
export const DEFAULT_REFERENCE_FIELDS: readonly string[] = Object.freeze([
  "id", "uuid", "key", "number", "path", "file", "filename", "url", "uri", "href", "link", "date",
  "source", "source_ref", "sourceRef", "ref", "reference", "line", "page",
  "*_id", "*Id", "*_number", "*Number", "*_path", "*Path", "*_url", "*Url", "*_date", "*Date", "*_at", "*_ref", "*Ref",
]);

/**
 * Metadata kept whole wherever it appears: filters, query, source references,
 * totals, counts, date ranges and note frontmatter.
 *
 * @example
 * ```ts
 * compactToolResult(message, 2000, { preserveKeys: [...DEFAULT_PRESERVED_KEYS, "params"] });
 * ```
 */
export const DEFAULT_PRESERVED_KEYS: readonly string[] = Object.freeze([
  "frontmatter", "filters", "filter", "query", "source", "sources", "source_ref", "source_refs", "sourceRef", "sourceRefs",
  "totals", "total", "count", "date_range", "dateRange", "period",
]);

/** Options after validation, with key lists turned into lookups. */
export interface ResolvedCompactOptions {
  readonly estimator: Estimator;
  readonly collectionKeys: ReadonlySet<string>;
  readonly textFields: ReadonlySet<string>;
  readonly preserveKeys: ReadonlySet<string>;
  readonly isReference: (key: string) => boolean;
  /** True for a reference field named exactly (not by a `*` suffix entry). */
  readonly isExactReference: (key: string) => boolean;
  readonly maxHeadings: number;
  readonly maxDepth: number;
  readonly maxNodes: number;
}

function keyList(field: string, value: readonly string[] | undefined, fallback: readonly string[]): readonly string[] {
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((key) => typeof key !== "string")) throw invalidOption(field, "an array of strings", value);
  return value;
}

/** Most distinct keys whose answer is remembered; rows repeat a few keys many times. */
const MATCH_CACHE_LIMIT = 4096;

function referenceMatcher(fields: readonly string[]): (key: string) => boolean {
  const exact = new Set<string>();
  const suffixes: string[] = [];
  for (const field of fields) {
    if (field.startsWith("*") && field.length > 1) suffixes.push(field.slice(1));
    else exact.add(field);
  }
  const seen = new Map<string, boolean>();
  return (key) => {
    let match = seen.get(key);
    if (match === undefined) {
      // A bare suffix ("_id") is not a reference by itself; it needs a prefix.
      match = exact.has(key) || suffixes.some((suffix) => key.length > suffix.length && key.endsWith(suffix));
      if (seen.size < MATCH_CACHE_LIMIT) seen.set(key, match);
    }
    return match;
  };
}

let defaultResolved: ResolvedCompactOptions | undefined;

/** Options that name only an estimator (as every view passes them), resolved once per estimator. */
const resolvedByEstimator = new WeakMap<object, ResolvedCompactOptions>();

const sharedResolutions = new WeakSet<ResolvedCompactOptions>();

function shared(resolved: ResolvedCompactOptions): ResolvedCompactOptions {
  sharedResolutions.add(resolved);
  return resolved;
}

/** True for options every call with the same estimator resolves to: results compacted with them may be remembered. */
export function isSharedResolution(resolved: ResolvedCompactOptions): boolean {
  return sharedResolutions.has(resolved);
}

/** Validate options; throws `INVALID_OPTION` naming the field. The defaults are resolved once, and once per estimator. */
export function resolveCompactOptions(options: CompactToolResultOptions | undefined): ResolvedCompactOptions {
  if (options === undefined) return (defaultResolved ??= shared(resolveFresh({})));
  if (typeof options !== "object" || options === null) throw invalidOption("options", "an object", options);
  const estimator: unknown = options.estimator;
  // The same resolved object for the same estimator also lets compaction remember large results (see result-memo.ts);
  // the recall tool's name is written after the memo (see compactToolResult), so it shares it.
  if (typeof estimator !== "object" || estimator === null || Object.keys(options).some((key) => key !== "estimator" && key !== "recallToolName")) return resolveFresh(options);
  let resolved = resolvedByEstimator.get(estimator);
  if (resolved === undefined) {
    resolved = shared(resolveFresh(options));
    resolvedByEstimator.set(estimator, resolved);
  }
  return resolved;
}

function resolveFresh(options: CompactToolResultOptions): ResolvedCompactOptions {
  const estimator = checkEstimator(options.estimator, "estimator") ?? createEstimator();
  if (typeof estimator !== "object" || estimator === null || typeof estimator.estimateText !== "function") {
    throw invalidOption("estimator", "an Estimator (see createEstimator)", estimator);
  }
  const references = keyList("referenceFields", options.referenceFields, DEFAULT_REFERENCE_FIELDS);
  return Object.freeze({
    estimator,
    collectionKeys: new Set(keyList("collectionKeys", options.collectionKeys, DEFAULT_COLLECTION_KEYS)),
    textFields: new Set(keyList("textFields", options.textFields, DEFAULT_TEXT_FIELDS)),
    preserveKeys: new Set(keyList("preserveKeys", options.preserveKeys, DEFAULT_PRESERVED_KEYS)),
    isReference: referenceMatcher(references),
    isExactReference: (key: string) => references.includes(key),
    maxHeadings: settingOrDefault("maxHeadings", options.maxHeadings),
    maxDepth: settingOrDefault("maxDepth", options.maxDepth),
    maxNodes: settingOrDefault("maxNodes", options.maxNodes),
  });
}
