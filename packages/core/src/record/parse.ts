import { invalidOption } from "../errors.js";
import { countAt, finiteAt, objectAt } from "../validate.js";
import { VIEW_RECORD_VERSION, type ViewInputHashes, type ViewRecordEntry } from "./types.js";

/**
 * Records kept per conversation by the stores, unless configured otherwise; the
 * oldest is evicted first. About 2 KB each, plus each distinct input text once.
 *
 * @example
 * ```ts
 * new InMemoryContextStore({ maxViewRecords: DEFAULT_MAX_VIEW_RECORDS * 2 });
 * ```
 */
export const DEFAULT_MAX_VIEW_RECORDS = 200;

const INPUT_FIELDS: readonly (keyof ViewInputHashes)[] = ["systemPrompt", "tools", "memories", "summary", "evidence", "evidenceBeside", "turnSummary"];
const HASH = /^[0-9a-f]{64}$/;

/**
 * A checked JSON copy of a view record entry, holding only the input texts its
 * hashes name. Throws `INVALID_OPTION` naming the first wrong field
 * (`entry.record.messages.count`, `entry.inputs`…). Stores call it before writing.
 *
 * @example
 * ```ts
 * const entry = parseViewRecordEntry(viewRecordOf(request, view, { source: "node" }));
 * ```
 */
export function parseViewRecordEntry(value: unknown): ViewRecordEntry {
  const entry = objectAt("entry", value);
  const record = objectAt("entry.record", entry["record"]);
  if (record["version"] !== VIEW_RECORD_VERSION) throw invalidOption("entry.record.version", String(VIEW_RECORD_VERSION), record["version"]);
  finiteAt("entry.record.recordedAt", record["recordedAt"]);
  if (typeof record["source"] !== "string") throw invalidOption("entry.record.source", "a string", record["source"]);
  const messages = objectAt("entry.record.messages", record["messages"]);
  for (const field of ["count", "offset", "readFrom"]) countAt(`entry.record.messages.${field}`, messages[field]);
  if (typeof messages["hash"] !== "string" || !HASH.test(messages["hash"])) throw invalidOption("entry.record.messages.hash", "a SHA-256 hex digest", messages["hash"]);
  const pins = messages["pins"];
  if (pins !== undefined) {
    if (!Array.isArray(pins)) throw invalidOption("entry.record.messages.pins", "an array of message indices", pins);
    pins.forEach((pin, i) => countAt(`entry.record.messages.pins.${i}`, pin));
  }
  const dates = messages["dates"];
  if (dates !== undefined) {
    if (!Array.isArray(dates)) throw invalidOption("entry.record.messages.dates", "an array of [message index, date] pairs", dates);
    dates.forEach((pair, i) => {
      const ok = Array.isArray(pair) && pair.length === 2 && (typeof pair[1] === "string" || pair[1] === null || (typeof pair[1] === "number" && Number.isFinite(pair[1])));
      if (!ok) throw invalidOption(`entry.record.messages.dates.${i}`, "a [message index, string | epoch time | null] pair", pair);
      countAt(`entry.record.messages.dates.${i}.0`, pair[0]);
    });
  }
  objectAt("entry.record.options", record["options"]);
  objectAt("entry.record.report", record["report"]);
  const hashes = objectAt("entry.record.inputs", record["inputs"]);
  const texts = objectAt("entry.inputs", entry["inputs"] ?? {});
  const inputs: Record<string, string> = {};
  for (const field of INPUT_FIELDS) {
    const hash = hashes[field];
    // Records made before turn summaries have no such field; one that keeps its evidence whole has no `evidenceBeside`.
    if (hash === null || (hash === undefined && (field === "turnSummary" || field === "evidenceBeside"))) continue;
    if (typeof hash !== "string" || !HASH.test(hash)) throw invalidOption(`entry.record.inputs.${field}`, "null or a SHA-256 hex digest", hash);
    const text = texts[hash];
    if (text === undefined) continue;
    if (typeof text !== "string") throw invalidOption(`entry.inputs.${hash.slice(0, 12)}…`, "a string", text);
    inputs[hash] = text;
  }
  const { sequence: _sequence, ...rest } = record;
  return { record: JSON.parse(JSON.stringify(rest)) as ViewRecordEntry["record"], inputs };
}

/**
 * Checks a store's `maxViewRecords` option: a non-negative integer, or the default.
 *
 * @example
 * ```ts
 * resolveMaxViewRecords(undefined); // 200
 * resolveMaxViewRecords(-1); // throws INVALID_OPTION naming `maxViewRecords`
 * ```
 */
export function resolveMaxViewRecords(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_VIEW_RECORDS;
  if (!Number.isSafeInteger(value) || value < 0) throw invalidOption("maxViewRecords", "a non-negative integer (0 keeps none)", value);
  return value;
}
