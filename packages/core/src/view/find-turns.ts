import { kindOf, newestRequestIndex, toBaseMessage, toolCallIdOf, toolCallsOf, type MessageInput, type MessageKind } from "../messages.js";
import { conversationStart, type ProviderHeadSpan } from "./provider-head.js";

/**
 * The turns of a conversation, found lazily from the newest message back: the
 * leading system messages, the current turn (from the newest user message to the
 * end), and older turns on demand, newest first. Roles are read only when asked
 * for, so the walk never touches what the view does not keep; `oldestRead` tells
 * how far back it went.
 */
export class TurnWalk {
  /** Roles read so far, by input index. */
  readonly kinds: MessageKind[] = [];
  /** Leading system messages: `[0, systemLead)`. */
  readonly systemLead: number;
  /** The latest provider compaction and the results of its calls; nothing before it is read. */
  readonly providerHead: ProviderHeadSpan | undefined;
  /** Where the turns start: after the leading system messages and the provider head. */
  readonly lead: number;
  /** Start of the current turn; `n` when there is none. */
  readonly currentStart: number;
  /** starts[j] begins the j-th newest older turn; it ends where the newer one begins. */
  readonly starts: number[] = [];
  private read: number;
  private noMoreTurns: boolean;

  constructor(readonly source: readonly MessageInput[]) {
    const n = source.length;
    this.read = n;
    const start = conversationStart(source, (i) => this.kind(i));
    const lead = start.floor;
    // Reading the leading system messages and finding the provider head is not reading history.
    this.read = n;
    this.systemLead = start.systemLead;
    this.providerHead = start.head;
    const request = newestRequestIndex(source, lead, (i) => this.kind(i));
    const currentStart = request < 0 ? lead : request;
    this.lead = lead;
    this.currentStart = currentStart;
    this.noMoreTurns = currentStart <= lead;
  }

  /** Number of input messages. */
  get n(): number {
    return this.source.length;
  }

  /** Index of the oldest message whose role was read after the leading system messages. */
  get oldestRead(): number {
    return this.read;
  }

  /** The role of message `i`, read once. */
  kind(i: number): MessageKind {
    if (i < this.read) this.read = i;
    let k = this.kinds[i];
    if (k === undefined) {
      k = kindOf(this.source[i], i);
      this.kinds[i] = k;
    }
    return k;
  }

  /** Start of the j-th newest older turn, or undefined past the oldest. */
  olderTurnStart(j: number): number | undefined {
    while (!this.noMoreTurns && this.starts.length <= j) {
      const end = this.starts.length === 0 ? this.currentStart : (this.starts[this.starts.length - 1] as number);
      let start = this.lead;
      for (let i = end - 1; i > this.lead; i--) {
        if (this.kind(i) === "human") {
          start = i;
          break;
        }
      }
      if (start === this.lead) this.kind(this.lead);
      this.starts.push(start);
      if (start <= this.lead) this.noMoreTurns = true;
    }
    return this.starts[j];
  }

  /**
   * Reading back from `end` (the end of an older turn) to the turn's start, whether
   * more than `most` of its messages surely enter a prepared turn: user messages,
   * answers, and tool-call messages followed by all their results. Stops as soon as
   * the count passes `most`, so a turn too large for the view costs what was read of it.
   */
  keepsMoreThan(end: number, most: number): boolean {
    let kept = 0;
    let run = new Set<string>();
    let runLength = 0;
    for (let i = end - 1; i >= this.lead; i--) {
      const k = this.kind(i);
      if (k === "tool") {
        run.add(toolCallIdOf(toBaseMessage(this.source[i] as MessageInput, i)) ?? "");
        runLength++;
        continue;
      }
      if (k === "human") kept++;
      else if (k === "ai") {
        const calls = toolCallsOf(toBaseMessage(this.source[i] as MessageInput, i));
        if (calls.length === 0) kept++;
        else if (runLength >= calls.length && new Set(calls.map((call) => call.id)).size === calls.length && calls.every((call) => call.id && run.has(call.id))) kept += 1 + calls.length;
      }
      run = new Set();
      runLength = 0;
      if (kept > most) return true;
      if (k === "human") return false;
    }
    return false;
  }

  /** Whether a j-th newest older turn exists; the turns before it must have been found. */
  olderTurnExists(j: number): boolean {
    return j < this.starts.length || (!this.noMoreTurns && this.olderTurnEnd(j) > this.lead);
  }

  /** End (exclusive) of the j-th newest older turn, once its start was found. */
  olderTurnEnd(j: number): number {
    return j === 0 ? this.currentStart : (this.starts[j - 1] as number);
  }
}

/**
 * Find the turns of `source`: the walk {@link buildContext} starts from. Cheap: it reads roles
 * only back to the newest user message; older turns are found as the view asks for them.
 *
 * @example
 * ```ts
 * const walk = findTurns(messages);
 * walk.currentStart; // index of the newest user message
 * walk.olderTurnStart(0); // start of the turn before it
 * ```
 */
export function findTurns(source: readonly MessageInput[]): TurnWalk {
  return new TurnWalk(source);
}
