// A structured payload is read the way JSON.stringify would read it, with the checks the
// projection needs, by one walk with an explicit stack: the view reads an artifact in one go,
// and the step before it (precomputeLargeResults) reads a large artifact in slices that
// yield to the event loop between them, with the same code and so the same value and errors.
import { ContextViewError, describeValue } from "../errors.js";

/** Where a structured payload came from; named in errors and in the compaction marker. */
export type PayloadOrigin = "artifact" | "model_context" | "content";

/** Bounds a payload must respect before it is projected. */
export interface PayloadLimits {
  readonly maxDepth: number;
  readonly maxNodes: number;
}

/** Values JSON would silently turn into `{}`, losing their data without saying so. */
const OPAQUE: ReadonlyArray<[new (...args: never[]) => object, string]> = [
  [Map, "a Map"],
  [Set, "a Set"],
  [WeakMap, "a WeakMap"],
  [WeakSet, "a WeakSet"],
  [Promise, "a Promise"],
  [ArrayBuffer, "an ArrayBuffer"],
];

function opaqueName(value: object): string | undefined {
  if (ArrayBuffer.isView(value)) return "a typed array";
  for (const [ctor, name] of OPAQUE) if (value instanceof ctor) return name;
  return undefined;
}

function pathOf(keys: ReadonlyArray<string | number>): string {
  const shown = keys.length > 12 ? keys.slice(0, 12) : keys;
  const text = shown.map((key) => (typeof key === "number" ? `[${key}]` : /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`)).join("");
  return "$" + text + (keys.length > shown.length ? "…" : "");
}

function invalid(origin: PayloadOrigin, reason: string, details: Record<string, unknown> = {}): ContextViewError {
  return new ContextViewError("INVALID_TOOL_RESULT", `The tool result ${origin} cannot be compacted safely: ${reason}`, { origin, ...details });
}

function tooMany(origin: PayloadOrigin, limits: PayloadLimits): ContextViewError {
  return invalid(origin, `it expands to more than \`maxNodes\` (${limits.maxNodes}) values`, { maxNodes: limits.maxNodes });
}

/** A value `JSON.stringify` leaves out of an object (and writes as `null` in an array). */
function omittedByJson(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** The `toJSON` method JSON.stringify would call on `value`, if any. */
function toJsonMethod(value: object | bigint): ((key: string) => unknown) | undefined {
  const method = (value as { toJSON?: unknown }).toJSON;
  return typeof method === "function" ? (method as (key: string) => unknown) : undefined;
}

/** A boxed primitive (`new Number(1)`), which JSON writes as the primitive. */
function unboxed(value: object): unknown {
  if (value instanceof Number) return Number(value);
  if (value instanceof String) return String(value);
  if (value instanceof Boolean) return value.valueOf();
  return value;
}

/** An array or object being read: its values one by one, and its copy once one of them differs. */
interface Frame {
  /** The container as its holder has it (before `toJSON`), to tell whether it changed. */
  readonly held: unknown;
  /** The container read (after `toJSON`). */
  readonly container: unknown[] | Record<string, unknown>;
  /** Its keys, for an object. */
  readonly names: readonly string[] | undefined;
  readonly length: number;
  next: number;
  out: unknown[] | Record<string, unknown> | undefined;
  /** The size before it was entered. */
  readonly before: number;
}

/** Returned by `enter` for a container whose frame was pushed: its value comes when the frame ends. */
const PENDING = Symbol("pending");

/**
 * Reads one payload as `JSON.stringify` would (see `readPayloadAsJson`), a bounded
 * number of values at a time: {@link PayloadReader.read} until it returns true, then
 * {@link PayloadReader.value}. Each object is walked once; the size of the JSON value
 * of each container read is kept ({@link PayloadReader.sizeOf}).
 *
 * @example
 * ```ts
 * const reader = new PayloadReader(artifact, "artifact", options);
 * while (!reader.read(4096)) await pause();
 * const value = reader.value;
 * ```
 */
export class PayloadReader {
  /** size -1 while an object is being walked (seeing it again is a cycle); its size and JSON value once done. */
  private readonly seen = new Map<object, { size: number; value: unknown }>();
  /** Kept only when asked for (see {@link PayloadReader.sizeOf}). */
  private readonly sizes: Map<object, number> | undefined;
  private readonly frames: Frame[] = [];
  private size = 0;
  private result: unknown;

  /**
   * @param rootToJsonDone - `root` is already what its holder's `toJSON` returned: its own `toJSON` is not called again.
   * @param keepSizes - keep the size of every container read, for {@link PayloadReader.sizeOf}.
   */
  constructor(
    root: unknown,
    private readonly origin: PayloadOrigin,
    private readonly limits: PayloadLimits,
    rootToJsonDone = false,
    keepSizes = false,
  ) {
    this.sizes = keepSizes ? new Map() : undefined;
    const value = this.guarded(() => this.enter(root, "", rootToJsonDone));
    if (value !== PENDING) this.result = value;
  }

  /** The payload's JSON value (`undefined` when JSON would write nothing), once {@link PayloadReader.read} returned true. */
  get value(): unknown {
    return this.result;
  }

  /** The number of JSON values in `container`, a container of {@link PayloadReader.value} (0 for any other value, or without `keepSizes`). */
  sizeOf(container: unknown): number {
    return typeof container === "object" && container !== null ? (this.sizes?.get(container) ?? 0) : 0;
  }

  /** Read about `values` more values; true when the whole payload is read. Throws `INVALID_TOOL_RESULT` as `readPayloadAsJson` does. */
  read(values = Infinity): boolean {
    return this.guarded(() => {
      const stop = this.size + values;
      while (this.frames.length > 0 && this.size < stop) this.step(stop);
      return this.frames.length === 0;
    });
  }

  /** The path of the value being read: each open container's current key. */
  private path(): string {
    return pathOf(this.frames.map((frame) => (frame.names === undefined ? frame.next - 1 : (frame.names[frame.next - 1] as string))));
  }

  private guarded<T>(run: () => T): T {
    try {
      return run();
    } catch (cause) {
      if (ContextViewError.isInstance(cause)) throw cause;
      const message = `The tool result ${this.origin} could not be read: ${describeValue(cause)} thrown at ${this.path()}`;
      throw new ContextViewError("INVALID_TOOL_RESULT", message, { origin: this.origin }, { cause });
    }
  }

  /** The values of the innermost container until one opens a container or the size reaches `stop`, or the end of that container. */
  private step(stop: number): void {
    const frame = this.frames[this.frames.length - 1] as Frame;
    while (frame.next < frame.length) {
      if (this.size >= stop) return;
      const index = frame.next++;
      const name = frame.names === undefined ? undefined : (frame.names[index] as string);
      // A getter may throw here: the error names this path.
      const item = name === undefined ? (frame.container as unknown[])[index] : (frame.container as Record<string, unknown>)[name];
      const json = this.enter(item, name ?? String(index));
      if (json === PENDING) return;
      this.accept(frame, index, item, json);
    }
    this.frames.pop();
    const out = frame.out ?? frame.container;
    if (this.size > this.limits.maxNodes) throw tooMany(this.origin, this.limits);
    this.seen.set(frame.container, { size: this.size - frame.before, value: out });
    this.sizes?.set(out, this.size - frame.before);
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) {
      this.result = out;
      return;
    }
    this.accept(parent, parent.next - 1, frame.held, out);
  }

  /** The JSON value of `input` when it is known at once, else {@link PENDING} with its frame pushed. */
  private enter(input: unknown, key: string, skipToJson = false): unknown {
    let value = input;
    if (!skipToJson && ((typeof value === "object" && value !== null) || typeof value === "bigint")) {
      const toJson = toJsonMethod(value);
      if (toJson !== undefined) value = toJson.call(value, key);
    }
    if (typeof value === "bigint") throw invalid(this.origin, `it holds a BigInt at ${this.path()}`);
    if (typeof value !== "object" || value === null) {
      this.size++;
      return typeof value === "number" && !Number.isFinite(value) ? null : value;
    }
    const known = this.seen.get(value);
    if (known !== undefined) {
      if (known.size < 0) throw invalid(this.origin, `it is cyclic: ${this.path()} refers back to an enclosing value`);
      this.size += known.size;
      if (this.size > this.limits.maxNodes) throw tooMany(this.origin, this.limits);
      return known.value;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
      const primitive = unboxed(value);
      if (primitive !== value) {
        this.size++;
        return typeof primitive === "number" && !Number.isFinite(primitive) ? null : primitive;
      }
      const opaque = opaqueName(value);
      if (opaque !== undefined) throw invalid(this.origin, `it holds ${opaque} at ${this.path()}, which JSON would empty`);
    }
    const { maxDepth } = this.limits;
    if (this.frames.length >= maxDepth) throw invalid(this.origin, `it nests deeper than \`maxDepth\` (${maxDepth}) at ${this.path()}`, { maxDepth });
    this.seen.set(value, { size: -1, value: undefined });
    const before = this.size++;
    const names = Array.isArray(value) ? undefined : Object.keys(value);
    const container = value as unknown[] | Record<string, unknown>;
    // A class instance (or a Date a toJSON returned) is written by JSON as its own fields: a plain copy.
    const out = names !== undefined && proto !== Object.prototype && proto !== null ? (Object.create(null) as Record<string, unknown>) : undefined;
    this.frames.push({ held: input, container, names, length: names?.length ?? (container as unknown[]).length, next: 0, out, before });
    return PENDING;
  }

  /** Take the JSON value of the value at `index` of `frame` (held there as `item`), copying the container from the first one that differs. */
  private accept(frame: Frame, index: number, item: unknown, json: unknown): void {
    if (frame.names === undefined) {
      const value = omittedByJson(json) ? null : json;
      const items = frame.container as unknown[];
      // A copy only where something changed, so plain data is never duplicated.
      if (value !== item && frame.out === undefined) frame.out = items.slice(0, index);
      if (frame.out !== undefined) (frame.out as unknown[]).push(value);
      return;
    }
    const record = frame.container as Record<string, unknown>;
    // Values JSON leaves out are left out of a copy, so the result has no `toJSON` left to call.
    if ((json !== item || omittedByJson(json)) && frame.out === undefined) {
      const out = Object.create(null) as Record<string, unknown>;
      for (let k = 0; k < index; k++) {
        const earlier = frame.names[k] as string;
        if (!omittedByJson(record[earlier])) out[earlier] = record[earlier];
      }
      frame.out = out;
    }
    if (frame.out !== undefined && !omittedByJson(json)) (frame.out as Record<string, unknown>)[frame.names[index] as string] = json;
  }
}
