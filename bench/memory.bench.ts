// Retained heap per conversation served: `pnpm bench memory`
//
// Each surface (withContext, the node, the middleware), with default options, serves
// 300 conversations of ~1 MB in its own `node --expose-gc` process
// (test/children/retained-heap.ts); every reference is dropped, garbage is collected,
// and the heap still held is divided by the conversations served.
// Target: under 20 MB in all, i.e. under ~70 kB per conversation.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const CONVERSATIONS = 300;
const ROOT = join(__dirname, "..");

interface Result {
  surface: string;
  conversations: number;
  kBPerConversation: number;
  retainedBytes: number;
  bytesPerConversation: number;
}

let failed = false;
for (const surface of ["withContext", "node", "middleware"]) {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", join(ROOT, "test/children/retained-heap.ts"), surface, String(CONVERSATIONS)], { cwd: ROOT, encoding: "utf8" });
  if (child.status !== 0) {
    console.log(`${surface}: failed\n${child.stderr}`);
    failed = true;
    continue;
  }
  const result = JSON.parse(child.stdout.trim().split("\n").pop() as string) as Result;
  const share = result.bytesPerConversation / (result.kBPerConversation * 1024);
  const ok = result.retainedBytes < 20 * 1024 * 1024;
  console.log(
    `${surface.padEnd(12)} ${result.conversations} conversations of ~${result.kBPerConversation} kB: retained ${(result.retainedBytes / 1048576).toFixed(1)} MB, ` +
      `${(result.bytesPerConversation / 1024).toFixed(1)} kB per conversation (${(share * 100).toFixed(2)}% of what was served) ${ok ? "ok" : "OVER the 20 MB target"}`,
  );
  if (!ok) failed = true;
}
process.exit(failed ? 1 : 0);
