/**
 * References of omitted rows, as a table: `fields` names the columns and each of
 * `rows` holds one omitted row's values, in source order, `null` where the row
 * has no such field. Row `i` of the table is the `retained + i`-th row returned.
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
}

/** Reads row references once per collection, however many projections look at it. */
export interface ReferenceReader {
  /** References of `rows[from..]`; undefined when none of them has an identifying field. */
  table(rows: readonly unknown[], from: number): ReferenceTable | undefined;
}

/** Every reference of a collection: columns in order of first appearance, one full-width row each. */
interface CollectionReferences {
  readonly fields: readonly string[];
  /** Index of the last row holding each column, so a suffix drops columns it lacks. */
  readonly lastRow: readonly number[];
  readonly cells: ReadonlyArray<unknown[]>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function isJsonValue(value: unknown): boolean {
  return value !== undefined && typeof value !== "function" && typeof value !== "symbol";
}

/**
 * A reader that picks the fields `isReference` accepts from each object row,
 * copying values with `copy` (so nothing of the input is shared with the output).
 * Projections only stringify their output, so reference rows are shared between them.
 */
export function createReferenceReader(isReference: (key: string) => boolean, copy: (value: unknown) => unknown): ReferenceReader {
  const cache = new WeakMap<readonly unknown[], CollectionReferences>();

  const read = (rows: readonly unknown[]): CollectionReferences => {
    const columns = new Map<string, number>();
    const lastRow: number[] = [];
    const found: Array<Array<[number, unknown]>> = [];
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      const refs: Array<[number, unknown]> = [];
      if (isRecord(row)) {
        for (const key of Object.keys(row)) {
          if (!isReference(key) || !isJsonValue(row[key])) continue;
          let column = columns.get(key);
          if (column === undefined) {
            column = columns.size;
            columns.set(key, column);
          }
          lastRow[column] = i;
          const value = row[key];
          refs.push([column, typeof value === "object" && value !== null ? copy(value) : value]);
        }
      }
      found.push(refs);
    }
    const width = columns.size;
    const cells = found.map((refs) => {
      const cellsOfRow = new Array<unknown>(width).fill(null);
      for (const [column, value] of refs) cellsOfRow[column] = value;
      return cellsOfRow;
    });
    return { fields: [...columns.keys()], lastRow, cells };
  };

  return {
    table(rows, from) {
      let refs = cache.get(rows);
      if (refs === undefined) {
        refs = read(rows);
        cache.set(rows, refs);
      }
      const keep = refs.fields.map((_, column) => column).filter((column) => refs.lastRow[column]! >= from);
      if (keep.length === 0) return undefined;
      const suffix = refs.cells.slice(from);
      if (keep.length === refs.fields.length) return { fields: [...refs.fields], rows: suffix };
      return { fields: keep.map((column) => refs.fields[column]!), rows: suffix.map((cells) => keep.map((column) => cells[column])) };
    },
  };
}

/** A table of `count` rows with no known references. */
function emptyRows(fields: readonly string[], count: number): unknown[][] {
  return Array.from({ length: count }, () => new Array<unknown>(fields.length).fill(null));
}

/**
 * References of rows omitted now (`front`, `frontCount` rows) followed by those a
 * previous pass omitted (`back`, `backCount` rows), which come later in source
 * order. Earlier columns keep their place so repeated passes only ever append.
 */
export function concatTables(
  front: ReferenceTable | undefined,
  frontCount: number,
  back: ReferenceTable | undefined,
  backCount: number,
): ReferenceTable | undefined {
  if (front === undefined && back === undefined) return undefined;
  const fields = [...(back?.fields ?? [])];
  for (const field of front?.fields ?? []) if (!fields.includes(field)) fields.push(field);
  const remap = (table: ReferenceTable | undefined, count: number): unknown[][] => {
    if (table === undefined) return emptyRows(fields, count);
    const positions = table.fields.map((field) => fields.indexOf(field));
    return table.rows.map((row) => {
      const cells = new Array<unknown>(fields.length).fill(null);
      positions.forEach((position, i) => (cells[position] = row[i] ?? null));
      return cells;
    });
  };
  return { fields, rows: [...remap(front, frontCount), ...remap(back, backCount)] };
}
