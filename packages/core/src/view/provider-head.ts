import type { BaseMessage } from "@langchain/core/messages";
import type { Estimator } from "../estimate.js";
import { copyMessage, kindOf, toBaseMessage, toolCallsOf, type MessageInput, type MessageKind } from "../messages.js";
import { withoutReasoning } from "../provider-content.js";
import { messageMarks } from "./message-marks.js";
import { groupExchanges, segmentCounts } from "./exchanges.js";
import { NO_COUNTS, type TurnCounts } from "./turn-counts.js";

// A provider's server-side compaction (Anthropic's `compaction` block, OpenAI's
// `compaction` item) stands for everything before it: the provider ignores what comes
// before the latest one, refuses more than one, and refuses one that does not start the
// conversation. So the view starts there: the message that holds it goes first after the
// system prompt, unchanged, with the results of its calls; what came before it is never
// read, sent, charged, summarized, excerpted, pinned, recalled or quoted as evidence.

/** The latest provider compaction of a conversation and the tool messages right after it: `[start, end)`. */
export interface ProviderHeadSpan {
  /** Index of the assistant message that holds the compaction. */
  readonly start: number;
  /** End (exclusive) of the run of tool messages that follows it when it calls tools. */
  readonly end: number;
}

/** Where a conversation's turns start (see {@link conversationStart}). */
export interface ConversationStart {
  /** Leading system messages: `[0, systemLead)`. */
  readonly systemLead: number;
  /** The provider head, when a message after the system messages holds a provider compaction. */
  readonly head: ProviderHeadSpan | undefined;
  /** Where the turns start: the end of the provider head, else `systemLead`. */
  readonly floor: number;
}

/**
 * Where a conversation's turns start: after its leading system messages and, when an
 * assistant message after them holds a provider compaction (see
 * `holdsProviderCompaction`), after the latest such message and the tool messages
 * right after it. Messages are found by {@link messageMarks} (a scan remembered per
 * conversation); roles are read through `kind`.
 *
 * @example
 * ```ts
 * const { systemLead, head, floor } = conversationStart(messages);
 * // head?.start: the message the view sends first; floor: where the summary may start
 * ```
 */
export function conversationStart(source: readonly MessageInput[], kind: (index: number) => MessageKind = (i) => kindOf(source[i], i)): ConversationStart {
  let systemLead = 0;
  while (systemLead < source.length && kind(systemLead) === "system") systemLead++;
  const { compactions } = messageMarks(source);
  for (let k = compactions.length - 1; k >= 0; k--) {
    const i = compactions[k] as number;
    if (i < systemLead) break;
    if (kind(i) !== "ai") continue;
    let end = i + 1;
    if (toolCallsOf(toBaseMessage(source[i] as MessageInput, i)).length > 0) while (end < source.length && kind(end) === "tool") end++;
    return { systemLead, head: { start: i, end }, floor: end };
  }
  return { systemLead, head: undefined, floor: systemLead };
}

/**
 * The first message a provider still reads: the latest message that holds a provider
 * compaction, or 0 without one. Recall reads nothing before it, as no view sends it.
 *
 * @example
 * ```ts
 * if (index < providerReadFrom(messages)) return missing;
 * ```
 */
export function providerReadFrom(source: readonly MessageInput[]): number {
  return conversationStart(source).head?.start ?? 0;
}

/** The provider head as the view sends it (see {@link providerHead}). */
export interface ProviderHead {
  /** The messages sent right after the system prompt; empty without a provider compaction. */
  readonly messages: BaseMessage[];
  /** Their estimated tokens (0 when empty). */
  readonly tokens: number;
  /** Input messages the head shows. */
  readonly inputMessages: number;
  /** Messages between the system messages and the head: the provider's compaction stands for them. */
  readonly compacted: number;
  /** What the head left out (orphan results, unfinished calls) and the reasoning it cleared. */
  readonly counts: TurnCounts;
}

/** No provider compaction: nothing before the turns. */
export const NO_PROVIDER_HEAD: ProviderHead = Object.freeze({ messages: [], tokens: 0, inputMessages: 0, compacted: 0, counts: NO_COUNTS });

/**
 * The messages of the provider head: the compaction message with the results of its
 * calls, sent as they are while the tool loop it belongs to goes on (`inLoop`: no user
 * message after it); once a user message follows, its reasoning is cleared like any
 * older turn's (the compaction block or item stays). A compaction message whose calls
 * are not all answered is sent without its calls (their results are then orphans, as
 * grouping counts them), so no call goes out unanswered. What it left out is in `counts`.
 *
 * @example
 * ```ts
 * const head = providerHead(walk.source, walk.providerHead, walk.systemLead, inLoop, estimator);
 * ```
 */
export function providerHead(
  source: readonly MessageInput[],
  span: ProviderHeadSpan | undefined,
  systemLead: number,
  inLoop: boolean,
  estimator: Estimator,
): ProviderHead {
  if (span === undefined) return NO_PROVIDER_HEAD;
  const kinds: MessageKind[] = [];
  for (let i = span.start; i < span.end; i++) kinds[i] = kindOf(source[i], i);
  const grouped = groupExchanges(source, kinds, span.start, span.end);
  const first = grouped.exchanges[0];
  let messages: BaseMessage[];
  // Copies, as every message of a view is: the same content, calls and metadata, byte for byte.
  if (first !== undefined && first.start === span.start) {
    messages = first.messages.map((message, i) => copyMessage(message, kinds[span.start + i] as MessageKind));
  }
  else {
    // Sent without its calls: every result after it is then an orphan (grouping counted the calls as unfinished).
    const message = toBaseMessage(source[span.start] as MessageInput, span.start);
    const isCall = (block: unknown) => (block as { type?: unknown } | null)?.type === "tool_use";
    const content = Array.isArray(message.content) ? (message.content as unknown[]).filter((block) => !isCall(block)) : message.content;
    messages = [copyMessage(message, "ai", { content: content as BaseMessage["content"], tool_calls: [] })];
    grouped.orphanResults = span.end - span.start - 1;
  }
  let reasoningCleared = 0;
  if (!inLoop) {
    const cleared = withoutReasoning(messages[0] as BaseMessage, "ai");
    messages[0] = cleared.message;
    reasoningCleared = cleared.cleared;
  }
  const counts = { ...NO_COUNTS, segments: segmentCounts(grouped), reasoningCleared };
  return { messages, tokens: estimator.estimateMessages(messages), inputMessages: messages.length, compacted: span.start - systemLead, counts };
}
