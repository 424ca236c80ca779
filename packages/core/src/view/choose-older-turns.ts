import type { BaseMessage } from "@langchain/core/messages";
import type { HistoryAllocation } from "./allocate-history.js";
import type { PreparedTurn } from "./prepare-turn.js";
import type { OlderForms } from "./older-turns.js";

/** What {@link chooseOlderTurns} needs. */
export interface ChooseOlderInput {
  /** The history's room as {@link allocateHistory} split it. */
  allocation: HistoryAllocation;
  /** The older turns in the forms the view chose: their excerpt form is shown in the room kept for it. */
  older: Pick<OlderForms, "excerpts">;
  /** The summary head (label and summary), empty when no summary was given. */
  summaryHead: BaseMessage[];
}

/** The older part of the view. */
export interface ChosenOlderTurns {
  /** How many of the newest older turns are kept. */
  kept: number;
  /** Messages before the kept turns: the summary, or excerpts of dropped turns, with their label. */
  head: BaseMessage[];
  headTokens: number;
  summaryIncluded: boolean;
  /** Excerpt lines of dropped turns in `head`. */
  excerptCount: number;
  /**
   * The oldest kept turns as shown with their tool results cleared, newest first (whole,
   * they would not have fit the room the newer turns leave; see `clearedBand`): the last
   * `cleared.length` of the `kept` turns. Use {@link shownOlderTurn}.
   */
  cleared: readonly PreparedTurn[];
}

/**
 * Older turn `j` (0 = the newest) as the view shows it: its form with results cleared
 * when it is one of {@link ChosenOlderTurns.cleared}, else as prepared.
 *
 * @example
 * ```ts
 * for (let j = chosen.kept - 1; j >= 0; j--) messages.push(...shownOlderTurn(chosen, older.reached, j).messages);
 * ```
 */
export function shownOlderTurn(chosen: Pick<ChosenOlderTurns, "kept" | "cleared">, olderNewestFirst: readonly PreparedTurn[], j: number): PreparedTurn {
  const firstCleared = chosen.kept - chosen.cleared.length;
  return j >= firstCleared ? (chosen.cleared[j - firstCleared] as PreparedTurn) : (olderNewestFirst[j] as PreparedTurn);
}

/**
 * Choose older turns: the view's history from its allocation (see
 * {@link allocateHistory}). The summary when it was allotted room; the newest older
 * turns it keeps (the oldest maybe with their results cleared); when older turns go and
 * no summary is shown, excerpts of them in the room kept for them.
 *
 * @example
 * ```ts
 * const chosen = chooseOlderTurns({ allocation: allocateHistory({ older, room, summaryTokens, options, estimator }), older, summaryHead });
 * ```
 */
export function chooseOlderTurns(input: ChooseOlderInput): ChosenOlderTurns {
  const { allocation } = input;
  const { summaryIncluded, cleared } = allocation;
  const kept = allocation.kept + (cleared?.cleared.length ?? 0);
  let head = summaryIncluded ? input.summaryHead : [];
  let headTokens = allocation.headTokens;
  let excerptCount = 0;
  if (allocation.reserve > 0) {
    // The turns left out in their excerpt form, the object the allocation weighed.
    const excerpts = input.older.excerpts(kept, allocation.reserve);
    if (excerpts.count > 0) [head, headTokens, excerptCount] = [[...excerpts.head], excerpts.tokens, excerpts.count];
  }
  return { kept, head, headTokens, summaryIncluded, excerptCount, cleared: cleared?.cleared ?? [] };
}

/** The older turns a view keeps, in their forms: their messages oldest first, and what they hold. */
export interface KeptOlderTurns {
  messages: BaseMessage[];
  tokens: number;
  /** Input messages they represent. */
  inputMessages: number;
  exchanges: number;
}

/**
 * The older turns `chosen` keeps, oldest first, each in the form it shows it (see
 * {@link shownOlderTurn}), with their estimate and counts.
 *
 * @example
 * ```ts
 * const kept = keptOlderTurns(chosen, older.reached);
 * kept.tokens; // what the kept older turns take of the history's room
 * ```
 */
export function keptOlderTurns(chosen: Pick<ChosenOlderTurns, "kept" | "cleared">, olderNewestFirst: readonly PreparedTurn[]): KeptOlderTurns {
  const messages: BaseMessage[] = [];
  let tokens = 0;
  let inputMessages = 0;
  let exchanges = 0;
  for (let j = chosen.kept - 1; j >= 0; j--) {
    const turn = shownOlderTurn(chosen, olderNewestFirst, j);
    for (const message of turn.messages) messages.push(message);
    tokens += turn.tokens;
    inputMessages += turn.inputMessages;
    exchanges += turn.exchanges;
  }
  return { messages, tokens, inputMessages, exchanges };
}
