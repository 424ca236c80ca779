import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { MessageInput, MessageKind } from "../messages.js";
import { toBaseMessage, toolCallsOf } from "../messages.js";

/**
 * A unit that travels whole: a user message, an AI message without tool calls,
 * or an AI tool-call message with the results of ALL its calls.
 */
export interface Exchange {
  readonly kind: "human" | "ai" | "tools";
  /** Index in the input of the exchange's first message. */
  readonly start: number;
  readonly messages: BaseMessage[];
}

/** What grouping left out of a segment. */
export interface SegmentCounts {
  /** Tool results whose call is not in the AI message right before them. */
  orphanResults: number;
  /** Tool calls with no result; their exchange is left out whole. */
  unfinishedCalls: number;
  /** Exchanges left out because a call had no result. */
  unfinishedExchanges: number;
  /** System messages after the start of the conversation, left out. */
  misplacedSystem: number;
}

/** A segment of the conversation grouped into exchanges, with what was left out. */
export interface GroupedSegment extends SegmentCounts {
  exchanges: Exchange[];
}

/**
 * Group `messages[from, to)` into exchanges. An AI message with tool calls takes
 * the run of tool messages right after it; results for other call ids are orphans,
 * a second result for the same call is an orphan too, and an AI message missing any
 * result is left out with its results (a cancelled run).
 */
export function groupExchanges(
  messages: readonly MessageInput[],
  kinds: readonly MessageKind[],
  from: number,
  to: number,
): GroupedSegment {
  const out: GroupedSegment = { exchanges: [], orphanResults: 0, unfinishedCalls: 0, unfinishedExchanges: 0, misplacedSystem: 0 };
  let i = from;
  while (i < to) {
    const kind = kinds[i];
    if (kind === "system") {
      out.misplacedSystem++;
      i++;
      continue;
    }
    if (kind === "tool") {
      out.orphanResults++;
      i++;
      continue;
    }
    const message = toBaseMessage(messages[i] as MessageInput, i);
    if (kind === "human") {
      out.exchanges.push({ kind: "human", start: i, messages: [message] });
      i++;
      continue;
    }
    const calls = toolCallsOf(message);
    if (calls.length === 0) {
      out.exchanges.push({ kind: "ai", start: i, messages: [message] });
      i++;
      continue;
    }
    const wanted = new Set<string>();
    for (const call of calls) if (call.id) wanted.add(call.id);
    const results: BaseMessage[] = [];
    const seen = new Set<string>();
    let j = i + 1;
    while (j < to && kinds[j] === "tool") {
      const result = toBaseMessage(messages[j] as MessageInput, j) as ToolMessage;
      if (wanted.has(result.tool_call_id) && !seen.has(result.tool_call_id)) {
        seen.add(result.tool_call_id);
        results.push(result);
      } else out.orphanResults++;
      j++;
    }
    // Calls without an id can never be answered: they count as unfinished.
    const missing = calls.length - seen.size;
    if (missing > 0) {
      out.unfinishedCalls += missing;
      out.unfinishedExchanges++;
    } else {
      out.exchanges.push({ kind: "tools", start: i, messages: [message, ...results] });
    }
    i = j;
  }
  return out;
}

/**
 * A segment's counts alone (a grouped segment without its exchanges), as a turn's or a
 * provider head's report of what grouping left out.
 *
 * @example
 * ```ts
 * const segments = segmentCounts(groupExchanges(walk.source, walk.kinds, from, to));
 * ```
 */
export function segmentCounts({ orphanResults, unfinishedCalls, unfinishedExchanges, misplacedSystem }: SegmentCounts): SegmentCounts {
  return { orphanResults, unfinishedCalls, unfinishedExchanges, misplacedSystem };
}

/** Adds one segment's counts into another. */
export function addCounts(into: SegmentCounts, from: SegmentCounts): void {
  into.orphanResults += from.orphanResults;
  into.unfinishedCalls += from.unfinishedCalls;
  into.unfinishedExchanges += from.unfinishedExchanges;
  into.misplacedSystem += from.misplacedSystem;
}
