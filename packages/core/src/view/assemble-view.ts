import type { BaseMessage } from "@langchain/core/messages";
import type { FixedPart } from "./charge-fixed-part.js";
import type { ChosenOlderTurns, KeptOlderTurns } from "./allocate-view.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { ProviderHead } from "./provider-head.js";

/** The view's messages and what they hold. */
export interface AssembledView {
  messages: BaseMessage[];
  /** Estimated tokens of the head and the kept older turns (the provider head is charged with the fixed part). */
  historyTokens: number;
  /** Input messages represented in the view (labels excluded; the pinned and recalled blocks are counted by their reports). */
  keptMessages: number;
  keptExchanges: number;
  /** Index in `messages` right after the system message and the provider head: where the pinned block starts. */
  afterHead: number;
}

/** Every part of a view as its allocation chose it, in the order {@link assembleView} puts them. */
export interface ViewParts {
  fixed: FixedPart;
  /** The provider head, right after the system message (see `providerHead`). */
  providerHead: ProviderHead;
  /** The pinned block's messages (see `pinnedBlock`). */
  pinned: readonly BaseMessage[];
  /** The head before the older turns (summary or excerpts), with its tokens (see `allocateView`). */
  head: Pick<ChosenOlderTurns, "head" | "headTokens">;
  /** The older turns kept, in their forms (see `allocateView`). */
  kept: KeptOlderTurns;
  /** The recalled block's messages (see `recallBlock`). */
  recalled: readonly BaseMessage[];
  current: PreparedTurn;
  /** Leading system messages that became the system message: counted as kept. */
  leadKept: number;
}

/**
 * Assemble the view, once, from the parts its allocation chose: the system message, the
 * provider head (see `providerHead`), the pinned block, the head (summary or excerpts),
 * the kept older turns oldest first, the recalled block, then the current turn. The
 * recalled block goes right before the current turn, so the prefix before it is the one
 * the previous call sent. Leading system messages count as kept when they became the
 * system prompt; the provider head's messages count as kept.
 *
 * @example
 * ```ts
 * const assembled = assembleView({ fixed, providerHead: head, pinned: block.messages, head: chosen, kept, recalled, current, leadKept });
 * ```
 */
export function assembleView(parts: ViewParts): AssembledView {
  const { fixed, providerHead, head, kept, current } = parts;
  const messages: BaseMessage[] = [];
  if (fixed.systemMessage) messages.push(fixed.systemMessage);
  messages.push(...providerHead.messages);
  const afterHead = messages.length;
  for (const part of [parts.pinned, head.head, kept.messages, parts.recalled, current.messages]) for (const message of part) messages.push(message);
  return {
    messages,
    historyTokens: head.headTokens + kept.tokens,
    keptMessages: parts.leadKept + providerHead.inputMessages + kept.inputMessages + current.inputMessages,
    keptExchanges: current.exchanges + kept.exchanges,
    afterHead,
  };
}
