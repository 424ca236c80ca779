// How kept rows are projected: nested objects to their identifiers and names, lists of named objects to their names.
import { COMPACTED_KEY, isRecord, record, type Json } from "./earlier-nodes.js";

/** Said on a rows node whose kept rows were projected. */
export const PROJECTION_NOTE = "Kept rows are projected: nested objects show their identifying fields, lists of named objects their names, long texts an excerpt.";

/** Keys that name a nested object (a user's login, a label's name). */
const NAME_KEYS: readonly string[] = ["name", "login", "username", "title", "label", "display_name", "displayName", "full_name", "email", "slug", "key", "state", "status"];
/** Keys whose value stands for an object in a list of them (labels by name, assignees by login). */
const LIST_NAME_KEYS: readonly string[] = ["name", "login", "username", "title", "label", "display_name", "displayName", "full_name"];
/** Keys that identify a nested object. */
const ID_KEYS: ReadonlySet<string> = new Set(["id", "uuid", "number", "key", "slug", "code", "sku"]);
/** Longest string a projected nested object keeps. */
const SHORT_SCALAR_CHARS = 64;
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

function isShortScalar(value: unknown): boolean {
  if (typeof value === "number" || typeof value === "boolean") return true;
  return typeof value === "string" && value !== "" && value.length <= SHORT_SCALAR_CHARS && !URL_LIKE.test(value);
}

/**
 * A nested object of a kept row, projected: its identifiers and names (a user
 * object to its `login` and `id`), or, when it has neither, its short scalars
 * (no links, no nested values). Undefined when the projection would keep it whole.
 */
export function shrinkNested(value: Json, isReference: (key: string) => boolean): Json | undefined {
  const keys = Object.keys(value);
  let kept = keys.filter((key) => (ID_KEYS.has(key) || NAME_KEYS.includes(key)) && isShortScalar(value[key]));
  if (kept.length === 0) kept = keys.filter((key) => isShortScalar(value[key]) && !(isReference(key) && typeof value[key] === "string" && URL_LIKE.test(value[key] as string)));
  if (kept.length === keys.length) return undefined;
  const out = record();
  for (const key of kept) out[key] = value[key];
  return out;
}

/** An array of named objects (labels, assignees) as their names; undefined for any other array. */
export function namesOf(items: readonly unknown[]): string[] | undefined {
  if (items.length === 0 || !isRecord(items[0])) return undefined;
  const first = items[0];
  const key = LIST_NAME_KEYS.find((name) => typeof first[name] === "string");
  if (key === undefined || Object.keys(first).length < 2) return undefined;
  const names: string[] = [];
  for (const item of items) {
    if (!isRecord(item) || typeof item[key] !== "string" || typeof item[COMPACTED_KEY] === "string") return undefined;
    names.push(item[key] as string);
  }
  return names;
}

/** A nested omission without its references, for the identifiers-only and count-only forms. */
export function withoutReferences(entry: Json): Json {
  if (!("omitted_refs" in entry)) return entry;
  const out = record();
  for (const key of Object.keys(entry)) if (key !== "omitted_refs") out[key] = entry[key];
  return out;
}
