// Memory selection on large queries: `pnpm bench memories`
//
// 10,000 saved memories of about 15 words; selectMemories with a 3-word request and
// with a 6,000-word request (a pasted document), medians of several runs in one
// process. Target: the large request costs at most 20× the small one (selection is
// linear in memories + request words, not their product).
import { selectMemories, type SavedMemory } from "@contextview/core/routing";

const VOCABULARY = Array.from({ length: 4000 }, (_, i) => `word${i.toString(36)}`);

function words(n: number, seed: number): string {
  const out: string[] = [];
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(VOCABULARY[x % VOCABULARY.length] as string);
  }
  return out.join(" ");
}

const memories: SavedMemory[] = Array.from({ length: 10_000 }, (_, i) => ({ text: `Memory ${i}: ${words(15, i + 1)}`, createdAt: 1_700_000_000_000 + i * 60_000 }));
const small = "rent groceries budget";
const large = words(6000, 99);

function median(run: () => void, times: number): number {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b)[Math.floor(times / 2)] as number;
}

const now = 1_800_000_000_000;
// Warm up both paths.
selectMemories(memories, small, { now });
selectMemories(memories, large, { now });
const smallMs = median(() => selectMemories(memories, small, { now }), 9);
const largeMs = median(() => selectMemories(memories, large, { now }), 9);
const ratio = largeMs / smallMs;
console.log(`10,000 memories, 3-word request:     ${smallMs.toFixed(1).padStart(8)} ms (median of 9)`);
console.log(`10,000 memories, 6,000-word request: ${largeMs.toFixed(1).padStart(8)} ms (median of 9)`);
console.log(`ratio large / small: ${ratio.toFixed(1)}× (target <= 20×)`);
process.exit(ratio <= 20 ? 0 : 1);
