// A longer source made of LoCoMo itself, the way LongMemEval builds its haystacks: each
// conversation's sessions interleaved with the sessions of `others` other LoCoMo
// conversations (other people, other facts), its own questions asked at the end. It
// checks that what the view keeps holds when the history is several times the length
// of one chat, where recency is worth nearly nothing.
import type { RecallConversation, RecallSource, RecallTurn } from "./types.js";

/** A conversation's turns grouped by session, in order, each id prefixed with `tag`. */
function sessionsOf(conversation: RecallConversation, tag: string): RecallTurn[][] {
  const sessions = new Map<number, RecallTurn[]>();
  for (const turn of conversation.turns) {
    const list = sessions.get(turn.session) ?? [];
    list.push({ ...turn, id: `${tag}${turn.id}` });
    sessions.set(turn.session, list);
  }
  return [...sessions.values()];
}

/**
 * Each conversation of `base` with the sessions of the `others` conversations after it
 * (cyclically) woven in: session j of every other conversation, then its own session j,
 * for j = 1, 2, …; sessions renumbered in that order, each keeping its own date. The
 * other conversations' turn ids are prefixed (`x1-D3:4`) so they never collide with
 * the evidence ids; the questions are the conversation's own.
 *
 * @example
 * ```ts
 * const source = haystackSource(locomoSource(), 3); // ~4× longer chats, the same questions
 * ```
 */
export function haystackSource(base: RecallSource, others: number): RecallSource {
  const all = base.conversations;
  const conversations = all.map((conversation, i) => {
    const own = sessionsOf(conversation, "");
    const woven = Array.from({ length: Math.min(others, all.length - 1) }, (_, k) => sessionsOf(all[(i + k + 1) % all.length] as RecallConversation, `x${k + 1}-`));
    const turns: RecallTurn[] = [];
    let session = 0;
    const rounds = Math.max(own.length, ...woven.map((s) => s.length));
    for (let j = 0; j < rounds; j++) {
      for (const sessions of [...woven, own]) {
        const turnsOfSession = sessions[j];
        if (turnsOfSession === undefined) continue;
        session += 1;
        for (const turn of turnsOfSession) turns.push({ ...turn, session });
      }
    }
    return { id: `${conversation.id}-haystack${others}`, turns, questions: conversation.questions };
  });
  return { name: `${base.name}-haystack`, description: `${base.description}; each chat's sessions interleaved with those of ${others} other chats (LongMemEval-style haystack)`, conversations };
}
