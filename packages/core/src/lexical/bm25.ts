import { ImpactList } from "./impact-order.js";

/** BM25's term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/**
 * A term held by more than this share of the messages indexed is not length-normalised
 * (its `b` is 0; see {@link lengthNormalised}).
 */
export const COMMON_TERM_SHARE = 0.1;
/** A term in at least this many messages is read by impact ({@link ImpactList}) when the ranking may stop early. */
export const FREQUENT_TERM = 256;

/** One ranked message: its index in the messages indexed, and its BM25 score. */
export interface RankedMessage {
  index: number;
  score: number;
}

/** What {@link rankMessages} reads of an index. */
export interface Postings {
  /** Messages indexed. */
  n: number;
  /** Their mean length in terms (1 when none has a term). */
  avg: number;
  /** Per term: message index (ascending) and term frequency, flattened. */
  postings: ReadonlyMap<string, readonly number[]>;
  /** Length in terms of each message. */
  lengths: readonly number[];
  /** The impact-ordered postings of a term of {@link FREQUENT_TERM} messages or more. */
  impact(term: string): ImpactList;
}

/**
 * The messages that `accept` admits, ranked by BM25 against `query`, best first,
 * ties by index; at most `max`, none without a query term. Reads only the query
 * terms' postings. When a term is frequent and `max` small, it reads that term's
 * messages best first and stops once no message not read yet can enter the `max`
 * best (the threshold of Fagin's algorithm, ties included): the same result as
 * scoring every message, each score summed in the same order.
 *
 * @example
 * ```ts
 * rankMessages(postings, searchTerms("which flight did I book?"), (i) => i < cut, 20);
 * ```
 */
export function rankMessages(index: Postings, query: readonly string[], accept: (doc: number) => boolean, max: number): RankedMessage[] {
  if (index.n === 0 || max <= 0) return [];
  const terms = [...new Set(query)].filter((term) => index.postings.has(term));
  const frequent = terms.filter((term) => dfOf(index, term) >= FREQUENT_TERM);
  const read = frequent.reduce((sum, term) => sum + dfOf(index, term), 0);
  const scores = takeScratch(index.n);
  const touched: number[] = [];
  try {
    const docs = frequent.length > 0 && read > 4 * max ? byImpact(index, terms, frequent, accept, max, scores, touched) : everyPosting(index, terms, accept, max, scores, touched);
    return docs.map((doc) => ({ index: doc, score: scores[doc] as number }));
  } finally {
    for (const doc of touched) scores[doc] = 0;
    scratch = scores;
  }
}

/**
 * How many messages that `accept` admits hold a term of `query`, counted up to
 * `cap`: the length of {@link rankMessages}' answer for `max` = `cap`, without
 * scoring. Reads the most frequent term first, so that with `cap` matches or more
 * it stops after about `cap` postings.
 *
 * @example
 * ```ts
 * countMatches(postings, searchTerms("which flight did I book?"), (i) => i < cut, 200);
 * ```
 */
export function countMatches(index: Postings, query: readonly string[], accept: (doc: number) => boolean, cap: number): number {
  if (index.n === 0 || cap <= 0) return 0;
  const terms = [...new Set(query)].filter((term) => index.postings.has(term)).sort((a, b) => dfOf(index, b) - dfOf(index, a));
  const seen = takeScratch(index.n);
  const touched: number[] = [];
  let found = 0;
  try {
    for (const term of terms) {
      const list = index.postings.get(term) as readonly number[];
      for (let k = 0; k < list.length && found < cap; k += 2) {
        const doc = list[k] as number;
        if (seen[doc] !== 0) continue;
        touched.push(doc);
        seen[doc] = 1;
        if (accept(doc)) found++;
      }
    }
    return found;
  } finally {
    for (const doc of touched) seen[doc] = 0;
    scratch = seen;
  }
}

function dfOf(index: Postings, term: string): number {
  return (index.postings.get(term) as readonly number[]).length / 2;
}

/**
 * Whether a term's weight falls with the message's length: BM25's normalisation (`b`
 * 0.75), for all but the terms held by more than {@link COMMON_TERM_SHARE} of the
 * messages (a speaker's name written before every turn, a word of every row). Such a
 * term is in a long message because nearly every message has it, not because the
 * message is verbose, and a query that shares only such terms with its answer (a
 * question in other words that names the asker) would otherwise rank the shortest
 * messages first, which in a chat are "Ha, nice." rather than the facts. Measured with
 * `pnpm eval recall` (evidence recall at 4,000 · 8,000 tokens, against every term
 * normalised): LoCoMo 82.6 · 87.3% (81.8 · 85.3%), the generated chats 68.0 · 80.7%
 * (64.0 · 81.1%), LoCoMo woven with three other chats 78.9 · 83.9% (77.5 · 81.6%);
 * with no term normalised, the questions' rare words lose (LoCoMo 81.2% at 4,000).
 */
function lengthNormalised(index: Postings, term: string): boolean {
  return dfOf(index, term) <= COMMON_TERM_SHARE * index.n;
}

function idfOf(index: Postings, term: string): number {
  const df = dfOf(index, term);
  return Math.log(1 + (index.n - df + 0.5) / (df + 0.5));
}

/** One term's share of a message's score: the one expression both ways of ranking use (`b` 0: not length-normalised). */
function contribution(idf: number, tf: number, length: number, avg: number, b: number): number {
  return (idf * tf * (K1 + 1)) / (tf + K1 * (1 - b + (b * length) / avg));
}

const bOf = (index: Postings, term: string) => (lengthNormalised(index, term) ? B : 0);

/** Score every posting of the query's terms. */
function everyPosting(index: Postings, terms: readonly string[], accept: (doc: number) => boolean, max: number, scores: Float64Array, touched: number[]): number[] {
  for (const term of terms) {
    const list = index.postings.get(term) as readonly number[];
    const idf = idfOf(index, term);
    const b = bOf(index, term);
    for (let k = 0; k < list.length; k += 2) {
      const doc = list[k] as number;
      if (!accept(doc)) continue;
      // Every contribution is positive: a score of 0 is a message not yet touched.
      if (scores[doc] === 0) touched.push(doc);
      scores[doc] = (scores[doc] as number) + contribution(idf, list[k + 1] as number, index.lengths[doc] as number, index.avg, b);
    }
  }
  const heap = new BestOf(max, scores);
  for (const doc of touched) heap.offer(doc);
  return heap.sorted();
}

/**
 * Every message holding a rare term is scored; the frequent terms' messages are
 * read best first until the `max`-th best kept beats the threshold — the sum of the
 * frequent terms' next weights, which no message not read yet exceeds (float sums
 * are monotone) — or, with one frequent term, equals it and every message not read
 * yet of that weight comes later by index. Scores are marked in `scores`: -1 for a
 * message `accept` refuses.
 */
function byImpact(index: Postings, terms: readonly string[], frequent: readonly string[], accept: (doc: number) => boolean, max: number, scores: Float64Array, touched: number[]): number[] {
  // Per query term, in the query's order (the order every score is summed in): its postings and idf.
  const lists = terms.map((term) => index.postings.get(term) as readonly number[]);
  const idfs = terms.map((term) => idfOf(index, term));
  const bs = terms.map((term) => bOf(index, term));
  const scoreOf = (doc: number) => {
    let score = 0;
    const length = index.lengths[doc] as number;
    for (let t = 0; t < lists.length; t++) {
      const tf = tfOf(lists[t] as readonly number[], doc);
      if (tf > 0) score = score + contribution(idfs[t] as number, tf, length, index.avg, bs[t] as number);
    }
    return score;
  };
  const heap = new BestOf(max, scores);
  const see = (doc: number) => {
    if (scores[doc] !== 0) return;
    touched.push(doc);
    if (!accept(doc)) scores[doc] = -1;
    else {
      scores[doc] = scoreOf(doc);
      heap.offer(doc);
    }
  };
  for (let t = 0; t < terms.length; t++) {
    if (frequent.includes(terms[t] as string)) continue;
    const list = lists[t] as readonly number[];
    for (let k = 0; k < list.length; k += 2) see(list[k] as number);
  }
  const cursors = frequent.map((term) => {
    const t = terms.indexOf(term);
    const [idf, b] = [idfs[t] as number, bs[t] as number];
    // A term not length-normalised weighs the same in every message of one frequency: read by index.
    return index.impact(term).cursor((tf, length) => contribution(idf, tf, length, index.avg, b), b > 0);
  });
  for (;;) {
    let threshold = 0;
    for (const cursor of cursors) threshold = threshold + cursor.weight();
    let next = cursors[0];
    for (const cursor of cursors) if (cursor.weight() > (next?.weight() ?? 0)) next = cursor;
    const head = next?.head();
    if (head === undefined || next === undefined) break;
    const worst = heap.worst();
    if (worst !== undefined) {
      const kept = scores[worst] as number;
      if (kept > threshold) break;
      if (cursors.length === 1 && kept === threshold && worst < head && next.headRunIsAlone()) break;
    }
    next.next();
    see(head);
  }
  return heap.sorted();
}

/** The frequency of `doc` in a term's flattened postings (messages ascending), 0 when absent. */
function tfOf(list: readonly number[], doc: number): number {
  let lo = 0;
  let hi = list.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = list[2 * mid] as number;
    if (at === doc) return list[2 * mid + 1] as number;
    if (at < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/** Scores by message index, all 0 between calls of {@link rankMessages}; taken while in use. */
let scratch: Float64Array | undefined;

function takeScratch(n: number): Float64Array {
  const mine = scratch !== undefined && scratch.length >= n ? scratch : new Float64Array(Math.max(n, 2 * (scratch?.length ?? 0)));
  scratch = undefined;
  return mine;
}

/** The `max` best messages offered, by score then the lower index: a min-heap whose root is the worst kept. */
class BestOf {
  private heap: number[] = [];

  constructor(private readonly max: number, private readonly scores: Float64Array) {}

  /** The worst message kept once `max` are, else undefined. */
  worst(): number | undefined {
    return this.heap.length < this.max ? undefined : this.heap[0];
  }

  offer(doc: number): void {
    const heap = this.heap;
    if (heap.length < this.max) {
      heap.push(doc);
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1;
        if (!this.better(heap[parent] as number, heap[i] as number)) break;
        [heap[i], heap[parent]] = [heap[parent] as number, heap[i] as number];
        i = parent;
      }
      return;
    }
    if (!this.better(doc, heap[0] as number)) return;
    heap[0] = doc;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      let worst = i;
      if (l < heap.length && this.better(heap[worst] as number, heap[l] as number)) worst = l;
      if (l + 1 < heap.length && this.better(heap[worst] as number, heap[l + 1] as number)) worst = l + 1;
      if (worst === i) return;
      [heap[i], heap[worst]] = [heap[worst] as number, heap[i] as number];
      i = worst;
    }
  }

  /** The messages kept, best first. */
  sorted(): number[] {
    const scores = this.scores;
    return [...this.heap].sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
  }

  private better(a: number, b: number): boolean {
    const sa = this.scores[a] as number;
    const sb = this.scores[b] as number;
    return sa > sb || (sa === sb && a < b);
  }
}
