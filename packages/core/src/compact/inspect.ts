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

/**
 * Read a payload once, as `JSON.stringify` would, before it is projected: `toJSON`
 * is called first at every depth (so an object whose `toJSON` hides a secret never
 * shows it, and a Date or a money object becomes its JSON), boxed primitives are
 * unboxed, non-finite numbers become `null`, and what JSON leaves out of objects
 * (undefined, functions, symbols) is left out. Subtrees that need none of this are
 * returned as they are, not copied.
 *
 * Throws `INVALID_TOOL_RESULT` for what the projection could not handle: nesting
 * deeper than `maxDepth` (the walk recurses only that deep, so it cannot overflow
 * the stack), cycles, BigInt, values JSON would empty (Map, Set…), getters or
 * `toJSON` methods that throw, and shared sub-objects that expand past `maxNodes`
 * values (each shared object is walked once; its size is remembered).
 *
 * @param rootToJsonDone - `root` is already what its holder's `toJSON` returned, so
 *   its own `toJSON` is not called again (JSON.stringify calls it once per value).
 * @returns the payload's JSON value (`undefined` when JSON would write nothing).
 */
// size: one iterative walk with its size accounting and cycle check in one loop, so no step can skip the bound
export function readPayloadAsJson(root: unknown, origin: PayloadOrigin, limits: PayloadLimits, rootToJsonDone = false): unknown {
  // size -1 while an object is being walked (seeing it again is a cycle); its size and JSON value once done.
  const seen = new Map<object, { size: number; value: unknown }>();
  const keys: Array<string | number> = [];
  const walking = { size: -1, value: undefined };
  let size = 0;

  let skipToJson = rootToJsonDone;
  const walk = (input: unknown, key: string): unknown => {
    let value = input;
    if (skipToJson) skipToJson = false;
    else if ((typeof value === "object" && value !== null) || typeof value === "bigint") {
      const toJson = toJsonMethod(value);
      if (toJson !== undefined) value = toJson.call(value, key);
    }
    if (typeof value === "bigint") throw invalid(origin, `it holds a BigInt at ${pathOf(keys)}`);
    if (typeof value !== "object" || value === null) {
      size++;
      return typeof value === "number" && !Number.isFinite(value) ? null : value;
    }
    const known = seen.get(value);
    if (known !== undefined) {
      if (known.size < 0) throw invalid(origin, `it is cyclic: ${pathOf(keys)} refers back to an enclosing value`);
      size += known.size;
      if (size > limits.maxNodes) throw tooMany(origin, limits);
      return known.value;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
      const primitive = unboxed(value);
      if (primitive !== value) {
        size++;
        return typeof primitive === "number" && !Number.isFinite(primitive) ? null : primitive;
      }
      const opaque = opaqueName(value);
      if (opaque !== undefined) throw invalid(origin, `it holds ${opaque} at ${pathOf(keys)}, which JSON would empty`);
    }
    if (keys.length >= limits.maxDepth) throw invalid(origin, `it nests deeper than \`maxDepth\` (${limits.maxDepth}) at ${pathOf(keys)}`, { maxDepth: limits.maxDepth });
    seen.set(value, walking);
    const before = size++;
    const out = Array.isArray(value) ? readArray(value) : readObject(value as Record<string, unknown>);
    if (size > limits.maxNodes) throw tooMany(origin, limits);
    seen.set(value, { size: size - before, value: out });
    return out;
  };

  const readArray = (items: readonly unknown[]): unknown[] => {
    let out: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      keys.push(i);
      const item = items[i];
      let json = walk(item, String(i));
      if (omittedByJson(json)) json = null;
      keys.pop();
      if (json !== item && out === undefined) out = items.slice(0, i);
      if (out !== undefined) out.push(json);
    }
    // A copy only where something changed, so plain data is never duplicated.
    return out ?? (items as unknown[]);
  };

  const readObject = (record: Record<string, unknown>): Record<string, unknown> => {
    // A class instance (or a Date a toJSON returned) is written by JSON as its own fields: a plain copy.
    const proto = Object.getPrototypeOf(record) as unknown;
    let out: Record<string, unknown> | undefined = proto === Object.prototype || proto === null ? undefined : (Object.create(null) as Record<string, unknown>);
    const names = Object.keys(record);
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      keys.push(name);
      const item = record[name];
      const json = walk(item, name);
      keys.pop();
      // Values JSON leaves out are left out of a copy, so the result has no `toJSON` left to call.
      if ((json !== item || omittedByJson(json)) && out === undefined) {
        out = Object.create(null) as Record<string, unknown>;
        for (let k = 0; k < i; k++) {
          const earlier = names[k] as string;
          if (!omittedByJson(record[earlier])) out[earlier] = record[earlier];
        }
      }
      if (out !== undefined && !omittedByJson(json)) out[name] = json;
    }
    return out ?? record;
  };

  try {
    return walk(root, "");
  } catch (cause) {
    if (ContextViewError.isInstance(cause)) throw cause;
    throw new ContextViewError("INVALID_TOOL_RESULT", `The tool result ${origin} could not be read: ${describeValue(cause)} thrown at ${pathOf(keys)}`, { origin }, { cause });
  }
}

function tooMany(origin: PayloadOrigin, limits: PayloadLimits): ContextViewError {
  return invalid(origin, `it expands to more than \`maxNodes\` (${limits.maxNodes}) values`, { maxNodes: limits.maxNodes });
}

/**
 * True when JSON text nests deeper than `maxDepth`. A scan of the characters, far
 * cheaper than walking the parsed value: JSON.parse itself copes with any depth,
 * but the projection recurses, so deeper content is excerpted as text instead.
 */
export function jsonNestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // Jump over the string with indexOf: most of a payload's characters are inside strings.
      let end = text.indexOf('"', i + 1);
      while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) return false;
      i = end;
    } else if (c === 123 || c === 91) {
      if (++depth > maxDepth) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** True when the quote at `index` is preceded by an odd number of backslashes. */
function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let k = index - 1; k >= 0 && text.charCodeAt(k) === 92; k--) backslashes++;
  return backslashes % 2 === 1;
}
