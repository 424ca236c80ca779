/** One term frequency's messages: lengths ascending, each length's messages ascending. */
interface ByLength {
  tf: number;
  lengths: number[];
  docs: Map<number, number[]>;
}

/** Its messages of every length, ascending: how a weight that ignores length reads them. */
interface ByTf {
  byLength: ByLength;
  all: number[];
}

/** The one "length" of a {@link ByTf} read as a single run. */
const ANY_LENGTH = 0;

/**
 * The postings of one frequent term ordered by impact, for ranking that stops early:
 * per term frequency, per message length (ascending), the messages (ascending).
 * A message's BM25 contribution falls with its length at a given frequency, so a
 * {@link ImpactCursor} reads the messages best first without scoring the others.
 *
 * @example
 * ```ts
 * const list = new ImpactList();
 * list.add(0, 1, 12);
 * const cursor = list.cursor((tf, length) => tf / (tf + length));
 * cursor.head(); // 0
 * ```
 */
export class ImpactList {
  private byTf = new Map<number, ByTf>();

  /** Add message `doc`, holding the term `tf` times in `length` terms; messages come in ascending order. */
  add(doc: number, tf: number, length: number): void {
    let entry = this.byTf.get(tf);
    if (entry === undefined) this.byTf.set(tf, (entry = { byLength: { tf, lengths: [], docs: new Map() }, all: [] }));
    entry.all.push(doc);
    const list = entry.byLength;
    let docs = list.docs.get(length);
    if (docs === undefined) {
      list.docs.set(length, (docs = []));
      list.lengths.splice(lowerBound(list.lengths, length), 0, length);
    }
    docs.push(doc);
  }

  /**
   * A cursor from the best message down, by `weight(tf, length)`: non-increasing in
   * `length` at each `tf`. `byLength` false: the weight does not depend on length, and
   * each frequency's messages are read as one run, by index (ties stay in index order).
   */
  cursor(weight: (tf: number, length: number) => number, byLength = true): ImpactCursor {
    const entries = [...this.byTf.values()];
    const lists = byLength ? entries.map((e) => e.byLength) : entries.map((e) => ({ tf: e.byLength.tf, lengths: [ANY_LENGTH], docs: new Map([[ANY_LENGTH, e.all]]) }));
    return new ImpactCursor(lists, weight);
  }
}

/** Where one term frequency's list is. */
interface Position {
  list: ByLength;
  at: number;
  pos: number;
  /** Weight of the messages at `at`, or -Infinity when read to the end. */
  weight: number;
}

/**
 * Reads an {@link ImpactList}'s messages by weight, best first, ties by index
 * within one length: {@link head} is the next, {@link weight} its weight (0 at the end).
 *
 * @example
 * ```ts
 * for (let doc = cursor.head(); doc !== undefined; cursor.next(), doc = cursor.head()) console.log(doc, cursor.weight());
 * ```
 */
export class ImpactCursor {
  private positions: Position[];
  private best: Position | undefined;

  constructor(lists: ByLength[], private readonly weightOf: (tf: number, length: number) => number) {
    this.positions = lists.map((list) => ({ list, at: 0, pos: 0, weight: this.weightAt(list, 0) }));
    this.pick();
  }

  /** The next message, or undefined at the end. */
  head(): number | undefined {
    const best = this.best;
    if (best === undefined) return undefined;
    return (best.list.docs.get(best.list.lengths[best.at] as number) as number[])[best.pos];
  }

  /** The weight of {@link head}: no message not read yet weighs more; 0 at the end. */
  weight(): number {
    return this.best === undefined ? 0 : this.best.weight;
  }

  /**
   * True when every message not read yet with the head's weight comes after the head
   * by index: no other length or term frequency left gives that weight.
   */
  headRunIsAlone(): boolean {
    const best = this.best;
    if (best === undefined) return true;
    if (this.weightAt(best.list, best.at + 1) >= best.weight) return false;
    return this.positions.every((p) => p === best || p.weight < best.weight);
  }

  /** Move past {@link head}. */
  next(): void {
    const best = this.best;
    if (best === undefined) return;
    best.pos++;
    if (best.pos >= (best.list.docs.get(best.list.lengths[best.at] as number) as number[]).length) {
      best.at++;
      best.pos = 0;
      best.weight = this.weightAt(best.list, best.at);
    }
    this.pick();
  }

  private weightAt(list: ByLength, at: number): number {
    return at < list.lengths.length ? this.weightOf(list.tf, list.lengths[at] as number) : -Infinity;
  }

  private pick(): void {
    let best: Position | undefined;
    for (const p of this.positions) if (p.weight !== -Infinity && (best === undefined || p.weight > best.weight)) best = p;
    this.best = best;
  }
}

/** The first position in ascending `list` whose value is not below `value`. */
function lowerBound(list: readonly number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
