// size: the reference table: its reader, compression of shared links and concatenation belong to one format
/**
 * References of omitted rows, as a table: `fields` names the columns and each of
 * `rows` holds one omitted row's values, in source order, `null` where the row
 * has no such field. Row `i` of the table is the `retained + i`-th row returned.
 * `links` holds a link every row shares up to one of its identifiers, written once
 * as a pattern (`"https://host/o/r/issues/{number}"`) instead of once per row.
 *
 * @example
 * ```ts
 * const table: ReferenceTable = payload.transactions.omitted_refs;
 * table.rows.map((row) => row[table.fields.indexOf("id")]); // ids of the omitted rows
 * ```
 */
export interface ReferenceTable {
  fields: string[];
  rows: unknown[][];
  links?: Record<string, string>;
}

/**
 * The identifiers-only form of omitted rows' references: one identifier per row,
 * in source order (`null` where a row has none), when the full table does not fit.
 *
 * @example
 * ```ts
 * const { field, ids } = payload.items.omitted_ids; // { field: "number", ids: [14, 15, …] }
 * ```
 */
export interface IdentifierList {
  field: string;
  ids: unknown[];
}

/** Reads row references once per collection, however many projections look at it. */
export interface ReferenceReader {
  /** References of `rows[from..]`; undefined when none of them has a reference. */
  table(rows: readonly unknown[], from: number): ReferenceTable | undefined;
  /** The field the identifiers-only form of this collection uses; undefined when rows have no identifier. */
  idField(rows: readonly unknown[]): string | undefined;
}

/** Longest string kept as an identifier or a date; longer values are content, not references. */
export const MAX_REFERENCE_CHARS = 120;
/** Longest link kept as a reference. */
const MAX_LINK_CHARS = 400;

/** Keys of links a person opens, preferred over API links. */
const HUMAN_LINK_KEYS: ReadonlySet<string> = new Set(["html_url", "htmlUrl", "web_url", "webUrl", "permalink", "permalink_url", "href", "link", "share_url", "public_url", "browser_url"]);
const LINK_KEY = /(^|_)(url|uri|href|link|permalink)$|(Url|Uri|Href|Link)$/;
const URL_VALUE = /^[a-z][a-z0-9+.-]*:\/\//i;
const DATE_KEY = /(^date$|_date$|Date$|_at$|At$|^timestamp$|_time$)/;

/** Every reference of a collection: columns in order of first appearance, one full-width row each. */
interface CollectionReferences {
  readonly fields: readonly string[];
  /** Index of the last row holding each column, so a suffix drops columns it lacks. */
  readonly lastRow: readonly number[];
  readonly cells: ReadonlyArray<unknown[]>;
  /** The link column written once as a pattern, and the identifier it follows. */
  readonly pattern: { link: string; id: string; text: string } | undefined;
  /** The identifier of the identifiers-only form. */
  readonly idField: string | undefined;
}

// Globals read once: inside a vm context (jest's test environment) each read of one goes
// through the context's interceptors, and these run for every cell of every row (see text-tokens.ts).
const { isArray } = Array;
const { isFinite } = Number;
const { keys: keysOf } = Object;
const DateClass = Date;
const ArrayClass = Array;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !isArray(value) && !(value instanceof DateClass);
}

type Kind = "id" | "date" | "link";

/**
 * What a reference field's value is: a link (a URL, or a string under a link key),
 * a date, a short identifier, or nothing worth keeping (URL templates, long
 * strings, objects, booleans, null).
 */
function kindOf(key: string, value: unknown): Kind | undefined {
  if (typeof value === "number") return isFinite(value) ? (keyClass(key).date ? "date" : "id") : undefined;
  if (typeof value !== "string" || value === "") return undefined;
  const named = keyClass(key);
  const link = named.link || URL_VALUE.test(value);
  if (link) return value.includes("{") || value.length > MAX_LINK_CHARS ? undefined : "link";
  if (value.length > MAX_REFERENCE_CHARS) return undefined;
  return named.date ? "date" : "id";
}

/** An identifier or a link: what finds a row again (see {@link isIdentifyingValue}). */
function identifying(kind: Kind | undefined): boolean {
  return kind === "id" || kind === "link";
}

/**
 * True when `value` under `key` is what finds a row again: a short identifier or a
 * link, as lean references keep them (dates and long strings are not). Recall reads
 * rows back by these values.
 */
export function isIdentifyingValue(key: string, value: unknown): boolean {
  return identifying(kindOf(key, value));
}

/** What a key's name says, read once per key: a collection of a million rows has a handful of keys. */
const keyClasses = new Map<string, { link: boolean; date: boolean }>();
const KEY_CLASSES_LIMIT = 4096;

function keyClass(key: string): { link: boolean; date: boolean } {
  let known = keyClasses.get(key);
  if (known === undefined) {
    known = { link: LINK_KEY.test(key), date: DATE_KEY.test(key) };
    if (keyClasses.size < KEY_CLASSES_LIMIT) keyClasses.set(key, known);
  }
  return known;
}

/** The link key a collection keeps: a human link first, then the first link seen. */
function chooseLink(keys: readonly string[]): string | undefined {
  return keys.find((key) => HUMAN_LINK_KEYS.has(key)) ?? keys[0];
}

/**
 * The pattern `prefix{id}suffix` every row's link follows, when there is one: the
 * link is then written once for the collection instead of once per row.
 */
function sharedPattern(rows: readonly unknown[], link: string, ids: readonly string[]): { link: string; id: string; text: string } | undefined {
  for (const id of ids) {
    let prefix: string | undefined;
    let suffix = "";
    let ok = true;
    let seen = 0;
    for (const row of rows) {
      if (!isRecord(row)) continue;
      const url = row[link];
      const value = row[id];
      const hasUrl = typeof url === "string" && kindOf(link, url) === "link";
      const hasId = (typeof value === "number" || typeof value === "string") && kindOf(id, value) === "id";
      if (!hasUrl && !hasId) continue;
      if (!hasUrl || !hasId) {
        ok = false;
        break;
      }
      const text = String(value);
      if (prefix === undefined) {
        const at = url.lastIndexOf(text);
        if (at < 0 || text === "") {
          ok = false;
          break;
        }
        prefix = url.slice(0, at);
        suffix = url.slice(at + text.length);
        if (prefix.includes("{") || suffix.includes("{")) {
          ok = false;
          break;
        }
      } else if (url !== prefix + text + suffix) {
        ok = false;
        break;
      }
      seen++;
    }
    if (ok && prefix !== undefined && seen > 1) return { link, id, text: `${prefix}{${id}}${suffix}` };
  }
  return undefined;
}

/**
 * A reader of lean references: from each object row, the fields `isReference`
 * accepts that hold short identifiers, its own dates (those named exactly, else
 * the first date field), and at most one link (a human link
 * before API links; URL templates never). A link every row shares up to one of its
 * identifiers becomes a pattern written once. Values are copied with `copy`, so
 * nothing of the input is shared with the output; projections only stringify their
 * output, so reference rows are shared between them.
 */
// size: a factory whose closures share the per-payload caches of the reader
export function createReferenceReader(
  isReference: (key: string) => boolean,
  isExact: (key: string) => boolean,
  copy: (value: unknown) => unknown,
): ReferenceReader {
  const cache = new WeakMap<readonly unknown[], CollectionReferences>();

  const read = (rows: readonly unknown[]): CollectionReferences => {
    const kinds = new Map<string, Kind>();
    const links: string[] = [];
    for (const row of rows) {
      if (!isRecord(row)) continue;
      for (const key of keysOf(row)) {
        if (kinds.has(key) || !isReference(key)) continue;
        const kind = kindOf(key, row[key]);
        if (kind === undefined) continue;
        kinds.set(key, kind);
        if (kind === "link") links.push(key);
      }
    }
    const link = chooseLink(links);
    // A row's own identifiers are the fields named exactly (`id`, `number`…); a
    // suffix match (`node_id`, `account_id`) names a related object or another
    // encoding, and is kept only when the rows have no exact one.
    const allIds = [...kinds.keys()].filter((key) => kinds.get(key) === "id");
    const own = allIds.filter((key) => isExact(key));
    const ids = own.length > 0 ? own : allIds;
    const pattern = link === undefined ? undefined : sharedPattern(rows, link, ids);
    // Likewise a row's own date is one named exactly (`date`); else the first a
    // suffix names (`created_at`). Later ones (`updated_at`, `closed_at`) record
    // other events: content of the row, not what finds it again (each costs about
    // 15 tokens a row, as much as all its identifiers).
    const allDates = [...kinds.keys()].filter((key) => kinds.get(key) === "date");
    const exactDates = allDates.filter((key) => isExact(key));
    const dates = exactDates.length > 0 ? exactDates : allDates.slice(0, 1);
    /** A row without an own identifier keeps its others, so that it stays findable. */
    const hasOwn = (row: Record<string, unknown>) => own.some((key) => kindOf(key, row[key]) === "id");
    const wanted = (key: string, ownPresent: boolean) => {
      const kind = kinds.get(key);
      if (kind === "id") return ids.includes(key) || !ownPresent;
      return (kind === "date" && dates.includes(key)) || (kind === "link" && key === link && pattern === undefined);
    };
    const columns = new Map<string, number>();
    const lastRow: number[] = [];
    // Each row's cells as its columns are met; rows read before a column appeared are padded once at the end.
    const cells: unknown[][] = new ArrayClass<unknown[]>(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const cellsOfRow = new ArrayClass<unknown>(columns.size).fill(null);
      if (isRecord(row)) {
        const ownPresent = own.length > 0 && hasOwn(row);
        for (const key of keysOf(row)) {
          if (!wanted(key, ownPresent)) continue;
          const value = row[key];
          // A key's kind is read from the first row that holds it; an identifier under a key read as a link (its first
          // value looked like a URL: "A://"), or a link under one read as an identifier, still finds its row. (A link
          // column written as a pattern is not wanted here: the pattern stands for it.)
          const kind = kindOf(key, value);
          if (kind !== kinds.get(key) && !(identifying(kind) && identifying(kinds.get(key)))) continue;
          let column = columns.get(key);
          if (column === undefined) {
            column = columns.size;
            columns.set(key, column);
          }
          lastRow[column] = i;
          while (cellsOfRow.length < column) cellsOfRow.push(null);
          cellsOfRow[column] = typeof value === "object" && value !== null ? copy(value) : value;
        }
      }
      cells[i] = cellsOfRow;
    }
    const width = columns.size;
    for (const cellsOfRow of cells) while (cellsOfRow.length < width) cellsOfRow.push(null);
    const idField = pattern?.id ?? ids[0];
    return { fields: [...columns.keys()], lastRow, cells, pattern, idField };
  };

  const referencesOf = (rows: readonly unknown[]): CollectionReferences => {
    let refs = cache.get(rows);
    if (refs === undefined) {
      refs = read(rows);
      cache.set(rows, refs);
    }
    return refs;
  };

  return {
    table(rows, from) {
      const refs = referencesOf(rows);
      const keep = refs.fields.map((_, column) => column).filter((column) => refs.lastRow[column]! >= from);
      if (keep.length === 0) return undefined;
      const suffix = refs.cells.slice(from);
      const table: ReferenceTable =
        keep.length === refs.fields.length
          ? { fields: [...refs.fields], rows: suffix }
          : { fields: keep.map((column) => refs.fields[column]!), rows: suffix.map((cells) => keep.map((column) => cells[column])) };
      if (refs.pattern !== undefined && table.fields.includes(refs.pattern.id)) table.links = { [refs.pattern.link]: refs.pattern.text };
      return table;
    },
    idField(rows) {
      return referencesOf(rows).idField;
    },
  };
}

/** A table of `count` rows with no known references. */
function emptyRows(fields: readonly string[], count: number): unknown[][] {
  return Array.from({ length: count }, () => new Array<unknown>(fields.length).fill(null));
}

/** The link of a pattern `prefix{id}suffix` for one row, or null when the row has no such identifier. */
function expandLink(pattern: string, idField: string, id: unknown): unknown {
  if (id === null || id === undefined) return null;
  return pattern.replace(`{${idField}}`, String(id));
}

/** The identifier a link pattern follows: the `{name}` in it. */
function patternField(pattern: string): string | undefined {
  return /\{([^{}]+)\}/.exec(pattern)?.[1];
}

/**
 * A table without its link patterns: each becomes a column of the links it stands
 * for, so two tables with different patterns can be joined without losing a link.
 */
function materialize(table: ReferenceTable, keepLinks: Readonly<Record<string, string>>): ReferenceTable {
  const links = table.links ?? {};
  const expand = Object.keys(links).filter((field) => keepLinks[field] !== links[field]);
  if (expand.length === 0) return table;
  const fields = [...table.fields];
  const rows = table.rows.map((row) => [...row]);
  for (const field of expand) {
    const pattern = links[field]!;
    const idColumn = table.fields.indexOf(patternField(pattern) ?? "");
    if (!fields.includes(field)) {
      fields.push(field);
      for (const row of rows) row.push(null);
    }
    const column = fields.indexOf(field);
    table.rows.forEach((row, i) => {
      if (rows[i]![column] === null && idColumn >= 0) rows[i]![column] = expandLink(pattern, patternField(pattern)!, row[idColumn]);
    });
  }
  const kept: Record<string, string> = {};
  for (const field of Object.keys(links)) if (!expand.includes(field)) kept[field] = links[field]!;
  return Object.keys(kept).length > 0 ? { fields, rows, links: kept } : { fields, rows };
}

/**
 * References of rows omitted now (`front`, `frontCount` rows) followed by those a
 * previous pass omitted (`back`, `backCount` rows), which come later in source
 * order. Earlier columns keep their place so repeated passes only ever append. A
 * link pattern both share stays a pattern; any other becomes a column.
 */
export function concatTables(
  front: ReferenceTable | undefined,
  frontCount: number,
  back: ReferenceTable | undefined,
  backCount: number,
): ReferenceTable | undefined {
  if (front === undefined && back === undefined) return undefined;
  const frontLinks = front?.links ?? {};
  const backLinks = back?.links ?? {};
  const shared: Record<string, string> = {};
  if (front !== undefined && back !== undefined) {
    for (const field of Object.keys(frontLinks)) if (backLinks[field] === frontLinks[field]) shared[field] = frontLinks[field]!;
  }
  const a = front === undefined ? undefined : materialize(front, back === undefined ? frontLinks : shared);
  const b = back === undefined ? undefined : materialize(back, front === undefined ? backLinks : shared);
  const fields = [...(b?.fields ?? [])];
  for (const field of a?.fields ?? []) if (!fields.includes(field)) fields.push(field);
  const remap = (table: ReferenceTable | undefined, count: number): unknown[][] => {
    if (table === undefined) return emptyRows(fields, count);
    const positions = table.fields.map((field) => fields.indexOf(field));
    return table.rows.map((row) => {
      const cells = new Array<unknown>(fields.length).fill(null);
      positions.forEach((position, i) => (cells[position] = row[i] ?? null));
      return cells;
    });
  };
  const links = front === undefined ? backLinks : back === undefined ? frontLinks : shared;
  const out: ReferenceTable = { fields, rows: [...remap(a, frontCount), ...remap(b, backCount)] };
  if (Object.keys(links).length > 0) out.links = { ...links };
  return out;
}

/** The identifiers-only form of a table: its `field` column (null where a row has none). */
export function identifiersOf(table: ReferenceTable | undefined, field: string, count: number): IdentifierList {
  if (table === undefined) return { field, ids: new Array<unknown>(count).fill(null) };
  const column = table.fields.indexOf(field);
  return { field, ids: table.rows.map((row) => (column < 0 ? null : (row[column] ?? null))) };
}
