import { sameFingerprint, type PrefixFingerprint } from "../memo/conversation-memo.js";
import { conversationMapKey } from "../store/keys.js";
import type { ConversationKey } from "../store/contracts.js";
import type { SummaryFailureReason } from "../summarize/run-summarizer.js";

/**
 * The abort signal of one summarize attempt shared by several callers: aborted once
 * every caller waiting for it has aborted. A caller without a signal can never
 * abort, so it keeps the attempt alive for everyone.
 *
 * @example
 * ```ts
 * const shared = new SharedAbort();
 * shared.join(request.signal);
 * await summarizeAttempt({ ...inputs, signal: shared.signal });
 * shared.close();
 * ```
 */
export class SharedAbort {
  readonly #controller = new AbortController();
  readonly #detach: (() => void)[] = [];
  #live = 0;
  #unabortable = false;
  #closed = false;

  /** The signal the shared attempt runs with. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** One more caller waits for the attempt (a no-op once it settled). */
  join(signal: AbortSignal | undefined): void {
    if (this.#closed) return;
    if (signal === undefined) {
      this.#unabortable = true;
      return;
    }
    if (signal.aborted) return this.#abortIfAbandoned(signal.reason);
    this.#live++;
    const onAbort = () => {
      this.#live--;
      this.#abortIfAbandoned(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    this.#detach.push(() => signal.removeEventListener("abort", onAbort));
  }

  /** The attempt settled: stop listening to the callers' signals. */
  close(): void {
    this.#closed = true;
    for (const detach of this.#detach.splice(0)) detach();
  }

  #abortIfAbandoned(reason: unknown): void {
    if (this.#live === 0 && !this.#unabortable && !this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}

/** What makes two summarize attempts of one conversation the same attempt, besides the prefix's hash. */
export interface FlightIdentity {
  /** First message not yet summarized. */
  offset: number;
  /** End of the prefix the summary would stand for. */
  prefixN: number;
  /** The running summary it extends. */
  previous: string | null;
  /** The prompt limit, which bounds the summary. */
  limit: number;
  /** Which message objects make up the prefix: the same objects need no hash to compare. */
  objects: PrefixFingerprint;
}

/** One summarize attempt in progress, shared by the builds of one conversation that need it. */
export interface SummaryFlight<T> {
  readonly identity: FlightIdentity;
  readonly abort: SharedAbort;
  /** The hash of the prefix, computed at most once (with the shared signal). */
  readonly hash: () => Promise<string>;
  /** Settles with the attempt's outcome (stored by the attempt itself). */
  readonly done: Promise<T>;
  /** Set by the first caller that took the outcome: the others report no calls of their own. */
  claimed: boolean;
}

/** True when two attempts would summarize the same messages the same way, prefix hashes (and message objects) aside. */
export function sameIdentity(a: FlightIdentity, b: FlightIdentity): boolean {
  return a.offset === b.offset && a.prefixN === b.prefixN && a.limit === b.limit && a.previous === b.previous;
}

/** How a flight hashes its prefix: with the shared signal, or with one caller's while it compares. */
export type FlightHasher = (signal: AbortSignal | undefined) => Promise<string>;

/**
 * Summarize attempts in progress, one per conversation (single-flight): a build that
 * needs the summary another build of the same conversation is already making waits
 * for that attempt instead of calling the summarizer again. An entry is removed when
 * its attempt settles; a later attempt of the conversation replaces it. One instance
 * per kind of summary (the conversation's, a long turn's), so the two never meet.
 *
 * @example
 * ```ts
 * const flights = new SummaryFlights<SummaryStep>();
 * const taken = await flights.share(key, identity, (signal) => prefixHash(key, messages, prefixN, signal), (signal, hash) => attempt(signal, hash), request.signal);
 * ```
 */
export class SummaryFlights<T> {
  readonly #flights = new Map<string, SummaryFlight<T>>();

  /** The attempt in progress for this conversation, if any. */
  get(key: ConversationKey): SummaryFlight<T> | undefined {
    return this.#flights.get(conversationMapKey(key));
  }

  /** Conversations with an attempt in progress. */
  get size(): number {
    return this.#flights.size;
  }

  /**
   * Start an attempt for this conversation: `run` gets the shared signal and the
   * prefix hash (see {@link SummaryFlight.hash}). Callers join it with `abort.join`.
   */
  start(key: ConversationKey, identity: FlightIdentity, hashWith: FlightHasher, run: (signal: AbortSignal, hash: () => Promise<string>) => Promise<T>): SummaryFlight<T> {
    const id = conversationMapKey(key);
    const abort = new SharedAbort();
    let hashed: Promise<string> | undefined;
    const hash = () => (hashed ??= hashWith(abort.signal));
    const flight: SummaryFlight<T> = {
      identity,
      abort,
      hash,
      claimed: false,
      // Started on the next microtask, once the entry is in the map and its caller joined.
      done: Promise.resolve().then(() => run(abort.signal, hash)),
    };
    this.#flights.set(id, flight);
    const settled = () => {
      abort.close();
      if (this.#flights.get(id) === flight) this.#flights.delete(id);
    };
    flight.done.then(settled, settled);
    return flight;
  }

  /**
   * Take part in the attempt this caller needs: the one in progress for the
   * conversation when it summarizes the same prefix the same way, else a new one (see
   * {@link SummaryFlights.start}) that later callers then find. The caller's signal
   * joins the shared abort and the caller waits (see {@link waitForFlight}): `"left"`
   * when it aborted while others still wait. `shared` is false for the first caller
   * to take the outcome, true for the others (they report no summarizer calls).
   */
  async share(key: ConversationKey, identity: FlightIdentity, hashWith: FlightHasher, run: (signal: AbortSignal, hash: () => Promise<string>) => Promise<T>, signal: AbortSignal | undefined): Promise<{ outcome: T; shared: boolean } | "left"> {
    const running = this.get(key);
    // No await before a flight starts when none runs: the next build of the conversation must find it.
    const flight = running !== undefined && (await sharesPrefix(running, identity, hashWith, signal)) ? running : this.start(key, identity, hashWith, run);
    flight.abort.join(signal);
    const outcome = await waitForFlight(flight, signal);
    if (outcome === "left") return "left";
    const shared = flight.claimed;
    flight.claimed = true;
    return { outcome, shared };
  }
}

/** True when the attempt in progress summarizes this very prefix the same way: the same message objects, else the same hash. */
async function sharesPrefix<T>(running: SummaryFlight<T>, identity: FlightIdentity, hashWith: FlightHasher, signal: AbortSignal | undefined): Promise<boolean> {
  if (!sameIdentity(running.identity, identity)) return false;
  if (sameFingerprint(running.identity.objects, identity.objects)) return true;
  try {
    const [theirs, ours] = await Promise.all([running.hash(), hashWith(signal)]);
    return theirs === ours;
  } catch {
    // A hash cut short by an abort: this caller makes its own attempt, which sees the abort.
    return false;
  }
}

/**
 * Wait for a shared attempt on behalf of one caller. When the caller's signal aborts
 * while other callers still wait, it stops waiting (`"left"`) and the attempt goes on
 * for them; when it was the last one, the attempt itself is aborted and its outcome
 * awaited, as for a caller alone.
 *
 * @example
 * ```ts
 * const step = await waitForFlight(flight, request.signal);
 * if (step === "left") return { failure: "aborted" };
 * ```
 */
export async function waitForFlight<T>(flight: SummaryFlight<T>, signal: AbortSignal | undefined): Promise<T | "left"> {
  if (signal === undefined) return flight.done;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<"aborted">((resolve) => {
    onAbort = () => resolve("aborted");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const first = await Promise.race([flight.done, aborted]);
    if (first !== "aborted") return first;
    return flight.abort.signal.aborted ? await flight.done : "left";
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The summarizer's health across every conversation of one manager: after
 * `maxFailures` failed attempts in a row, wherever they happened, summarizing is
 * skipped everywhere for `cooldownMs`. A success anywhere closes it; while the
 * failures stay at the maximum, the next failure after a cool-down opens it again at
 * once. An aborted attempt says nothing about the summarizer and counts neither way.
 *
 * @example
 * ```ts
 * const breaker = new SummarizerBreaker(3, 300_000, Date.now);
 * if (!breaker.open()) breaker.record(attempt.status === "ok" ? "ok" : attempt.reason);
 * ```
 */
export class SummarizerBreaker {
  #failures = 0;
  #skipUntil: number | undefined;

  constructor(
    private readonly maxFailures: number,
    private readonly cooldownMs: number,
    private readonly now: () => number,
  ) {}

  /** True while summarizing is skipped everywhere. */
  open(): boolean {
    return this.#skipUntil !== undefined && this.#skipUntil > this.now();
  }

  /** Count the outcome of one attempt. */
  record(outcome: "ok" | SummaryFailureReason): void {
    if (outcome === "aborted") return;
    if (outcome === "ok") {
      this.#failures = 0;
      this.#skipUntil = undefined;
      return;
    }
    this.#failures++;
    if (this.#failures >= this.maxFailures) this.#skipUntil = this.now() + this.cooldownMs;
  }
}
