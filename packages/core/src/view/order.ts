import type { BaseMessage } from "@langchain/core/messages";
import { toolCallsOf } from "../messages.js";
import { CONTINUATION_LABEL, labelMessage } from "./head.js";

/**
 * Make one turn safe for every provider's ordering rules (system first, a user message next, a tool-call message after a user message or tool results), in place:
 * a turn starts with a user message, and an AI message with tool calls follows a
 * user message or tool results. Where either fails (a conversation that opens with
 * an assistant message, an AI text reply followed by a tool call), a fixed user-role
 * label is inserted; the turn is estimated afterwards, so labels are charged.
 * A turn that opens right after tool results (those of the provider head, see
 * `providerHead`) may open with an assistant message: `afterResults`.
 * Returns how many labels were inserted.
 */
export function orderTurn(turn: BaseMessage[], afterResults = false): number {
  let inserted = 0;
  if (turn.length > 0 && turn[0]?.type !== "human" && !(afterResults && turn[0]?.type === "ai")) {
    turn.unshift(labelMessage(CONTINUATION_LABEL));
    inserted++;
  }
  for (let i = 1; i < turn.length; i++) {
    const message = turn[i] as BaseMessage;
    if (message.type !== "ai" || toolCallsOf(message).length === 0) continue;
    const before = (turn[i - 1] as BaseMessage).type;
    if (before !== "human" && before !== "tool") {
      turn.splice(i, 0, labelMessage(CONTINUATION_LABEL));
      inserted++;
      i++;
    }
  }
  return inserted;
}
