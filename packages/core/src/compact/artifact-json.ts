// A large artifact lives on the caller's heap: another thread can only be handed a copy. A
// structured clone, or one JSON.stringify, is one long block of the event loop for a payload
// of many megabytes; this reads the artifact as the view would (PayloadReader) and writes its
// JSON a bounded piece at a time, yielding between pieces, so the copy the worker parses costs
// the caller's thread short slices only.
import type { Slicer } from "../evidence/slicer.js";
import { artifactPayload, type ArtifactPayload } from "./compact-tool-result.js";
import type { ResolvedCompactOptions } from "./options.js";
import { PayloadReader } from "./payload-reader.js";

/** Values read between two checks for a pause. */
const READ_STEP = 2048;
/** Values one JSON.stringify writes at most (a container that holds more is written piece by piece). */
const WRITE_VALUES = 4096;
/** Characters of written parts joined into one piece, so the parts kept stay few. */
const PIECE_CHARS = 1 << 18;

/** A container being written: its keys (an object's), and the next value to write. */
interface Open {
  readonly container: unknown[] | Record<string, unknown>;
  readonly names: readonly string[] | undefined;
  readonly length: number;
  next: number;
}

/**
 * The JSON text of the structured payload compaction reads of `artifact` (see
 * `readArtifactSource`: the same value, the same checks), read and written in slices
 * that yield to the event loop (`slicer`), with its origin; undefined when that
 * payload is no object or array (a text `model_context`: nothing to parse). Throws
 * `INVALID_TOOL_RESULT` as the view would.
 *
 * @example
 * ```ts
 * const json = await artifactJsonInSlices(message.artifact, options, new Slicer(signal));
 * if (json !== undefined) await compute({ text: json.text, origin: json.origin, estimator, maxTokens });
 * ```
 */
export async function artifactJsonInSlices(
  artifact: unknown,
  options: ResolvedCompactOptions,
  slicer: Slicer,
): Promise<{ text: string; origin: ArtifactPayload["origin"] } | undefined> {
  const payload = artifactPayload(artifact);
  if (payload === undefined) return undefined;
  const reader = new PayloadReader(payload.root, payload.origin, options, payload.rootToJsonDone, true);
  while (!reader.read(READ_STEP)) if (slicer.due()) await slicer.pause();
  const value = reader.value;
  if (typeof value !== "object" || value === null) return undefined;
  return { text: await jsonInSlices(value, (container) => reader.sizeOf(container), slicer), origin: payload.origin };
}

/**
 * `JSON.stringify(root)` for a JSON value (no `toJSON`, nothing JSON leaves out: what
 * a PayloadReader returns), written a few thousand values at a time, in slices.
 */
async function jsonInSlices(root: object, sizeOf: (value: unknown) => number, slicer: Slicer): Promise<string> {
  const pieces: string[] = [];
  let parts: string[] = [];
  let chars = 0;
  const put = (part: string) => {
    parts.push(part);
    chars += part.length;
    if (chars < PIECE_CHARS) return;
    pieces.push(parts.join(""));
    parts = [];
    chars = 0;
  };
  const stack: Open[] = [];
  const write = (value: unknown) => {
    if (sizeOf(value) <= WRITE_VALUES) {
      put(JSON.stringify(value));
      return;
    }
    const container = value as unknown[] | Record<string, unknown>;
    const names = Array.isArray(container) ? undefined : Object.keys(container);
    put(names === undefined ? "[" : "{");
    stack.push({ container, names, length: names?.length ?? (container as unknown[]).length, next: 0 });
  };
  write(root);
  while (stack.length > 0) {
    const open = stack[stack.length - 1] as Open;
    const index = open.next;
    if (index === open.length) {
      put(open.names === undefined ? "]" : "}");
      stack.pop();
      continue;
    }
    if (index > 0) put(",");
    if (open.names !== undefined) {
      const name = open.names[index] as string;
      put(`${JSON.stringify(name)}:`);
      open.next++;
      write(open.container[name as keyof typeof open.container]);
    } else {
      open.next = writeItems(open.container as unknown[], index, sizeOf, put, write);
    }
    if (slicer.due()) await slicer.pause();
  }
  pieces.push(parts.join(""));
  return pieces.join("");
}

/** Write the items of `items` from `from` on: a large one alone (opened), else as many small ones as one JSON.stringify should take; the next index. */
function writeItems(items: unknown[], from: number, sizeOf: (value: unknown) => number, put: (part: string) => void, write: (value: unknown) => void): number {
  if (sizeOf(items[from]) > WRITE_VALUES) {
    write(items[from]);
    return from + 1;
  }
  let end = from;
  let values = 0;
  while (end < items.length && values < WRITE_VALUES && sizeOf(items[end]) <= WRITE_VALUES) values += Math.max(1, sizeOf(items[end++]));
  put(JSON.stringify(items.slice(from, end)).slice(1, -1));
  return end;
}
