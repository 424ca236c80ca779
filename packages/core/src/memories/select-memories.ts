import { invalidOption } from "../errors.js";
import { checkEstimator, createEstimator, type Estimator } from "../estimate.js";
import { messageText } from "../lexical/request-text.js";
import { contentWords, wordOverlap, wordsOf } from "../lexical/words.js";
import type { MessageInput } from "../messages.js";
import { memoryBlockCost, renderMemoryBlock } from "./memory-block.js";
import { readMemory, timeOf, type MemoryInput } from "./saved-memory.js";

/** Options of {@link selectMemories}. */
export interface SelectMemoriesOptions {
  /**
   * Estimated tokens the block (header and lines) may use. Pass the same value as
   * the view's `memoryBudget` so `buildContext` keeps every selected memory.
   * @default 1000
   */
  budgetTokens?: number;
  /**
   * The time recency is measured from: epoch milliseconds or a Date.
   * @default Date.now()
   */
  now?: number | Date;
  /**
   * Largest recency bonus, for a memory saved just now; it halves every
   * `halfLifeDays`. Below 1, so one more matching word always ranks higher.
   * @default 0.5
   */
  recencyBonus?: number;
  /**
   * Days for the recency bonus to halve.
   * @default 30
   */
  halfLifeDays?: number;
  /**
   * How tokens are estimated; use the view's estimator.
   * @default createEstimator()
   */
  estimator?: Estimator;
}

/**
 * Defaults of {@link SelectMemoriesOptions} (besides `now` and `estimator`).
 *
 * @example
 * ```ts
 * DEFAULT_MEMORY_OPTIONS.budgetTokens; // 1000
 * ```
 */
export const DEFAULT_MEMORY_OPTIONS = Object.freeze({ budgetTokens: 1000, recencyBonus: 0.5, halfLifeDays: 30 });

/** A memory with its rank. */
export interface RankedMemory {
  /** The memory as given (never copied into a store, never changed). */
  memory: MemoryInput;
  /** Its index in the input. */
  index: number;
  text: string;
  /** Distinct query words found in the memory. */
  overlap: number;
  /** The recency part of the score, from 0 to `recencyBonus`. */
  recency: number;
  /** `overlap + recency`. */
  score: number;
}

/** The memories to inject for one request. Counts only in `report`. */
export interface MemorySelection {
  /** Kept memories, best first. */
  memories: RankedMemory[];
  /** Their texts in the same order: pass as `buildContext({ memories })`. */
  texts: string[];
  /** The rendered block (header and one line per memory), `""` when none is kept. */
  block: string;
  /** Estimated tokens of `block`. */
  tokens: number;
  report: {
    /** Memories given. */
    in: number;
    kept: number;
    /** Given but not injected this time (still stored: selection never deletes). */
    omitted: number;
    /** Kept memories that share at least one word with the query. */
    matched: number;
    budgetTokens: number;
  };
}

const DAY_MS = 86_400_000;
const defaultEstimator = createEstimator();

function checkNumber(field: string, value: unknown, fallback: number, ok: (n: number) => boolean, expected: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !ok(value)) throw invalidOption(field, expected, value);
  return value;
}

/** Text-only codepoint order: the same on every machine and locale. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Choose the saved memories to inject for one request: rank by how many distinct
 * query words each memory contains, then by a small recency bonus, and keep the
 * best that fit `budgetTokens` (a memory too long for what is left is skipped, a
 * shorter one after it may still fit). Pure: nothing is deleted or changed; what
 * is not injected this time stays in your store.
 *
 * The query is the user's request text, not attachment contents: pass a string,
 * or the human message itself (its text blocks are read, file and image blocks
 * are not); `requestText(messages)` gives the newest one. Ties are broken by
 * recency, then text, then input order, so the same memories give the same block
 * in any order.
 *
 * @example
 * ```ts
 * const selection = selectMemories(saved, requestText(state.messages), { budgetTokens: 1000, now: Date.now() });
 * const view = buildContext({ messages: state.messages, memories: selection.texts, budget: { memoryBudget: 1000 } });
 * ```
 */
export function selectMemories(memories: readonly MemoryInput[], query: string | MessageInput, options: SelectMemoriesOptions = {}): MemorySelection {
  if (!Array.isArray(memories)) throw invalidOption("memories", "an array of strings or saved memories", memories);
  const budgetTokens = checkNumber("budgetTokens", options.budgetTokens, DEFAULT_MEMORY_OPTIONS.budgetTokens, (n) => Number.isSafeInteger(n) && n >= 0, "a non-negative integer");
  const recencyBonus = checkNumber("recencyBonus", options.recencyBonus, DEFAULT_MEMORY_OPTIONS.recencyBonus, (n) => n >= 0 && n < 1, "a number from 0 up to (not including) 1");
  const halfLifeDays = checkNumber("halfLifeDays", options.halfLifeDays, DEFAULT_MEMORY_OPTIONS.halfLifeDays, (n) => Number.isFinite(n) && n > 0, "a positive number");
  const now = timeOf(options.now, "now") ?? Date.now();
  const estimator = checkEstimator(options.estimator, "estimator") ?? defaultEstimator;
  if (query === null || (typeof query !== "string" && typeof query !== "object")) throw invalidOption("query", "a string or a human message", query);
  const overlapOf = wordOverlap(contentWords(typeof query === "string" ? query : messageText(query)));

  const ranked: (RankedMemory & { time: number })[] = [];
  memories.forEach((value, index) => {
    const memory = readMemory(value, index);
    if (memory.text.trim() === "") return;
    const overlap = overlapOf(wordsOf(memory.text));
    const age = memory.createdAt === undefined ? Infinity : Math.max(0, now - memory.createdAt);
    const recency = recencyBonus * 0.5 ** (age / (halfLifeDays * DAY_MS));
    ranked.push({ memory: value, index, text: memory.text, overlap, recency, score: overlap + recency, time: memory.createdAt ?? -Infinity });
  });
  ranked.sort((a, b) => b.score - a.score || b.time - a.time || byText(a.text, b.text) || a.index - b.index);

  const kept: RankedMemory[] = [];
  let used = memoryBlockCost.header(estimator);
  for (const candidate of ranked) {
    const cost = memoryBlockCost.line(estimator, candidate.text);
    if (used + cost > budgetTokens) continue;
    used += cost;
    const { time: _time, ...memory } = candidate;
    kept.push(memory);
  }
  const texts = kept.map((memory) => memory.text);
  return {
    memories: kept,
    texts,
    block: renderMemoryBlock(texts),
    tokens: kept.length === 0 ? 0 : used,
    report: { in: memories.length, kept: kept.length, omitted: memories.length - kept.length, matched: kept.filter((m) => m.overlap > 0).length, budgetTokens },
  };
}
