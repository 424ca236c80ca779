/**
 * Edits between two names, case aside: insertions, deletions, substitutions and swaps
 * of two neighbouring letters (`budgt` → `budget` is 1, `promtpBudget` → `promptBudget` is 1).
 */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) (rows[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] as number[];
    const above = rows[i - 1] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((above[j] as number) + 1, (row[j - 1] as number) + 1, (above[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, ((rows[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  }
  return (rows[a.length] as number[])[b.length] as number;
}

/**
 * The candidate a mistyped name most likely meant, or undefined when none is close:
 * the same name in another case, one a few edits away (about a third of its length), or
 * one that contains the name or is contained in it (`window` → `contextWindow`). Ties go to
 * the earlier candidate, so list the everyday names first.
 *
 * @example
 * ```ts
 * closestName("budgt", ["store", "budget"]); // "budget"
 * closestName("colour", ["store", "budget"]); // undefined
 * ```
 */
export function closestName(name: string, candidates: readonly string[]): string | undefined {
  const wanted = name.toLowerCase();
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const other = candidate.toLowerCase();
    const distance = editDistance(wanted, other);
    const contains = Math.min(wanted.length, other.length) >= 4 && (other.includes(wanted) || wanted.includes(other));
    const close = distance <= Math.max(1, Math.floor(other.length / 3));
    if (!close && !contains) continue;
    const score = close ? distance : Math.abs(other.length - wanted.length) + 0.5;
    if (best === undefined || score < best.score) best = { candidate, score };
  }
  return best?.candidate;
}
