// `pnpm eval recall --ids uuid`: the turns re-keyed with UUIDs, the ids a LangGraph graph
// gives messages that have none (its messages reducer assigns a v4 UUID). The sources'
// own ids are a few characters ("D3:12"); a recalled line shows a message's id, so what
// an id costs decides how many lines the block holds.
import { createHash } from "node:crypto";
import type { RecallSource } from "./types.js";

/** A UUID-shaped id, the same for the same conversation and turn on every run. */
export function uuidOf(conversation: string, turn: string): string {
  const h = createHash("sha1").update(`${conversation}\u0000${turn}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `source` with every turn's id (and every question's evidence) replaced by {@link uuidOf}. */
export function withUuidIds(source: RecallSource): RecallSource {
  return {
    ...source,
    description: `${source.description}; turn ids replaced by UUIDs, as LangGraph assigns them`,
    conversations: source.conversations.map((c) => ({
      ...c,
      turns: c.turns.map((t) => ({ ...t, id: uuidOf(c.id, t.id) })),
      questions: c.questions.map((q) => ({ ...q, evidence: q.evidence.map((e) => uuidOf(c.id, e)) })),
    })),
  };
}
