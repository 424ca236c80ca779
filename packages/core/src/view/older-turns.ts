import type { TurnWalk } from "./find-turns.js";
import type { PreparedTurn } from "./prepare-turn.js";
import { preparedTurnOf } from "./tool-result-compactor.js";

/** How many of the newest older turns fit a room, and whether that is all of them. */
export interface OlderFit {
  fit: number;
  all: boolean;
}

/**
 * The older turns of a view, newest first, prepared only when the view reaches
 * them. Once {@link OlderTurns.compactWith} is called, every turn reached from then
 * on (and every turn prepared before, when next reached) is micro-compacted once.
 */
export class OlderTurns {
  /** Prepared older turns, newest first; `prepared[j]` is the j-th newest. */
  readonly prepared: PreparedTurn[] = [];
  private readonly compacted: boolean[] = [];
  private compact: ((turn: PreparedTurn) => PreparedTurn) | undefined;
  private changes = 0;

  constructor(
    private readonly walk: TurnWalk,
    private readonly prepare: (from: number, to: number) => PreparedTurn,
    /** What any prepared message costs at least (0 turns the early skip off). */
    private readonly floor = 0,
    /** The most room older turns can have in this view: the limit less the fixed part, before the current turn (see `clearedBand`). */
    readonly headroom = Number.POSITIVE_INFINITY,
  ) {}

  /** True once the history was found over budget and turns are compacted. */
  get compacting(): boolean {
    return this.compact !== undefined;
  }

  /**
   * Counts the changes of form: 1 after {@link compactWith}, one more for each
   * {@link replaceNewest}. What was measured of the turns at one count holds while it
   * stays (see `HistoryRoom`): reaching more turns changes no form.
   */
  get version(): number {
    return this.changes;
  }

  /** Compact every turn reached from now on with `compact`. */
  compactWith(compact: (turn: PreparedTurn) => PreparedTurn): void {
    this.compact = compact;
    this.changes++;
  }

  /** The newest older turn, when it is prepared (the view reached it). */
  get newest(): PreparedTurn | undefined {
    return this.prepared[0];
  }

  /** Show the newest older turn (already prepared) as `turn`: a smaller form of it, chosen for the view. */
  replaceNewest(turn: PreparedTurn): void {
    if (this.prepared[0] === undefined) return;
    this.prepared[0] = turn;
    this.changes++;
  }

  /** True when older turn `j` exists (0 = the newest); finding it walks back over the turns after it, as {@link fitting} does. */
  exists(j: number): boolean {
    return this.walk.olderTurnExists(j);
  }

  /** True when there is an older turn before the newest one. */
  hasMoreThanNewest(): boolean {
    return this.walk.olderTurnStart(1) !== undefined;
  }

  /** How many of the newest older turns fit `avail` tokens, and whether that is all of them. */
  fitting(avail: number): OlderFit {
    let used = 0;
    for (let j = 0; ; j++) {
      if (this.surelyOver(j, avail - used)) return { fit: j, all: false };
      const turn = this.turn(j);
      if (turn === undefined) return { fit: j, all: true };
      if (used + turn.tokens > avail) return { fit: j, all: false };
      used += turn.tokens;
    }
  }

  /**
   * True when older turn `j` is not prepared yet and surely costs more than `left` tokens in
   * any form (its messages at the least any prepared message costs): it is left unread.
   */
  surelyOver(j: number, left: number): boolean {
    if (this.prepared[j] !== undefined || this.floor <= 0 || !this.walk.olderTurnExists(j)) return false;
    return this.walk.keepsMoreThan(this.walk.olderTurnEnd(j), Math.floor(left / this.floor));
  }

  /**
   * Older turn `j` (0 = the newest) as prepared, before the history's compaction (which
   * {@link turn} applies when it reaches it); undefined when there is none.
   */
  uncompacted(j: number): PreparedTurn | undefined {
    const turn = this.reached(j);
    return turn === undefined ? undefined : preparedTurnOf(turn);
  }

  /** Older turn `j` (0 = the newest), prepared (and compacted once compacting) when first reached; undefined when there is none. */
  turn(j: number): PreparedTurn | undefined {
    let turn = this.reached(j);
    if (turn === undefined) return undefined;
    if (this.compact && !this.compacted[j]) {
      this.compacted[j] = true;
      turn = this.prepared[j] = this.compact(turn);
    }
    return turn;
  }

  /** Older turn `j` as the view holds it (prepared when first reached); undefined when there is none. */
  private reached(j: number): PreparedTurn | undefined {
    const start = this.walk.olderTurnStart(j);
    if (start === undefined) return undefined;
    return this.prepared[j] ?? (this.prepared[j] = this.prepare(start, this.walk.olderTurnEnd(j)));
  }
}
