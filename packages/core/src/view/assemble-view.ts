import type { BaseMessage } from "@langchain/core/messages";
import type { FixedPart } from "./charge-fixed-part.js";
import { shownOlderTurn, type ChosenOlderTurns } from "./choose-older-turns.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { ProviderHead } from "./provider-head.js";

/** The view's messages and what they hold. */
export interface AssembledView {
  messages: BaseMessage[];
  /** Estimated tokens of the head and the kept older turns (the provider head is charged with the fixed part). */
  historyTokens: number;
  /** Input messages represented in the view (labels excluded). */
  keptMessages: number;
  keptExchanges: number;
}

/**
 * Assemble the view: stage 6 of {@link buildContext}. The system message, the provider
 * head (see `providerHead`), the head (summary or excerpts), the kept older turns oldest
 * first, then the current turn. Leading system messages count as kept when they became
 * the system prompt; the provider head's messages count as kept.
 *
 * @example
 * ```ts
 * const assembled = assembleView(fixed, head, chosen, older.reached, current, leadKept);
 * ```
 */
export function assembleView(
  fixed: FixedPart,
  providerHead: ProviderHead,
  chosen: ChosenOlderTurns,
  olderNewestFirst: readonly PreparedTurn[],
  current: PreparedTurn,
  leadKept: number,
): AssembledView {
  const messages: BaseMessage[] = [];
  if (fixed.systemMessage) messages.push(fixed.systemMessage);
  messages.push(...providerHead.messages, ...chosen.head);
  let historyTokens = chosen.headTokens;
  let keptMessages = leadKept + providerHead.inputMessages;
  let keptExchanges = current.exchanges;
  for (let j = chosen.kept - 1; j >= 0; j--) {
    const turn = shownOlderTurn(chosen, olderNewestFirst, j);
    messages.push(...turn.messages);
    historyTokens += turn.tokens;
    keptMessages += turn.inputMessages;
    keptExchanges += turn.exchanges;
  }
  messages.push(...current.messages);
  keptMessages += current.inputMessages;
  return { messages, historyTokens, keptMessages, keptExchanges };
}
