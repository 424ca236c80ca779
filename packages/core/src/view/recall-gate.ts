import { kindOf, toBaseMessage, toolCallsOf, type MessageInput } from "../messages.js";

/** Turns before the current request that must call no tool for the recalled block to go before the current turn. */
export const RECALL_QUIET_TURNS = 3;

/**
 * Whether the recall stage places a block before the current turn: only in a
 * conversational stretch, when none of the {@link RECALL_QUIET_TURNS} turns before the
 * current request called a tool (read back through `messages` from `currentStart`,
 * then through `prior`, the summarized prefix). The block sits right before the
 * current turn and is gone on the next one, so the prompt cache loses the turn that
 * followed it: a few hundred tokens after a question in a chat, thousands after an
 * agent's tool loop. Otherwise recall is a brief (see `allocateView`): no reserve, on
 * the turn's first call only, which costs the cache the request alone. Only
 * turns before the current one are read, so the answer is the same on every call of
 * a turn and the reserve older turns leave does not flip within it (the head would move).
 *
 * @example
 * ```ts
 * recallRuns(messages, lead, currentStart, prior); // false right after a turn with tool calls: a brief instead
 * ```
 */
export function recallRuns(messages: readonly MessageInput[], lead: number, currentStart: number, prior: readonly MessageInput[]): boolean {
  let turns = 0;
  // Newest first: the messages before the current turn, then the summarized prefix.
  const at = (k: number): [MessageInput, number] | undefined => {
    const i = currentStart - 1 - k;
    if (i >= lead) return [messages[i] as MessageInput, i];
    const j = prior.length - 1 - (lead - 1 - i);
    return j >= 0 ? [prior[j] as MessageInput, lead + j] : undefined;
  };
  for (let k = 0; ; k++) {
    const entry = at(k);
    if (entry === undefined) return true;
    const [message, index] = entry;
    const kind = kindOf(message, index);
    if (kind === "tool") return false;
    if (kind === "ai" && toolCallsOf(toBaseMessage(message, index)).length > 0) return false;
    if (kind === "human" && ++turns >= RECALL_QUIET_TURNS) return true;
  }
}
