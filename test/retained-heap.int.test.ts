// A server meets thousands of conversations: what the integrations remember per
// conversation must be small (hashes, counts, ids), never the messages. Each surface
// serves 300 conversations of ~1 MB in a child process started with --expose-gc.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const ROOT = join(__dirname, "..");
const CONVERSATIONS = 300;
const LIMIT_BYTES = 20 * 1024 * 1024;

function retained(surface: string): { retainedBytes: number; conversations: number } {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", join(__dirname, "children/retained-heap.ts"), surface, String(CONVERSATIONS)], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`retained-heap.ts ${surface} failed: ${child.stderr}`);
  const line = child.stdout.trim().split("\n").pop() as string;
  return JSON.parse(line) as { retainedBytes: number; conversations: number };
}

describe("memory of a long-running server", () => {
  it.each(["withContext", "node", "middleware"])("%s retains under 20 MB after 300 conversations of ~1 MB (default options)", (surface) => {
    const result = retained(surface);
    expect(result.conversations).toBe(CONVERSATIONS);
    expect(result.retainedBytes).toBeLessThan(LIMIT_BYTES);
  });
});
