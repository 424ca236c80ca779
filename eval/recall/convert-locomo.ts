// Converts LoCoMo (github.com/snap-research/locomo, CC BY-NC 4.0) into the compact,
// gzip'd fixture `pnpm eval recall` reads. Run once, by hand, against a local clone:
//   tsx eval/recall/convert-locomo.ts <path of the repository's git directory> [commit]
// The commit this fixture was made from keeps the ten conversations in
// data/locomo10.zip (data/multimodal_dialog/locomo10_v2/<id>.json), not data/locomo10.json.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { LOCOMO_FIXTURE, type LocomoFixture } from "./locomo.js";

interface RawTurn { speaker: string; dia_id: string; text: string; blip_caption?: string }
interface RawQa { question: string; answer?: unknown; evidence?: string[]; category: number }

/** LoCoMo's evidence lists hold a few malformed ids ("D8:6; D9:17", "D:11:26", "D30:05"); split and normalize them. */
export function normalizeEvidence(raw: readonly string[]): string[] {
  return raw
    .flatMap((entry) => entry.split(/[;,\s]+/))
    .map((id) => id.replace(/^D:/, "D").replace(/:0+(\d)/, ":$1"))
    .filter((id) => /^D\d+:\d+$/.test(id));
}

function main(): void {
  const [gitDir, commit = "HEAD"] = process.argv.slice(2);
  if (!gitDir) throw new Error("usage: tsx eval/recall/convert-locomo.ts <git dir> [commit]");
  const sha = execFileSync("git", ["-C", gitDir, "rev-parse", commit], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "locomo-"));
  try {
    writeFileSync(join(dir, "locomo10.zip"), execFileSync("git", ["-C", gitDir, "show", `${sha}:data/locomo10.zip`], { maxBuffer: 1 << 26 }));
    execFileSync("unzip", ["-q", "-o", join(dir, "locomo10.zip"), "-d", dir]);
    const data = join(dir, "data/multimodal_dialog/locomo10_v2");
    const files = readdirSync(data).filter((f) => f.endsWith(".json")).sort((a, b) => Number.parseInt(a) - Number.parseInt(b));
    const skipped = { adversarial: 0, noEvidence: 0, unknownIds: 0 };
    const conversations = files.map((file) => {
      const raw = JSON.parse(readFileSync(join(data, file), "utf8")) as Record<string, unknown> & { speaker_a: string; speaker_b: string; qa: RawQa[] };
      const sessionNumbers = Object.keys(raw).flatMap((k) => (/^session_\d+$/.test(k) && Array.isArray(raw[k]) ? [Number(k.slice(8))] : [])).sort((a, b) => a - b);
      const sessions = sessionNumbers.map((n) => ({
        date: String(raw[`session_${n}_date_time`]),
        turns: (raw[`session_${n}`] as RawTurn[]).map((t) => [t.dia_id, t.speaker === raw.speaker_a ? 0 : 1, t.text, ...(t.blip_caption ? [t.blip_caption] : [])] as [string, 0 | 1, string, string?]),
      }));
      const ids = new Set(sessions.flatMap((s) => s.turns.map((t) => t[0])));
      const questions = raw.qa.flatMap((qa) => {
        if (qa.category === 5) return (skipped.adversarial++, []);
        const evidence = normalizeEvidence(qa.evidence ?? []);
        skipped.unknownIds += evidence.filter((id) => !ids.has(id)).length;
        const known = [...new Set(evidence.filter((id) => ids.has(id)))];
        if (known.length === 0) return (skipped.noEvidence++, []);
        return [{ q: qa.question, a: String(qa.answer ?? ""), evidence: known, category: qa.category }];
      });
      return { id: file.replace(/\.json$/, ""), speakers: [raw.speaker_a, raw.speaker_b] as [string, string], sessions, questions };
    });
    const fixture: LocomoFixture = {
      source: { repository: "https://github.com/snap-research/locomo", commit: sha, path: "data/locomo10.zip → data/multimodal_dialog/locomo10_v2/*.json", licence: "CC BY-NC 4.0", skipped },
      conversations,
    };
    writeFileSync(LOCOMO_FIXTURE, gzipSync(`${JSON.stringify(fixture)}\n`, { level: 9 }));
    console.log(`${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.questions.length, 0)} questions → ${LOCOMO_FIXTURE}`, skipped);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("convert-locomo.ts")) main();
