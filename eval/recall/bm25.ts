// The reference of `pnpm eval recall`: plain BM25 over the turns (k1 1.2, b 0.75),
// query = the question, turns added best first while they fit the prompt limit, then
// shown in conversation order before the question. No stemming, a short stop-word list.
import type { BaseMessage } from "@langchain/core/messages";

const STOP = new Set("a an and are as at be but by did do does for from had has have he her his how i in is it its me my of on or our she so that the their them they this to was we were what when where which who why will with would you your".split(" "));

export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((t) => !STOP.has(t));
}

/** A BM25 index over documents (the turns' texts), built once per conversation. */
export class Bm25Index {
  private readonly docs: Map<string, number>[];
  private readonly lengths: number[];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(texts: readonly string[], private readonly k1 = 1.2, private readonly b = 0.75) {
    this.docs = texts.map((text) => {
      const tf = new Map<string, number>();
      for (const t of terms(text)) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      return tf;
    });
    this.lengths = this.docs.map((tf) => [...tf.values()].reduce((a, n) => a + n, 0));
    this.avgLength = this.lengths.reduce((a, n) => a + n, 0) / Math.max(1, this.lengths.length);
  }

  /** Score of every document against the query. */
  scores(query: string): number[] {
    const n = this.docs.length;
    const q = [...new Set(terms(query))];
    return this.docs.map((tf, i) => {
      let score = 0;
      for (const t of q) {
        const f = tf.get(t);
        if (!f) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * (this.lengths[i] ?? 0)) / this.avgLength));
      }
      return score;
    });
  }
}

/**
 * The BM25 view: history messages ranked by score (ties: the newer first), each added
 * while `count(view)` stays within `limit` (a turn that does not fit is skipped, the
 * next tried), shown in conversation order, then the question.
 */
export function bm25View(index: Bm25Index, history: readonly BaseMessage[], question: BaseMessage, limit: number, count: (m: readonly BaseMessage[]) => number): BaseMessage[] {
  const scores = index.scores(String(question.content));
  const order = history.map((_, i) => i).filter((i) => (scores[i] ?? 0) > 0);
  order.sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || b - a);
  let used = count([question]);
  const chosen: number[] = [];
  for (const i of order) {
    const tokens = count([history[i] as BaseMessage]);
    if (used + tokens > limit) continue;
    used += tokens;
    chosen.push(i);
  }
  chosen.sort((a, b) => a - b);
  return [...chosen.map((i) => history[i] as BaseMessage), question];
}
