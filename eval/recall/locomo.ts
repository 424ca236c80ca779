// The LoCoMo fixture (eval/fixtures/locomo/README.md): ten multi-session chats and
// their questions with evidence ids, converted by convert-locomo.ts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { RecallConversation, RecallSource } from "./types.js";

export const LOCOMO_FIXTURE = join(__dirname, "../fixtures/locomo/locomo10-recall.json.gz");

/** The stored form: turns as [dia_id, speaker 0|1, text, image caption?]. */
export interface LocomoFixture {
  source: { repository: string; commit: string; path: string; licence: string; skipped: Record<string, number> };
  conversations: {
    id: string;
    speakers: [string, string];
    sessions: { date: string; turns: [string, 0 | 1, string, string?][] }[];
    questions: { q: string; a: string; evidence: string[]; category: number }[];
  }[];
}

const CATEGORIES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop" };

/**
 * LoCoMo as a recall source. A turn with a shared image keeps the image's caption
 * after its text, as "[shares a photo: …]" (the caption is what a text model would get).
 */
export function locomoSource(): RecallSource {
  const fixture = JSON.parse(gunzipSync(readFileSync(LOCOMO_FIXTURE)).toString("utf8")) as LocomoFixture;
  const conversations: RecallConversation[] = fixture.conversations.map((c) => ({
    id: `locomo-${c.id}`,
    turns: c.sessions.flatMap((s, i) =>
      s.turns.map(([id, role, text, caption]) => ({ id, role, speaker: c.speakers[role], text: caption ? `${text} [shares a photo: ${caption}]` : text, session: i + 1, date: s.date })),
    ),
    questions: c.questions.map((q, i) => ({ id: `locomo-${c.id}-q${i + 1}`, text: q.q, evidence: q.evidence, category: CATEGORIES[q.category] ?? String(q.category) })),
  }));
  return { name: "locomo", description: `LoCoMo (${fixture.source.repository}@${fixture.source.commit.slice(0, 7)}, ${fixture.source.licence})`, conversations };
}
