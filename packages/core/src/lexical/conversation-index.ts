import { jsonText } from "../estimate.js";
import { kindOf, textOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";
import { countMatches, FREQUENT_TERM, rankMessages, type Postings, type RankedMessage } from "./bm25.js";
import { ImpactList } from "./impact-order.js";
import { messageFingerprint } from "./message-fingerprint.js";
import { searchTerms } from "./search-terms.js";

export type { RankedMessage } from "./bm25.js";

/** Characters of one message read into the index: a huge tool result is searched by its beginning. */
const MAX_INDEXED_CHARS = 20_000;
/** Conversations whose index a process keeps when their messages are re-created on every call (a checkpoint read anew). */
const MAX_KEYED_INDEXES = 64;

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
  return searchableParts(message, index).join(" ");
}

/** The parts {@link searchableText} joins with spaces, none empty. */
function searchableParts(message: MessageInput, index: number): string[] {
  const kind = kindOf(message, index);
  if (kind === "system") return [];
  const base = toBaseMessage(message, index);
  const parts = [textOf(base.content).slice(0, MAX_INDEXED_CHARS)];
  // Arguments JSON refuses (a BigInt, a cycle) could never reach a model: INVALID_MESSAGES, as the estimator says.
  if (kind === "ai") {
    toolCallsOf(base).forEach((call, k) => {
      parts.push(call.name, jsonText(call.args ?? {}, `messages[${index}].tool_calls[${k}].args`).slice(0, MAX_INDEXED_CHARS));
    });
  }
  if (kind === "tool" && typeof base.name === "string") parts.unshift(base.name);
  return parts.filter((part) => part !== "");
}

/**
 * A BM25 index of one conversation's messages, kept incrementally: {@link sync}
 * indexes only the messages appended since the last call, and starts again when
 * the messages it indexed are no longer a prefix (a fork, an edited message).
 *
 * Every indexed message is recognised on every call, in one of two ways: the same
 * object as at the last sync (a comparison per message), or, for an object not
 * seen at the last sync (a checkpoint read anew, an edited message), the same id
 * and the same {@link messageFingerprint} (its role, length and ends, read in
 * constant time). A message whose fingerprint changed rebuilds the index, so a
 * conversation read anew costs a few reads per message, not a pass over its text.
 * An edit that keeps the length and the ends leaves a stale entry, which may only
 * change the ranking: the index holds term postings and, per message, its id and
 * fingerprint, never text, and whoever shows a ranked message reads it from the
 * messages given. The objects of the last sync are held in a `WeakMap` keyed by the
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
  private fingerprints: number[] = [];
  private lengths: number[] = [];
  private totalLength = 0;
  /** Per term: message index and term frequency, flattened. */
  private postings = new Map<string, number[]>();
  /** Impact-ordered postings of the frequent terms ranked so far, kept up to date from then on. */
  private impacts = new Map<string, ImpactList>();
  /** The message objects of the last sync, under its first message (an ephemeron: never keeps that message alive). */
  private seen = new WeakMap<object, unknown[]>();
  /** The first message of the last sync, to drop its entry in {@link seen} when the first message changes. */
  private seenKey: WeakRef<object> | undefined;
  /** Numbers derived from messages by index, for one owner at a time (see {@link derived}). */
  private derivedBy: { owner: object; values: Map<number, number> } | undefined;

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
   * Reads only the postings of the query's terms, and of a frequent term only its
   * best messages when `max` is small (see {@link rankMessages}).
   */
  rank(query: readonly string[], accept: (index: number) => boolean, max: number): RankedMessage[] {
    return rankMessages(this.read(), query, accept, max);
  }

  /** How many messages {@link rank} would return for `max` = `cap`, without ranking them (see {@link countMatches}). */
  countMatches(query: readonly string[], accept: (index: number) => boolean, cap: number): number {
    return countMatches(this.read(), query, accept, cap);
  }

  /**
   * Numbers derived from the messages, by index, for `owner` (the recall stage keeps its
   * lines' estimated tokens here, under the estimator): an entry lasts while its message
   * is the object it was derived from — dropped when the index is rebuilt, and when a
   * message read anew (a new object with the same id and fingerprint) takes its place. One
   * owner at a time: another starts afresh.
   *
   * @example
   * ```ts
   * const tokens = index.derived(estimator);
   * tokens.get(i) ?? tokens.set(i, estimator.estimateText(line)).get(i);
   * ```
   */
  derived(owner: object): Map<number, number> {
    if (this.derivedBy?.owner !== owner) this.derivedBy = { owner, values: new Map() };
    return this.derivedBy.values;
  }

  private read(): Postings {
    const n = this.ids.length;
    return { n, avg: this.totalLength / n || 1, postings: this.postings, lengths: this.lengths, impact: (term: string) => this.impactOf(term) };
  }

  /** True when a message in `[from, to)` holds `term` (a search term). */
  holdsBetween(term: string, from: number, to: number): boolean {
    const list = this.postings.get(term);
    if (list === undefined) return false;
    // Messages ascending: the first at `from` or later decides.
    for (let k = 0; k < list.length; k += 2) if ((list[k] as number) >= from) return (list[k] as number) < to;
    return false;
  }

  /**
   * True when a message at index `from` or later that `skip` does not name holds
   * `term`; reads that term's postings from the newest back, down to `from` only.
   */
  holdsFrom(term: string, from: number, skip: (index: number) => boolean): boolean {
    const list = this.postings.get(term);
    if (list === undefined) return false;
    for (let k = list.length - 2; k >= 0 && (list[k] as number) >= from; k -= 2) if (!skip(list[k] as number)) return true;
    return false;
  }

  /** True when the messages indexed are `messages`' prefix: the same objects as `objects`, or the same ids and fingerprints. */
  private isPrefixOf(messages: readonly MessageInput[], objects: unknown[]): boolean {
    const n = this.ids.length;
    if (messages.length < n) return false;
    for (let i = sameObjectsUpTo(objects, messages, 0, n); i < n; i = sameObjectsUpTo(objects, messages, i + 1, n)) {
      const message = messages[i] as MessageInput;
      // A checkpoint read anew gives new objects: the same id and fingerprint is taken for the same message.
      const id = idOf(message);
      if (id === undefined || id !== this.ids[i] || messageFingerprint(message, i) !== this.fingerprints[i]) return false;
      objects[i] = message;
      this.derivedBy?.values.delete(i);
    }
    return true;
  }

  private clear(): void {
    this.ids = [];
    this.fingerprints = [];
    this.lengths = [];
    this.totalLength = 0;
    this.postings = new Map();
    this.impacts = new Map();
    this.derivedBy = undefined;
  }

  private impactOf(term: string): ImpactList {
    let list = this.impacts.get(term);
    if (list !== undefined) return list;
    list = new ImpactList();
    const postings = this.postings.get(term) ?? [];
    for (let k = 0; k < postings.length; k += 2) list.add(postings[k] as number, postings[k + 1] as number, this.lengths[postings[k] as number] as number);
    if (postings.length / 2 >= FREQUENT_TERM) this.impacts.set(term, list);
    return list;
  }

  private add(message: MessageInput, index: number): void {
    const parts = searchableParts(message, index);
    const terms = searchTerms(parts.join(" "));
    this.ids.push(idOf(message));
    this.fingerprints.push(messageFingerprint(message, index));
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    const counts = new Map<string, number>();
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const [term, tf] of counts) {
      const list = this.postings.get(term);
      if (list === undefined) this.postings.set(term, [index, tf]);
      else list.push(index, tf);
      this.impacts.get(term)?.add(index, tf, terms.length);
    }
  }
}

/**
 * The first index from `from` below `to` where `a` and `b` hold different values, else
 * `to`. Eight comparisons per test: the loads of a long conversation's check overlap.
 */
function sameObjectsUpTo(a: readonly unknown[], b: readonly unknown[], from: number, to: number): number {
  let i = from;
  for (; i + 8 <= to; i += 8) {
    if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2] || a[i + 3] !== b[i + 3]) break;
    if (a[i + 4] !== b[i + 4] || a[i + 5] !== b[i + 5] || a[i + 6] !== b[i + 6] || a[i + 7] !== b[i + 7]) break;
  }
  while (i < to && a[i] === b[i]) i++;
  return i;
}

function idOf(message: unknown): string | undefined {
  const id = (message as { id?: unknown } | null)?.id;
  if (typeof id === "string" && id !== "") return id;
  const nested = (message as { kwargs?: { id?: unknown }; data?: { id?: unknown } } | null);
  const other = nested?.kwargs?.id ?? nested?.data?.id;
  return typeof other === "string" && other !== "" ? other : undefined;
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
