import { ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { turnHash } from "./select.js";

/** Where the walk over tool results, newest first, stands. */
export interface ClearStepState {
  /** Tool results seen so far (newest first). */
  seen: number;
  /** True once the clear boundary was passed: every older result is cleared. */
  clearing: boolean;
}

/**
 * How many of a turn's newest tool results stay whole when results are cleared in
 * steps. Walking results newest first, the newest `keepRecent` always stay; past
 * them, results stay until the first anchor — a result whose `tool_call_id` hashes
 * to a multiple of `clearStep` — and that anchor and every older result are cleared.
 *
 * The anchor depends only on the result itself, so as new results arrive the cleared
 * set stays the same (the view's prefix with it) until a newer anchor reaches the
 * `keepRecent` line; then about `clearStep` results are cleared at once. Anchors
 * are one result in `clearStep` on average; when none comes, the boundary is forced
 * so that at most `keepRecent + 4 × (clearStep − 1)` results stay whole. `clearStep`
 * 1 clears exactly what is past `keepRecent`. Advances `state`.
 *
 * @example
 * ```ts
 * const state = { seen: 0, clearing: false };
 * const keep = keptInTurn(turn.messages, state, 3, 4); // pass to microCompact as keepRecent
 * ```
 */
export function keptInTurn(messages: readonly BaseMessage[], state: ClearStepState, keepRecent: number, clearStep: number): number {
  let kept = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!ToolMessage.isInstance(message)) continue;
    const position = state.seen++;
    if (state.clearing) continue;
    const past = position - keepRecent;
    if (past >= 0 && (clearStep <= 1 || past >= 4 * (clearStep - 1) || turnHash(message.tool_call_id) % clearStep === 0)) {
      state.clearing = true;
      continue;
    }
    kept++;
  }
  return kept;
}
