import { PayloadReader, type PayloadLimits, type PayloadOrigin } from "./payload-reader.js";

export type { PayloadLimits, PayloadOrigin } from "./payload-reader.js";

/**
 * Read a payload once, as `JSON.stringify` would, before it is projected: `toJSON`
 * is called first at every depth (so an object whose `toJSON` hides a secret never
 * shows it, and a Date or a money object becomes its JSON), boxed primitives are
 * unboxed, non-finite numbers become `null`, and what JSON leaves out of objects
 * (undefined, functions, symbols) is left out. Subtrees that need none of this are
 * returned as they are, not copied.
 *
 * Throws `INVALID_TOOL_RESULT` for what the projection could not handle: nesting
 * deeper than `maxDepth` (the walk keeps its own stack, only that deep), cycles, BigInt, values JSON would empty (Map, Set…), getters or
 * `toJSON` methods that throw, and shared sub-objects that expand past `maxNodes`
 * values (each shared object is walked once; its size is remembered).
 *
 * @param rootToJsonDone - `root` is already what its holder's `toJSON` returned, so
 *   its own `toJSON` is not called again (JSON.stringify calls it once per value).
 * @returns the payload's JSON value (`undefined` when JSON would write nothing).
 */
export function readPayloadAsJson(root: unknown, origin: PayloadOrigin, limits: PayloadLimits, rootToJsonDone = false): unknown {
  const reader = new PayloadReader(root, origin, limits, rootToJsonDone);
  reader.read();
  return reader.value;
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
