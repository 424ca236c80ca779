import type { HeadingIndex } from "./note-lines.js";
import type { ResolvedCompactOptions } from "./options.js";
import { createReferenceReader, type ReferenceReader } from "./references.js";
import { COMPACTED_KEY, copyJson, isRecord, leaf, record, skipped, type Json } from "./earlier-nodes.js";
import { namesOf, shrinkNested } from "./project-rows.js";
import { nestedOmissions, projectRowsNode, projectString, projectTextNode, rowsNode, type ProjectionTally, type ReferenceMode } from "./project-nodes.js";

export { COMPACTED_KEY } from "./earlier-nodes.js";

/** Characters of each recognised text field per projection level (a level also keeps one row per collection). */
const TEXT_CHARS_PER_LEVEL = 80;
/** Strings outside the recognised text fields (titles, names, ids) keep at least this many characters. */
const OTHER_STRING_FLOOR = 256;
/** Arrays outside the recognised collections keep this many times as many rows. */
const OTHER_ARRAY_FACTOR = 2;

/** A projection of a payload at one level, with what it left out. */
export interface Projection {
  readonly value: unknown;
  /** Collections and texts shortened at this level; 0 means the payload is whole. */
  readonly shortened: number;
  /** Rows left out, over every collection and nested omission (earlier passes included). */
  readonly omittedRows: number;
  /** Characters left out, over every text field and nested omission (earlier passes included). */
  readonly omittedChars: number;
  /** Nested values of kept rows shown projected: objects as their identifying fields, arrays of named objects as their names. */
  readonly projected: number;
}

export type { ReferenceMode } from "./project-nodes.js";

/** Builds projections of one payload at any level, sharing caches between levels. */
export type Projector = (level: number, mode?: ReferenceMode) => Projection;

/**
 * Create the projector of a payload. `trusted` says the payload is the content of
 * an earlier compaction, whose `$compacted` nodes are taken as such (in a fresh
 * payload they are plain data).
 */
export function createProjector(root: unknown, options: ResolvedCompactOptions, trusted: boolean): Projector {
  const refs: ReferenceReader = createReferenceReader(options.isReference, options.isExactReference, copyJson);
  const headings = new Map<string, HeadingIndex>();

  return (level, refMode = "full") => {
    const textCap = level * TEXT_CHARS_PER_LEVEL;
    const tally: ProjectionTally = { shortened: 0, omittedRows: 0, omittedChars: 0, projected: 0 };

    const projectArray = (items: readonly unknown[], cap: number): unknown => {
      if (items.length <= cap) return items.map(projectElement);
      tally.shortened++;
      const before = tally.projected;
      const retained = items.slice(0, cap).map(projectElement);
      return rowsNode(tally, refMode, items.length, retained, tally.projected > before, refs.table(items, cap), refs.idField(items), nestedOmissions(items, cap, trusted, refs, options));
    };

    /**
     * `isRow`: the object is an array element, whose references stay whole, as
     * `omitted_refs` would keep them, and whose nested objects are projected to
     * their identifying fields (see {@link shrinkNested}).
     */
    const projectObject = (value: Json, rowCap: number, stringCap: number, isRow: boolean): Json => {
      if (trusted && typeof value[COMPACTED_KEY] === "string") {
        const kind = value[COMPACTED_KEY];
        const node = kind === "rows" ? projectRowsNode({ tally, refMode, refs, trusted, options }, value, rowCap, projectElement) : kind === "text" ? projectTextNode(tally, value, stringCap) : undefined;
        if (node !== undefined) return node;
      }
      const out = record();
      for (const key of Object.keys(value)) {
        const item = value[key];
        if (skipped(item)) continue;
        if (options.preserveKeys.has(key) || (isRow && options.isReference(key))) {
          out[key] = copyJson(item);
        } else if (isRow && Array.isArray(item) && namesOf(item) !== undefined) {
          tally.projected++;
          out[key] = projectValue(namesOf(item), fieldRowCap(key), fieldStringCap(key));
        } else if (isRow && isRecord(item) && !(trusted && typeof item[COMPACTED_KEY] === "string")) {
          const shrunk = shrinkNested(item, options.isReference);
          if (shrunk !== undefined) {
            tally.projected++;
            out[key] = projectObject(shrunk, fieldRowCap(key), fieldStringCap(key), false);
          } else out[key] = projectValue(item, fieldRowCap(key), fieldStringCap(key));
        } else {
          out[key] = projectValue(item, fieldRowCap(key), fieldStringCap(key));
        }
      }
      return out;
    };

    const otherStringCap = Math.max(OTHER_STRING_FLOOR, textCap * 2);
    const fieldRowCap = (key: string): number => (options.collectionKeys.has(key) ? level : level * OTHER_ARRAY_FACTOR);
    const fieldStringCap = (key: string): number => (options.textFields.has(key) ? textCap : otherStringCap);

    /** `rowCap` and `stringCap` apply to this value; its children get caps from their own keys. */
    function projectValue(value: unknown, rowCap: number, stringCap: number): unknown {
      if (typeof value === "string") return projectString(tally, headings, options.maxHeadings, value, stringCap);
      if (Array.isArray(value)) return projectArray(value, rowCap);
      if (isRecord(value)) return projectObject(value, rowCap, stringCap, false);
      return leaf(value);
    }

    function projectElement(value: unknown): unknown {
      if (skipped(value)) return null;
      if (isRecord(value)) return projectObject(value, level * OTHER_ARRAY_FACTOR, otherStringCap, true);
      return projectValue(value, level * OTHER_ARRAY_FACTOR, otherStringCap);
    }

    // The payload itself is the main collection when it is an array.
    const value = projectValue(root, level, textCap);
    return { value, ...tally };
  };
}
