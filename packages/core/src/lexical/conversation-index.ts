import { kindOf, textOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";
import { searchTerms } from "./search-terms.js";

/** Characters of one message read into the index: a huge tool result is searched by its beginning. */
const MAX_INDEXED_CHARS = 20_000;
/** BM25's term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** Conversations whose index a process keeps when their messages are re-created on every call (a checkpoint read anew). */
const MAX_KEYED_INDEXES = 64;

/** One ranked message: its index in the messages given to {@link ConversationIndex.sync}, and its BM25 score. */
export interface RankedMessage {
  index: number;
  score: number;
}

/**
 * The searchable text of one message: user and assistant text, the names and
 * arguments of tool calls, a tool result's name and text (its first
 * 20,000 characters). System messages are not searched.
 *
 * @example
 * ```ts
 * searchableText(new ToolMessage({ tool_call_id: "c1", name: "search", content: '{"id":"RES-1"}' }), 0); // "search {\"id\":\"RES-1\"}"
 * ```
 */
export function searchableText(message: MessageInput, index: number): string {
  const kind = kindOf(message, index);
  if (kind === "system") return "";
  const base = toBaseMessage(message, index);
  const parts = [textOf(base.content).slice(0, MAX_INDEXED_CHARS)];
  if (kind === "ai") for (const call of toolCallsOf(base)) parts.push(call.name, JSON.stringify(call.args ?? {}).slice(0, MAX_INDEXED_CHARS));
  if (kind === "tool" && typeof base.name === "string") parts.unshift(base.name);
  return parts.filter((part) => part !== "").join(" ");
}

/**
 * A BM25 index of one conversation's messages, kept incrementally: {@link sync}
 * indexes only the messages appended since the last call, and starts again when
 * the messages it indexed are no longer a prefix (a fork, an edited message).
 *
 * Every indexed message is verified on every call, in one of two ways: the same
 * object as at the last sync (a comparison per message), or, for an object not
 * seen at the last sync (a checkpoint read anew, an edited message), the same id
 * and the same 32-bit FNV-1a hash of its searchable text — what an edit that keeps
 * the id changes. So an edit anywhere in the prefix rebuilds the index (a hash
 * collision aside), and a conversation read anew costs a hash of every message's
 * text per call. Holds term postings and, per message, its id and that hash, never
 * text. The objects of the last sync are held in a `WeakMap` keyed by the
 * conversation's first message: they stay alive no longer than that message does
 * (one version of the conversation, replaced at the next sync).
 *
 * @example
 * ```ts
 * const index = conversationIndex(messages);
 * index.rank(searchTerms("which flight did I book?"), (i) => i < cut, 20);
 * ```
 */
export class ConversationIndex {
  private ids: (string | undefined)[] = [];
  private hashes: number[] = [];
  private lengths: number[] = [];
  private totalLength = 0;
  /** Per term: message index and term frequency, flattened. */
  private postings = new Map<string, number[]>();
  /** The message objects of the last sync, under its first message (an ephemeron: never keeps that message alive). */
  private seen = new WeakMap<object, unknown[]>();
  /** The first message of the last sync, to drop its entry in {@link seen} when the first message changes. */
  private seenKey: WeakRef<object> | undefined;

  /** Messages indexed. */
  get size(): number {
    return this.ids.length;
  }

  /** Bring the index up to `messages`: append what is new, or rebuild when the indexed ones are not its prefix. */
  sync(messages: readonly MessageInput[]): void {
    const first = messages[0];
    const key = typeof first === "object" && first !== null ? first : undefined;
    const previous = this.seenKey?.deref();
    let objects = previous === undefined ? undefined : this.seen.get(previous);
    if (previous !== undefined && previous !== key) this.seen.delete(previous);
    if (objects === undefined) objects = [];
    if (!this.isPrefixOf(messages, objects)) {
      this.clear();
      objects.length = 0;
    }
    for (let i = this.ids.length; i < messages.length; i++) {
      this.add(messages[i] as MessageInput, i);
      objects[i] = messages[i];
    }
    if (key === undefined) {
      this.seenKey = undefined;
    } else {
      this.seen.set(key, objects);
      if (previous !== key) this.seenKey = new WeakRef(key);
    }
  }

  /**
   * The messages that `accept` admits, ranked by BM25 against `query` (search
   * terms), best first, ties by index; at most `max`, none without a query term.
   * Reads only the postings of the query's terms.
   */
  rank(query: readonly string[], accept: (index: number) => boolean, max: number): RankedMessage[] {
    const n = this.ids.length;
    if (n === 0 || max <= 0) return [];
    const avg = this.totalLength / n || 1;
    const scores = takeScratch(n);
    const touched: number[] = [];
    try {
      for (const term of new Set(query)) {
        const list = this.postings.get(term);
        if (list === undefined) continue;
        const df = list.length / 2;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        for (let k = 0; k < list.length; k += 2) {
          const doc = list[k] as number;
          if (!accept(doc)) continue;
          const tf = list[k + 1] as number;
          const norm = tf + K1 * (1 - B + (B * (this.lengths[doc] as number)) / avg);
          // Every contribution is positive: a score of 0 is a message not yet touched.
          if (scores[doc] === 0) touched.push(doc);
          scores[doc] = (scores[doc] as number) + (idf * tf * (K1 + 1)) / norm;
        }
      }
      return best(touched, scores, max).map((index) => ({ index, score: scores[index] as number }));
    } finally {
      for (const doc of touched) scores[doc] = 0;
      scratch = scores;
    }
  }

  /** True when the messages indexed are `messages`' prefix: the same objects as `objects`, or the same id and text hash. */
  private isPrefixOf(messages: readonly MessageInput[], objects: unknown[]): boolean {
    const n = this.ids.length;
    if (messages.length < n) return false;
    for (let i = 0; i < n; i++) {
      const message = messages[i] as MessageInput;
      if (objects[i] === message) continue;
      // A checkpoint read anew gives new objects: the same id and text is the same message.
      const id = idOf(message);
      if (id === undefined || id !== this.ids[i] || hashText(searchableText(message, i)) !== this.hashes[i]) return false;
      objects[i] = message;
    }
    return true;
  }

  private clear(): void {
    this.ids = [];
    this.hashes = [];
    this.lengths = [];
    this.totalLength = 0;
    this.postings = new Map();
  }

  private add(message: MessageInput, index: number): void {
    const text = searchableText(message, index);
    const terms = searchTerms(text);
    this.ids.push(idOf(message));
    this.hashes.push(hashText(text));
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) {
      const list = this.postings.get(term);
      if (list === undefined) this.postings.set(term, [index, tf]);
      else list.push(index, tf);
    }
  }
}

/** Scores by message index, all 0 between calls of {@link ConversationIndex.rank}; taken while in use. */
let scratch: Float64Array | undefined;

function takeScratch(n: number): Float64Array {
  const mine = scratch !== undefined && scratch.length >= n ? scratch : new Float64Array(Math.max(n, 2 * (scratch?.length ?? 0)));
  scratch = undefined;
  return mine;
}

/** The `max` best of `docs` by score, then the lower index, best first: a bounded heap, then a sort of what it kept. */
function best(docs: readonly number[], scores: Float64Array, max: number): number[] {
  const better = (a: number, b: number) => (scores[a] as number) > (scores[b] as number) || (scores[a] === scores[b] && a < b);
  const byRank = (a: number, b: number) => (scores[b] as number) - (scores[a] as number) || a - b;
  if (docs.length <= max) return [...docs].sort(byRank);
  // A min-heap of the best so far: its root is the worst kept.
  const heap = docs.slice(0, max);
  const down = (from: number) => {
    for (let i = from; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < max && better(heap[worst] as number, heap[l] as number)) worst = l;
      if (r < max && better(heap[worst] as number, heap[r] as number)) worst = r;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst] as number, heap[i] as number];
      i = worst;
    }
  };
  for (let i = (max >> 1) - 1; i >= 0; i--) down(i);
  for (let k = max; k < docs.length; k++) {
    const doc = docs[k] as number;
    if (!better(doc, heap[0] as number)) continue;
    heap[0] = doc;
    down(0);
  }
  return heap.sort(byRank);
}

function idOf(message: unknown): string | undefined {
  const id = (message as { id?: unknown } | null)?.id;
  if (typeof id === "string" && id !== "") return id;
  const nested = (message as { kwargs?: { id?: unknown }; data?: { id?: unknown } } | null);
  const other = nested?.kwargs?.id ?? nested?.data?.id;
  return typeof other === "string" && other !== "" ? other : undefined;
}

/** FNV-1a over UTF-16 units: tells an edited message from the one indexed. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const byObject = new WeakMap<object, ConversationIndex>();
const byId = new Map<string, ConversationIndex>();

/**
 * The index of a conversation, synced to `messages`: found by the identity of its
 * first message, or by that message's id when the messages were read anew from a
 * checkpoint (the newest {@link MAX_KEYED_INDEXES} conversations), else built.
 * A conversation no longer referenced is collected with its messages.
 *
 * @example
 * ```ts
 * const index = conversationIndex(state.messages);
 * ```
 */
export function conversationIndex(messages: readonly MessageInput[]): ConversationIndex {
  const first = messages[0];
  const key = typeof first === "object" && first !== null ? first : undefined;
  const id = idOf(first);
  let index = (key && byObject.get(key)) ?? (id === undefined ? undefined : byId.get(id));
  if (index === undefined) index = new ConversationIndex();
  index.sync(messages);
  if (key) byObject.set(key, index);
  if (id !== undefined) {
    byId.delete(id);
    byId.set(id, index);
    if (byId.size > MAX_KEYED_INDEXES) byId.delete(byId.keys().next().value as string);
  }
  return index;
}
