import { invalidOption } from "../errors.js";
import type { ConversationKey } from "../store/contracts.js";
import { conversationMapKey } from "../store/keys.js";

/**
 * Which message objects make up a prefix, without holding them: the prefix length
 * and a 64-bit fingerprint of the identities of its message objects (two 32-bit
 * hashes with seeds drawn when the process starts). Two prefixes made of the very
 * same objects in the same order have the same fingerprint; any other prefix has
 * it with a probability of about 2^-64.
 */
export interface PrefixFingerprint {
  readonly length: number;
  readonly high: number;
  readonly low: number;
}

/** A number per message object, never reused in this process; the objects stay collectable. */
const identities = new WeakMap<object, number>();
let nextIdentity = 1;
const SEED_HIGH = (Math.random() * 0x1_0000_0000) >>> 0;
const SEED_LOW = (Math.random() * 0x1_0000_0000) >>> 0;

function identityOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let id = identities.get(value);
  if (id === undefined) {
    id = nextIdentity++;
    identities.set(value, id);
  }
  return id;
}

/** One round of murmur3's 32-bit block mix. */
function mix(hash: number, value: number): number {
  let k = Math.imul(value | 0, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  hash ^= k;
  hash = (hash << 13) | (hash >>> 19);
  return (Math.imul(hash, 5) + 0xe6546b64) | 0;
}

/**
 * The {@link PrefixFingerprint} of `messages[0, n)`: one weak-map lookup per message.
 *
 * @example
 * ```ts
 * const seen = prefixFingerprint(messages, 10);
 * sameFingerprint(seen, prefixFingerprint([...messages, reply], 10)); // true: same objects
 * ```
 */
export function prefixFingerprint(messages: readonly unknown[], n: number): PrefixFingerprint {
  const length = Math.max(0, Math.min(n, messages.length));
  let high = SEED_HIGH;
  let low = SEED_LOW;
  for (let i = 0; i < length; i++) {
    const id = identityOf(messages[i]);
    // Identities stay below 2^53; both halves enter each hash.
    const upper = Math.floor(id / 0x1_0000_0000);
    high = mix(mix(high, id), upper);
    low = mix(mix(low, upper ^ 0x5bd1e995), id ^ 0x27d4eb2f);
  }
  return { length, high: high >>> 0, low: low >>> 0 };
}

/**
 * True when two fingerprints describe the same objects.
 *
 * @example
 * ```ts
 * sameFingerprint(prefixFingerprint(a, 3), prefixFingerprint(a, 3)); // true
 * ```
 */
export function sameFingerprint(a: PrefixFingerprint | undefined, b: PrefixFingerprint): boolean {
  return a !== undefined && a.length === b.length && a.high === b.high && a.low === b.low;
}

/**
 * The default bound of a {@link ConversationMemo}.
 * @default 512
 */
export const DEFAULT_REMEMBERED_CONVERSATIONS = 512;

/**
 * A small per-conversation memo for long-running servers: at most `capacity`
 * conversations (the least recently used one is forgotten first), keyed by user and
 * conversation. Values must stay small and must not hold message lists — hashes,
 * counts, ids, {@link PrefixFingerprint}s, a bounded evidence message — so a server
 * retains at most `capacity` small records however many conversations it serves.
 *
 * @example
 * ```ts
 * const memo = new ConversationMemo<{ fingerprint: PrefixFingerprint; hash: string }>(512);
 * const seen = memo.get(key);
 * const fingerprint = prefixFingerprint(messages, n);
 * if (!sameFingerprint(seen?.fingerprint, fingerprint)) memo.set(key, { fingerprint, hash: await hashOf(messages, n) });
 * ```
 */
export class ConversationMemo<V> {
  /** Conversations remembered at most. @default 512 */
  readonly capacity: number;
  readonly #entries = new Map<string, V>();

  constructor(capacity: number = DEFAULT_REMEMBERED_CONVERSATIONS) {
    if (!Number.isSafeInteger(capacity) || capacity <= 0) throw invalidOption("capacity", "a positive integer", capacity);
    this.capacity = capacity;
  }

  /** Conversations currently remembered. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value remembered for the conversation (and marks it recently used). */
  get(key: ConversationKey): V | undefined {
    const id = conversationMapKey(key);
    const value = this.#entries.get(id);
    if (value !== undefined) {
      this.#entries.delete(id);
      this.#entries.set(id, value);
    }
    return value;
  }

  /** Remember `value` for the conversation, forgetting the least recently used one beyond `capacity`. */
  set(key: ConversationKey, value: V): void {
    const id = conversationMapKey(key);
    this.#entries.delete(id);
    this.#entries.set(id, value);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value as string);
  }

  /** Forget the conversation. */
  delete(key: ConversationKey): void {
    this.#entries.delete(conversationMapKey(key));
  }
}
