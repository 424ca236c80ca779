// What compacting a large tool result reads and tries, kept across calls: a view fits its
// current results several times (shares, slack, room for history) and every later view
// compacts the same results again, so a 1,000,000-row payload would be parsed and
// projected a dozen times per view otherwise.
import type { PayloadOrigin } from "./inspect.js";
import type { CompactionMarker } from "./marker.js";
import type { ResolvedCompactOptions } from "./options.js";
import type { Projector, ReferenceMode } from "./project.js";

/** Results whose text is at least this long are remembered; smaller ones cost less than the bookkeeping. */
export const MEMO_RESULT_CHARS = 1 << 16;
/** Results remembered at once, newest used first. */
const MEMO_RESULTS = 8;
/** Memos kept per text (one per artifact, marker and options), the oldest leaving first. */
const MEMO_VARIANTS = 4;
/** Parsed payloads kept, in characters of their text: beyond it the oldest is parsed again if needed (the newest is always kept). */
const TREE_BUDGET_CHARS = 1 << 25;
/** A projection's JSON is kept only up to this length: longer ones never fit a prompt and only their size is needed again. */
const KEPT_JSON_CHARS = 1 << 18;

/** One projection tried: its size, what it left out, and its JSON while that is small. */
export interface Attempt {
  readonly level: number;
  readonly mode: ReferenceMode;
  readonly tokens: number;
  readonly shortened: number;
  readonly omittedRows: number;
  readonly omittedChars: number;
  readonly projected: number;
  readonly json: string | undefined;
}

/** A compacted form: its text (images are added back from the caller's message) and marker, or the error compacting threw. */
export type Compacted = { readonly text: string; readonly marker: CompactionMarker } | { readonly error: unknown };

/**
 * The memo of one tool result (its text, artifact, earlier marker, options).
 * `tree` is the source read from it and the projector over that source, dropped
 * when parsed payloads exceed their budget; attempts and outputs stay.
 */
export interface ResultMemo<S> {
  readonly chars: number;
  tree: { source: S; projector?: Projector } | { error: unknown } | undefined;
  readonly attempts: Map<string, Attempt>;
  /** Outputs of compactToolResult by limit. */
  readonly compacted: Map<number, Compacted>;
  /**
   * Set when the attempts of a JSON content were computed elsewhere (another
   * thread, see `precomputeLargeResults`): the content is parsed only when a
   * projection that was not computed is needed.
   */
  precomputed?: Precomputed;
}

/** What was computed of a JSON payload off the main thread: its projections by mode, level 0 up. */
export interface Precomputed {
  /** Per reference mode, the levels computed from 0 on. */
  readonly ladders: ReadonlyMap<ReferenceMode, Ladder>;
  /** What was projected: the content, or what compaction reads of the artifact. */
  readonly origin: PayloadOrigin;
}

/**
 * The projections of one reference mode at every level from 0 to `top`: `complete`
 * when the one at `top` is the whole payload (nothing shortened) or larger than any
 * limit the ladder was computed for, so that no higher level fits a limit under its
 * tokens (projections grow with the level).
 */
export interface Ladder {
  readonly top: number;
  readonly complete: boolean;
}

/**
 * The most generous level of a complete ladder that fits `limit`, the floor's
 * tokens when even level 0 does not, or undefined when the ladder cannot tell
 * (incomplete, or a limit it was not computed for): then the levels are searched.
 */
export function pickFromLadder<S>(memo: ResultMemo<S>, mode: ReferenceMode, limit: number): { attempt?: Attempt; floor: number } | undefined {
  const ladder = memo.precomputed?.ladders.get(mode);
  if (ladder === undefined) return undefined;
  const floor = memo.attempts.get(`${mode}:0`);
  if (floor === undefined) return undefined;
  if (floor.tokens > limit) return { floor: floor.tokens };
  const top = memo.attempts.get(`${mode}:${ladder.top}`);
  if (!ladder.complete || top === undefined || (top.shortened > 0 && limit >= top.tokens)) return undefined;
  let best = floor;
  for (let level = 1; level <= ladder.top; level++) {
    const attempt = memo.attempts.get(`${mode}:${level}`);
    if (attempt === undefined) return undefined;
    if (attempt.tokens <= limit) best = attempt;
  }
  return { attempt: best, floor: floor.tokens };
}

interface Keyed<S> {
  /** The artifact last seen with this memo: another object of the same plain data takes its place (see {@link sameArtifact}). */
  artifact: unknown;
  readonly marker: string;
  readonly options: ResolvedCompactOptions;
  readonly memo: ResultMemo<S>;
}

/** What is remembered of one text: the memos of results with it, and whether it failed to parse as JSON. */
interface TextEntry {
  readonly variants: Array<Keyed<unknown>>;
  notJson: boolean;
}

/** Text → what is remembered of it (a copy of a message, or a later call, finds the same entry). */
const results = new Map<string, TextEntry>();

/** The entry of `text`, now the newest used; created when `create`, else undefined when there is none. */
function entryOf(text: string, create: true): TextEntry;
function entryOf(text: string, create: false): TextEntry | undefined;
function entryOf(text: string, create: boolean): TextEntry | undefined {
  let entry = results.get(text);
  if (entry === undefined && !create) return undefined;
  entry ??= { variants: [], notJson: false };
  results.delete(text);
  results.set(text, entry);
  while (results.size > MEMO_RESULTS) results.delete(results.keys().next().value as string);
  return entry;
}

/** A memo used once: a small result, or options resolved afresh (never seen again). */
export function freshMemo<S>(chars: number): ResultMemo<S> {
  return { chars, tree: undefined, attempts: new Map(), compacted: new Map() };
}

/**
 * The memo of a result, created on first use. Results under
 * {@link MEMO_RESULT_CHARS} characters get a fresh one each call, so small
 * results behave exactly as without a memo and nothing of them is retained.
 */
export function memoOf<S>(text: string, artifact: unknown, marker: CompactionMarker | undefined, options: ResolvedCompactOptions): ResultMemo<S> {
  if (text.length < MEMO_RESULT_CHARS) return freshMemo(text.length);
  const markerKey = marker === undefined ? "" : JSON.stringify(marker);
  const { variants } = entryOf(text, true);
  const alike = variants.filter((entry) => entry.marker === markerKey && entry.options === options);
  let found = alike.find((entry) => entry.artifact === artifact) ?? sameArtifact(alike, artifact);
  if (found === undefined) {
    found = { artifact, marker: markerKey, options, memo: freshMemo<unknown>(text.length) };
    variants.push(found);
    if (variants.length > MEMO_VARIANTS) variants.shift();
  }
  return found.memo as ResultMemo<S>;
}

/**
 * The memo of an artifact equal to `artifact`, now keyed by it: a checkpoint read anew
 * gives every request new objects, and an artifact of the same plain data is read the
 * same by compaction (see {@link samePlainData}). Compared only when the same text came
 * before with another artifact object, and at most once per memo kept.
 */
function sameArtifact(alike: Array<Keyed<unknown>>, artifact: unknown): Keyed<unknown> | undefined {
  if (typeof artifact !== "object" || artifact === null) return undefined;
  for (const entry of alike) {
    if (!samePlainData(entry.artifact, artifact)) continue;
    entry.artifact = artifact;
    return entry;
  }
  return undefined;
}

/**
 * True when two values are the same plain data: equal primitives, arrays of the same
 * length with the same items, and objects whose prototype is `Object.prototype` (or
 * null) with the same own keys in the same order and the same values. Anything else
 * (a Date, a class instance, a Map, a function, a cycle, nesting past the stack) is not
 * known to be equal: false. Equal plain data has equal JSON, so compaction reads both
 * the same; it stops at the first difference.
 *
 * @example
 * ```ts
 * samePlainData({ rows: [{ id: 1 }] }, structuredClone({ rows: [{ id: 1 }] })); // true
 * ```
 */
export function samePlainData(a: unknown, b: unknown): boolean {
  try {
    return plainEqual(a, b);
  } catch {
    // A cycle or a structure deeper than the stack.
    return false;
  }
}

function plainEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!plainEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlain(a) || !isPlain(b)) return false;
  const keys = Object.keys(a);
  const other = Object.keys(b);
  if (keys.length !== other.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key !== other[i] || !plainEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/**
 * An array, or an object made by a literal, `JSON.parse`, `structuredClone` or
 * `Object.create(null)`: its prototype is null or a root prototype (some realm's
 * `Object.prototype`; a checkpointer in a worker or a VM context has its own).
 */
function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/**
 * True when `text` was found not to parse as JSON (see {@link rememberNotJson}):
 * no view, and no worker, needs to parse it again. Only texts of
 * {@link MEMO_RESULT_CHARS} characters or more are remembered.
 *
 * @example
 * ```ts
 * if (!knownNotJson(text)) value = JSON.parse(text);
 * ```
 */
export function knownNotJson(text: string): boolean {
  return text.length >= MEMO_RESULT_CHARS && entryOf(text, false)?.notJson === true;
}

/**
 * Remember that `text` does not parse as JSON, beside the memos of its results
 * (kept for the texts used last), so that no view, and no worker's job, parses it
 * again; texts under {@link MEMO_RESULT_CHARS} characters are not remembered.
 *
 * @example
 * ```ts
 * try { return JSON.parse(text); } catch { rememberNotJson(text); }
 * ```
 */
export function rememberNotJson(text: string): void {
  if (text.length >= MEMO_RESULT_CHARS) entryOf(text, true).notJson = true;
}

/** Keep `memo`'s parsed source, dropping the oldest others' while parsed payloads exceed their budget. */
export function keepTree<S>(memo: ResultMemo<S>, tree: NonNullable<ResultMemo<S>["tree"]>): void {
  memo.tree = tree;
  if (memo.chars < MEMO_RESULT_CHARS) return;
  let total = 0;
  const holding: Array<ResultMemo<unknown>> = [];
  for (const { variants } of results.values()) {
    for (const entry of variants) {
      if (entry.memo.tree === undefined || entry.memo === (memo as ResultMemo<unknown>)) continue;
      holding.push(entry.memo);
      total += entry.memo.chars;
    }
  }
  total += memo.chars;
  for (const entry of holding) {
    if (total <= TREE_BUDGET_CHARS) break;
    entry.tree = undefined;
    total -= entry.chars;
  }
}

/** An attempt to remember: its JSON only while it is small. */
export function attemptOf(fields: Omit<Attempt, "json">, json: string): Attempt {
  return { ...fields, json: json.length <= KEPT_JSON_CHARS ? json : undefined };
}

/** Forget every remembered result (tests). */
export function clearResultMemo(): void {
  results.clear();
}
