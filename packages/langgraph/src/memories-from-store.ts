import { type Estimator, type MessageInput } from "@contextview/core";
import { requestText, selectMemories, type SavedMemory } from "@contextview/core/routing";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseStore, Item } from "@langchain/langgraph";
import { z } from "zod";
import { ContextIntegrationError } from "./errors.js";

/**
 * Where a user's saved memories live in LangGraph's long-term store, and how
 * many to consider. Every field is optional: `memories: {}` (or `true`) reads
 * `["memories", userId]` of the graph's own store.
 *
 * @example
 * ```ts
 * const memories: MemoriesFromStore = { namespace: ({ userId }) => ["tenant-a", "memories", userId], limit: 20 };
 * createContextNode({ store, memories });
 * ```
 */
export interface MemoriesFromStore {
  /**
   * The LangGraph `BaseStore` (`InMemoryStore`, `PostgresStore`, …).
   * @default the graph's store: `config.store` in the node and the wrapper, `runtime.store` in the middleware
   */
  store?: BaseStore;
  /**
   * The namespace of one user's memories, from the authenticated user and the call's config.
   * @default ({ userId }) => ["memories", userId]
   */
  namespace?: (input: { userId: string; config: RunnableConfig }) => string[];
  /**
   * Items asked of `store.search` per call, before selection within `memoryBudget`.
   * @default 50
   */
  limit?: number;
  /**
   * The text of a stored item, or `undefined` to skip it.
   * @default the first string among `value.text`, `value.content`, `value.memory`, `value.data`
   */
  text?: (item: Item) => string | undefined;
}

/**
 * Items considered per call when `limit` is not given.
 *
 * @example
 * ```ts
 * createContextNode({ memories: { limit: DEFAULT_MEMORY_SEARCH_LIMIT * 2 } });
 * ```
 */
export const DEFAULT_MEMORY_SEARCH_LIMIT = 50;

const isFunction = (value: unknown): boolean => typeof value === "function";

/**
 * The zod schema of the `memories` option; `true` means every default.
 *
 * @example
 * ```ts
 * memoriesOptionSchema.parse({ namespace: ({ userId }) => ["tenant-a", "memories", userId], limit: 20 });
 * ```
 */
export const memoriesOptionSchema = z.union([
  z.literal(true),
  z.strictObject({
    store: z.custom<BaseStore>((value) => typeof value === "object" && value !== null && isFunction((value as { search?: unknown }).search)).optional(),
    namespace: z.custom<MemoriesFromStore["namespace"]>(isFunction).optional(),
    limit: z.number().int().positive().max(1000).optional(),
    text: z.custom<MemoriesFromStore["text"]>(isFunction).optional(),
  }),
]);

/** What the `memories` option accepts, for error messages. */
export const MEMORIES_EXPECTED = "true or an object { store?, namespace?, limit? (1 to 1000), text? }";

/** The text fields read from an item's value, first string wins. */
const TEXT_FIELDS = ["text", "content", "memory", "data"] as const;

function defaultText(item: Item): string | undefined {
  const value = item.value as Record<string, unknown> | undefined;
  for (const field of TEXT_FIELDS) if (typeof value?.[field] === "string") return value[field] as string;
  return undefined;
}

/** The store a call reads memories from: the option's, else the graph's. */
function storeOf(option: MemoriesFromStore, config: RunnableConfig | undefined, runtimeStore: unknown): BaseStore {
  const store = option.store ?? runtimeStore ?? (config as { store?: unknown } | undefined)?.store;
  if (typeof store !== "object" || store === null || !isFunction((store as { search?: unknown }).search)) {
    throw new ContextIntegrationError(
      "INVALID_OPTION",
      "Expected a LangGraph store for `memories`: compile the graph (or createAgent) with `store`, or pass `memories: { store }`",
      { field: "memories.store" },
    );
  }
  return store as BaseStore;
}

/** One item as a saved memory, or null to skip it. */
function memoryOf(item: Item, text: (item: Item) => string | undefined): SavedMemory | null {
  const value = text(item);
  if (typeof value !== "string" || value.trim() === "") return null;
  const at = item.updatedAt ?? item.createdAt;
  const time = at instanceof Date ? at.getTime() : typeof at === "string" ? Date.parse(at) : NaN;
  return { text: value, id: item.key, ...(Number.isFinite(time) ? { createdAt: time } : {}) };
}

/**
 * The saved memories for one call, ready for `ContextRequest.memories`: searches
 * the user's namespace with the request text (a store with an embedding index
 * ranks by meaning; a text-search store returns matches), fills up with the
 * newest items when the query finds fewer than `limit`, then keeps the most
 * relevant within `budgetTokens` (`selectMemories`: shared words, then recency).
 *
 * @example
 * ```ts
 * const texts = await memoriesForCall({}, { config, userId: "u-1", messages, budgetTokens: 1000 });
 * ```
 */
export async function memoriesForCall(
  option: true | MemoriesFromStore,
  call: { config: RunnableConfig | undefined; userId: string; messages: readonly MessageInput[]; budgetTokens: number; estimator?: Estimator | undefined; runtimeStore?: unknown },
): Promise<string[]> {
  const settings: MemoriesFromStore = option === true ? {} : option;
  const store = storeOf(settings, call.config, call.runtimeStore);
  const namespace = settings.namespace ? settings.namespace({ userId: call.userId, config: call.config ?? {} }) : ["memories", call.userId];
  if (!Array.isArray(namespace) || namespace.length === 0 || !namespace.every((part) => typeof part === "string" && part !== "")) {
    throw new ContextIntegrationError("INVALID_OPTION", "Expected `memories.namespace` to return a non-empty array of non-empty strings", { field: "memories.namespace" });
  }
  const limit = settings.limit ?? DEFAULT_MEMORY_SEARCH_LIMIT;
  const query = requestText(call.messages);
  const found = query.trim() === "" ? [] : await store.search(namespace, { query, limit });
  const items: Item[] = [...found];
  if (items.length < limit) {
    const seen = new Set(items.map((item) => item.key));
    for (const item of await store.search(namespace, { limit })) if (!seen.has(item.key) && items.length < limit) items.push(item);
  }
  const text = settings.text ?? defaultText;
  const memories = items.map((item) => memoryOf(item, text)).filter((memory): memory is SavedMemory => memory !== null);
  return selectMemories(memories, query, { budgetTokens: call.budgetTokens, ...(call.estimator ? { estimator: call.estimator } : {}) }).texts;
}
