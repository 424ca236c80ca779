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

/**
 * Check an artifact once, before it is projected, and throw `INVALID_TOOL_RESULT`
 * for what the projection could not handle: nesting deeper than `maxDepth` (the
 * walk recurses only that deep, so it cannot overflow the stack), cycles, BigInt,
 * values JSON would empty (Map, Set…), getters that throw, and shared sub-objects
 * that expand past `maxNodes` values (each shared object is walked once; its size
 * is remembered).
 */
export function inspectPayload(root: unknown, origin: PayloadOrigin, limits: PayloadLimits): void {
  // One map for both: -1 while an object is being walked (seeing it again is a cycle), its size once done.
  const sizes = new Map<object, number>();
  const keys: Array<string | number> = [];

  const walk = (value: unknown): number => {
    if (typeof value !== "object" || value === null) {
      if (typeof value === "bigint") throw invalid(origin, `it holds a BigInt at ${pathOf(keys)}`);
      return 1;
    }
    const known = sizes.get(value);
    if (known !== undefined) {
      if (known < 0) throw invalid(origin, `it is cyclic: ${pathOf(keys)} refers back to an enclosing value`);
      return known;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype && proto !== Array.prototype && proto !== null) {
      if (value instanceof Date) return 1;
      const opaque = opaqueName(value);
      if (opaque !== undefined) throw invalid(origin, `it holds ${opaque} at ${pathOf(keys)}, which JSON would empty`);
    }
    if (keys.length >= limits.maxDepth) throw invalid(origin, `it nests deeper than \`maxDepth\` (${limits.maxDepth}) at ${pathOf(keys)}`, { maxDepth: limits.maxDepth });
    sizes.set(value, -1);
    let size = 1;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        keys.push(i);
        size += walk(value[i]);
        keys.pop();
      }
    } else {
      for (const key of Object.keys(value)) {
        keys.push(key);
        size += walk((value as Record<string, unknown>)[key]);
        keys.pop();
      }
    }
    if (size > limits.maxNodes) throw invalid(origin, `it expands to more than \`maxNodes\` (${limits.maxNodes}) values`, { maxNodes: limits.maxNodes });
    sizes.set(value, size);
    return size;
  };

  try {
    walk(root);
  } catch (cause) {
    if (ContextViewError.isInstance(cause)) throw cause;
    throw new ContextViewError("INVALID_TOOL_RESULT", `The tool result ${origin} could not be read: ${describeValue(cause)} thrown at ${pathOf(keys)}`, { origin }, { cause });
  }
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
