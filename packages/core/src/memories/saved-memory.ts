import { invalidOption } from "../errors.js";

/** A saved memory: a fact the user asked the assistant to remember. */
export interface SavedMemory {
  /** The fact, as it is injected. */
  text: string;
  /** Stable id in your store; the last tie-breaker after text. @default undefined */
  id?: string;
  /** When it was saved or last confirmed: epoch milliseconds, a Date, or an ISO string. Earns the recency bonus. @default undefined (no bonus) */
  createdAt?: number | Date | string;
}

/** What {@link selectMemories} accepts per memory: a text, or a {@link SavedMemory}. */
export type MemoryInput = string | SavedMemory;

/** A memory read once: its text, id and time in epoch milliseconds. */
export interface ReadMemory {
  text: string;
  id: string | undefined;
  createdAt: number | undefined;
}

/** Read and validate `memories[index]`; throws `INVALID_OPTION` naming the field. */
export function readMemory(value: unknown, index: number): ReadMemory {
  const at = `memories[${index}]`;
  if (typeof value === "string") return { text: value, id: undefined, createdAt: undefined };
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalidOption(at, "a string or an object with `text`", value);
  const memory = value as Partial<SavedMemory>;
  if (typeof memory.text !== "string") throw invalidOption(`${at}.text`, "a string", memory.text);
  if (memory.id !== undefined && typeof memory.id !== "string") throw invalidOption(`${at}.id`, "a string", memory.id);
  return { text: memory.text, id: memory.id, createdAt: timeOf(memory.createdAt, `${at}.createdAt`) };
}

/** Epoch milliseconds of a time option; throws naming `field` when it is not a valid time. */
export function timeOf(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : value;
  if (typeof ms !== "number" || !Number.isFinite(ms)) throw invalidOption(field, "epoch milliseconds, a Date or an ISO date string", value);
  return ms;
}
