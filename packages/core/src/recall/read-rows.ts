import { resolveCompactOptions, type ResolvedCompactOptions } from "../compact/options.js";
import { isRecord } from "../compact/earlier-nodes.js";
import { echoList, fits, referenceOf, longestFitting, messageLabel, nextCall, RECALLED_LABEL, recallError } from "./recalled-text.js";
import type { RecallAnswer, RecallContext, RecalledMessage } from "./recalled-text.js";
import { clipEcho, inlineName } from "../inline-text.js";
import { asRanges, indexOf, parsedResultOf, parseRowNumbers, pathName, rowsWithId, type ParsedResult, type RowCollection } from "./tool-result-rows.js";

/** Where rows were read from, as an answer says it. */
const ORIGIN = { artifact: "artifact", model_context: "artifact's model_context", content: "content" } as const;

/** What `rows` asks for: rows of one tool result, by identifiers or by row numbers. */
export interface RowsRequest {
  /** The tool result: an index, a message id or its `tool_call_id`. */
  message: number | string | undefined;
  /** The collection: its key (`transactions`) or path (`data.items`, `$` for a top-level array; `orders.3.lines` for an array inside the row at position 3, from 0). @default the one the references name, else the largest recognised one */
  collection?: string | undefined;
  /** Identifiers the note printed (`omitted_refs`, `omitted_ids`): rows holding them in an identifying field. */
  ids?: ReadonlyArray<string | number> | undefined;
  /** Row numbers (from 1, as "Rows 13-500 of 500" counts them): numbers or ranges such as `"13-20"`. */
  rows?: ReadonlyArray<number | string> | undefined;
  /** Characters of the first requested row's JSON already read (a row too long for one answer). @default 0 */
  offset?: number | undefined;
}

/**
 * Read rows of a tool result back from the checkpoint, exactly as the tool returned
 * them, from what compaction reads (see `originalPayloadOf`: the artifact's
 * `model_context`, else the artifact, else the JSON content). One row a
 * line, `{"row": n, "value": …}`; as many as fit the bound, then the exact call
 * that reads the rest. References that match nothing are named.
 */
export function readRows(selected: RecalledMessage, request: RowsRequest, context: RecallContext): RecallAnswer {
  if (selected.kind !== "tool") return recallError(`message ${selected.index} is not a tool result (rows are read from tool results; \`read\` reads any message).`);
  const options = resolveCompactOptions({ estimator: context.estimator });
  const parsed = parsedResultOf(selected.message, options, context.wholeArtifacts === true);
  const { payload, collections } = parsed;
  if (typeof payload === "string") return recallError(`message ${selected.index} has no rows to read: ${payload}.`);
  if (collections.length === 0) {
    return recallError(`the ${ORIGIN[payload.origin]} of message ${selected.index} holds no array of rows; \`read\` reads its text.`);
  }
  const ids = request.ids ?? [];
  const numbers = parseRowNumbers(request.rows ?? []);
  if (numbers === undefined) return recallError('`rows` takes row numbers from 1 and ranges such as "13-20" (at most 100000 rows).');
  if (ids.length === 0 && numbers.length === 0) return recallError("name the rows to read: `ids` (identifiers from the note's omitted_refs or omitted_ids) or `rows` (row numbers such as \"13-20\").");
  const offset = request.offset ?? 0;
  if (!Number.isSafeInteger(offset) || offset < 0) return recallError(`\`offset\` must be a non-negative integer, got ${String(request.offset)}.`);

  const collection = chooseCollection(parsed, request.collection, ids, options);
  if (typeof collection === "string") return recallError(collection);
  const total = collection.rows.length;
  const { wanted, missingIds, missingRows } = rowsAsked(parsed, collection, ids, numbers, options);
  const name = pathName(collection.path);
  const shownName = inlineName(name, 200);
  const missing: string[] = [];
  if (missingIds.length > 0) {
    const listed = echoList(missingIds.map((id) => JSON.stringify(typeof id === "string" ? clipEcho(id, 80) : id)));
    const pronoun = missingIds.length === 1 ? "it" : "them";
    missing.push(`[Not found in \`${shownName}\` (${total} rows): ${listed} — no row holds ${pronoun} in an identifying field.]`);
  }
  if (missingRows.length > 0) missing.push(`[Not found: rows ${echoList(asRanges(missingRows).map(String))} — \`${shownName}\` has ${total} rows.]`);
  if (wanted.length === 0) return recallError(`message ${selected.index}: ${missing.map((line) => line.slice(1, -1)).join(" ")}`);

  const reference = referenceOf(request.message, selected.index);
  const others = collections.filter((c) => c !== collection).slice(0, 8).map((c) => `\`${inlineName(pathName(c.path), 200)}\` (${c.rows.length})`);
  const header = [
    RECALLED_LABEL,
    `${messageLabel(selected, context)} · \`${shownName}\`: ${total} rows, read from the ${ORIGIN[payload.origin]} as the tool returned them, ` +
      `one JSON line a row ({"row": number from 1, "value": the row}):`,
  ];
  if (others.length > 0) header.push(`[Other arrays in this result: ${others.join(", ")}; name one in \`collection\`.]`);
  const footer = (rest: readonly number[], restOffset: number): string[] => {
    if (rest.length === 0) return missing;
    const args: Record<string, unknown> = { action: "rows", message: reference, collection: name, rows: asRanges(rest) };
    if (restOffset > 0) args["offset"] = restOffset;
    return [...missing, `[Not shown yet: rows ${asRanges(rest).join(", ")}. To read them, ${nextCall(context, args)}.]`];
  };

  const body: string[] = [];
  let k = 0;
  let nextOffset = 0;
  for (; k < wanted.length; k++) {
    const row = wanted[k]!;
    const json = JSON.stringify(collection.rows[row - 1]) ?? "null";
    const start = k === 0 ? Math.min(offset, json.length) : 0;
    const line = start === 0 ? `{"row":${row},"value":${json}}` : partLine(row, json, start, json.length);
    if (fits(context, [...header, ...body, line, ...footer(wanted.slice(k + 1), 0)])) {
      body.push(line);
      continue;
    }
    if (body.length > 0) break;
    // A row longer than one answer: its JSON in character ranges, the next one named exactly.
    const length = longestFitting(context, json.slice(start), json.length - start, (part) => [...header, partLine(row, json, start, start + part.length), ...footer(wanted.slice(k), start + part.length)]);
    body.push(partLine(row, json, start, start + length));
    nextOffset = start + length;
    if (nextOffset >= json.length) {
      k++;
      nextOffset = 0;
    }
    break;
  }
  return { text: [...header, ...body, ...footer(wanted.slice(k), nextOffset)].join("\n"), error: false };
}

/** The row numbers (from 1) a request names in a collection, in its order without repeats, and the references that name none. */
function rowsAsked(
  parsed: ParsedResult,
  collection: RowCollection,
  ids: ReadonlyArray<string | number>,
  numbers: readonly number[],
  options: ResolvedCompactOptions,
) {
  const total = collection.rows.length;
  const wanted: number[] = [];
  const seen = new Set<number>();
  const want = (n: number) => {
    if (!seen.has(n)) wanted.push(n), seen.add(n);
  };
  const missingIds: Array<string | number> = [];
  for (const id of ids) {
    const found = rowsWithId(indexOf(parsed, collection, options), id);
    if (found.length === 0) missingIds.push(id);
    for (const row of found) want(row + 1);
  }
  const missingRows = numbers.filter((n) => n > total);
  for (const n of numbers) if (n <= total) want(n);
  return { wanted, missingIds, missingRows };
}

/** Part of a row's JSON, characters `from`-`to` of it, as a string value. */
function partLine(row: number, json: string, from: number, to: number): string {
  return `{"row":${row},"characters":[${from},${to}],"of":${json.length},"json_part":${JSON.stringify(json.slice(from, to))}}`;
}

/**
 * The array a path names through rows (`orders.3.lines`: the `lines` of the row at
 * position 3, from 0, of `orders`; `$.3.lines` in a top-level array), as the notes
 * name arrays nested in rows.
 */
function collectionAt(collections: readonly RowCollection[], named: string): RowCollection | undefined {
  const keys = named.split(".");
  for (const outer of collections) {
    const prefix = outer.path.length === 0 ? ["$"] : outer.path;
    if (keys.length <= prefix.length || prefix.some((key, i) => keys[i] !== key)) continue;
    let node: unknown = outer.rows;
    for (const key of keys.slice(prefix.length)) {
      node = Array.isArray(node) ? (/^\d+$/.test(key) ? node[Number(key)] : undefined) : isRecord(node) && Object.hasOwn(node, key) ? node[key] : undefined;
      if (node === undefined) break;
    }
    if (Array.isArray(node) && node.length > 0) return { path: keys, rows: node };
  }
  return undefined;
}

/**
 * The collection a request reads: the one it names, else the one holding most of
 * its identifiers, else the largest recognised collection (`collectionKeys`, or a
 * top-level array) and then the largest array.
 */
function chooseCollection(
  parsed: ParsedResult,
  named: string | undefined,
  ids: ReadonlyArray<string | number>,
  options: ResolvedCompactOptions,
): RowCollection | string {
  const { collections } = parsed;
  const list = echoList(collections.map((c) => `\`${inlineName(pathName(c.path), 200)}\` (${c.rows.length} rows)`));
  if (named !== undefined && named !== "") {
    const exact = collections.find((c) => pathName(c.path) === named);
    const byKey = collections.filter((c) => c.path[c.path.length - 1] === named);
    const found = exact ?? (byKey.length === 1 ? byKey[0] : undefined) ?? collectionAt(collections, named);
    const several = byKey.length > 1 ? " (several have that key; give its path)" : "";
    if (found === undefined) return `no array ${inlineName(named, 80)} in this result${several}; it has ${list}.`;
    return found;
  }
  if (ids.length > 0) {
    let best: RowCollection | undefined;
    let bestCount = 0;
    for (const collection of collections) {
      const index = indexOf(parsed, collection, options);
      const count = ids.filter((id) => rowsWithId(index, id).length > 0).length;
      if (count > bestCount) [best, bestCount] = [collection, count];
    }
    if (best !== undefined) return best;
  }
  const recognised = collections.filter((c) => c.path.length === 0 || options.collectionKeys.has(c.path[c.path.length - 1]!));
  const pool = recognised.length > 0 ? recognised : collections;
  return pool.reduce((a, b) => (b.rows.length > a.rows.length ? b : a));
}
