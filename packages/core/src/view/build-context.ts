import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import { ContextBudgetError, ContextViewError, describeValue } from "../errors.js";
import { createEstimator, type Estimator } from "../estimate.js";
import { checkMessageArray, copyMessage, kindOf, textOf, toBaseMessage, type MessageInput, type MessageKind } from "../messages.js";
import { memoryBlockCost, renderMemoryBlock } from "../memories/memory-block.js";
import { addCounts, groupExchanges, type SegmentCounts } from "./exchanges.js";
import { asHistoryMessage, dropTurnExcerpts, HISTORY_LABEL, labelMessage } from "./head.js";
import { withoutImages } from "./images.js";
import { boundOlderMessage, type OlderCounts } from "./older.js";
import { budgetOf, resolveViewOptions } from "./options.js";
import { orderTurn } from "./order.js";
import { chooseKept } from "./select.js";
import type { BuildContextInput, ContextReport, ContextView } from "./types.js";

const defaultEstimator = createEstimator();

/** Room left per tool result for its message framing (overhead, name, tool_call_id). */
const RESULT_FRAMING_TOKENS = 24;

/** A turn ready for the view: its messages (copies), their estimate, its exchanges. */
interface PreparedTurn {
  messages: BaseMessage[];
  exchanges: number;
  /** Input messages represented (labels excluded). */
  inputMessages: number;
  toolResults: number;
  tokens: number;
  /** Stable key of the turn, for the cut anchors. */
  key: string;
}

/**
 * Build a bounded model view of a conversation: a copy that fits the prompt limit,
 * keeps the current request whole, keeps every tool call with all its results, and
 * reports every estimate, count and omission (never message content).
 *
 * It walks from the newest message back and stops once the budget is spent, so it
 * costs what the view keeps, not what the history holds: messages older than the
 * walk are neither read nor validated, and are counted in `report.messages.unread`.
 * Synchronous and deterministic; the input is never mutated. Throws a
 * {@link ContextBudgetError} (a LangChain `ContextOverflowError`) when the mandatory
 * part does not fit, and `ContextViewError` (`INVALID_MESSAGES`/`INVALID_OPTION`)
 * for bad input.
 *
 * @example
 * ```ts
 * const { messages, report } = buildContext({
 *   messages: state.messages,
 *   systemPrompt: "You are a careful finance assistant.",
 *   tools,
 *   budget: { promptBudget: 8000 },
 * });
 * const reply = await model.invoke(messages);
 * console.log(report.tokens.total, "/", report.limit);
 * ```
 */
export function buildContext(input: BuildContextInput): ContextView {
  const started = performance.now();
  if (input === null || typeof input !== "object") {
    throw new ContextViewError("INVALID_MESSAGES", `Expected the input of buildContext to be an object with \`messages\`, got ${describeValue(input)}`);
  }
  const source = input.messages;
  checkMessageArray(source);
  const budget = budgetOf(input.budget);
  const options = resolveViewOptions(input);
  const estimator = input.estimator ?? defaultEstimator;
  const limit = budget.promptLimit;
  const n = source.length;

  // Roles are read lazily, newest first: the walk never touches what it does not keep.
  const kinds: MessageKind[] = [];
  let oldestRead = n;
  const kind = (i: number): MessageKind => {
    if (i < oldestRead) oldestRead = i;
    let k = kinds[i];
    if (k === undefined) {
      k = kindOf(source[i], i);
      kinds[i] = k;
    }
    return k;
  };
  let lead = 0;
  while (lead < n && kind(lead) === "system") lead++;
  oldestRead = n;
  let currentStart = lead;
  for (let i = n - 1; i >= lead; i--) {
    if (kind(i) === "human") {
      currentStart = i;
      break;
    }
  }
  // Older turns, newest first: starts[j] begins the j-th newest; it ends where the newer one begins.
  const starts: number[] = [];
  let noMoreTurns = currentStart <= lead;
  const turnStart = (j: number): number | undefined => {
    while (!noMoreTurns && starts.length <= j) {
      const end = starts.length === 0 ? currentStart : (starts[starts.length - 1] as number);
      let start = lead;
      for (let i = end - 1; i > lead; i--) {
        if (kind(i) === "human") {
          start = i;
          break;
        }
      }
      if (start === lead) kind(lead);
      starts.push(start);
      if (start <= lead) noMoreTurns = true;
    }
    return starts[j];
  };
  const turnEnd = (j: number): number => (j === 0 ? currentStart : (starts[j - 1] as number));

  // Fixed overhead: system prompt, memories, tool schemas.
  const systemText = systemPromptText(input.systemPrompt, source, lead);
  const memories = selectMemoriesInOrder(input.memories ?? [], budget.memoryBudget, estimator);
  const systemContent = [systemText, memories.block].filter((part) => part !== "").join("\n\n");
  const systemMessage = systemContent === "" ? null : new SystemMessage(systemContent);
  const systemTokens = systemText === "" ? 0 : estimator.estimateMessage(new SystemMessage(systemText));
  const systemTotal = systemMessage ? estimator.estimateMessage(systemMessage) : 0;
  const memoryTokens = systemTotal - systemTokens;
  const toolTokens = estimator.estimateTools(input.tools ?? []);
  const fixed = systemTotal + toolTokens;

  const counts: SegmentCounts = { orphanResults: 0, unfinishedCalls: 0, unfinishedExchanges: 0, misplacedSystem: 0 };
  const older: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  let labels = 0;
  const limits = { maxTextTokens: options.maxOlderMessageTokens, maxProseTokens: options.maxToolCallProseTokens };

  const prepare = (from: number, to: number, isCurrent: boolean): PreparedTurn => {
    for (let i = from; i < to; i++) kind(i);
    const grouped = groupExchanges(source, kinds, from, to);
    addCounts(counts, grouped);
    const messages: BaseMessage[] = [];
    let toolResults = 0;
    for (const exchange of grouped.exchanges) {
      for (const message of exchange.messages) {
        const role = message.type as MessageKind;
        if (role === "tool") toolResults++;
        const bounded = isCurrent ? copyMessage(message, role) : boundOlderMessage(message, role, limits, estimator, older);
        messages.push(options.imageInputs ? bounded : withoutImages(bounded, role, older));
      }
    }
    const inputMessages = messages.length;
    labels += orderTurn(messages);
    const first = grouped.exchanges[0]?.messages[0];
    return {
      messages,
      exchanges: grouped.exchanges.length,
      inputMessages,
      toolResults,
      tokens: estimator.estimateMessages(messages),
      key: first ? (first.id ?? `${from}:${textOf(first.content).slice(0, 64)}`) : String(from),
    };
  };

  // Micro-compaction keeps the newest tool results whole and clears older ones. It
  // runs only once the history is over budget, on the current turn first and then
  // on older turns newest first, so the newest results are the ones kept.
  let keepLeft = options.keepRecentToolResults;
  let clearedResults = 0;
  let compactedResults = 0;
  const compactMessages = (turn: PreparedTurn, fallbackResultTokens = options.maxToolResultTokens): PreparedTurn => {
    const result = microCompact(turn.messages, { keepRecent: keepLeft, maxResultTokens: options.maxToolResultTokens, fallbackResultTokens, estimator });
    keepLeft = Math.max(0, keepLeft - turn.toolResults);
    clearedResults += result.cleared;
    compactedResults += result.compacted;
    if (result.cleared === 0 && result.compacted === 0) return turn;
    return { ...turn, messages: result.messages, tokens: estimator.estimateMessages(result.messages) };
  };

  const currentResultRoom = (turn: PreparedTurn, room: number): number => {
    let other = 0;
    for (const message of turn.messages) if (message.type !== "tool") other += estimator.estimateMessage(message);
    const kept = Math.max(1, Math.min(turn.toolResults, options.keepRecentToolResults));
    return Math.max(options.maxToolResultTokens, Math.floor((room - other) / kept) - RESULT_FRAMING_TOKENS);
  };

  const history: PreparedTurn[] = [];
  const compacted: boolean[] = [];
  let compacting = false;
  /** How many of the newest older turns fit `avail`, and whether that is all of them. */
  const fitting = (avail: number): { fit: number; all: boolean } => {
    let used = 0;
    for (let j = 0; ; j++) {
      const start = turnStart(j);
      if (start === undefined) return { fit: j, all: true };
      let turn = history[j] ?? (history[j] = prepare(start, turnEnd(j), false));
      if (compacting && !compacted[j]) {
        compacted[j] = true;
        turn = history[j] = compactMessages(turn);
      }
      if (used + turn.tokens > avail) return { fit: j, all: false };
      used += turn.tokens;
    }
  };

  let current = prepare(currentStart, n, true);
  const summaryGiven = input.summaryMessage !== undefined && input.summaryMessage !== null;
  let head: BaseMessage[] = summaryGiven ? [labelMessage(HISTORY_LABEL), asHistoryMessage(checkSummary(input.summaryMessage))] : [];
  let headTokens = estimator.estimateMessages(head);

  let fit = fitting(limit - fixed - current.tokens - headTokens);
  if (!fit.all || fixed + current.tokens + headTokens > limit) {
    compacting = true;
    const uncompacted = current;
    const before = { keepLeft, clearedResults, compactedResults };
    // The results the model answers from may use the room the current turn has, shared
    // evenly, rather than be cleared for exceeding the per-result cap.
    current = compactMessages(uncompacted, currentResultRoom(uncompacted, limit - fixed));
    if (fixed + current.tokens > limit) {
      ({ keepLeft, clearedResults, compactedResults } = before);
      current = compactMessages(uncompacted);
    }
  }
  if (fixed + current.tokens > limit) {
    throw new ContextBudgetError({
      limit,
      required: fixed + current.tokens,
      parts: { system: systemTokens, memories: memoryTokens, tools: toolTokens, current: current.tokens },
    });
  }
  const summaryIncluded = summaryGiven && fixed + current.tokens + headTokens <= limit;
  if (!summaryIncluded) {
    head = [];
    headTokens = 0;
  }
  const avail = limit - fixed - current.tokens - headTokens;
  if (compacting) fit = fitting(avail);

  let kept = fit.fit;
  let excerptCount = 0;
  if (!fit.all) {
    // Older turns must go. Without a summary, keep room for excerpts of them.
    const labelTokens = estimator.estimateMessage(labelMessage(HISTORY_LABEL));
    const reserve = summaryIncluded || options.excerptBudget === 0 ? 0 : Math.min(options.excerptBudget + labelTokens, avail);
    const room = avail - reserve;
    kept = chooseKept(history, reserve > 0 ? fitting(room).fit : fit.fit, room, options.dropStep);
    if (reserve > 0) {
      const dropped = (k: number) => {
        const start = turnStart(kept + k);
        return start === undefined ? undefined : { start, end: turnEnd(kept + k) };
      };
      const excerpts = dropTurnExcerpts(source, kind, dropped, reserve - labelTokens, estimator);
      if (excerpts.message) {
        head = [labelMessage(HISTORY_LABEL), excerpts.message];
        headTokens = estimator.estimateMessages(head);
        excerptCount = excerpts.count;
      }
    }
  }

  const view: BaseMessage[] = [];
  if (systemMessage) view.push(systemMessage);
  view.push(...head);
  let historyTokens = headTokens;
  let keptMessages = input.systemPrompt === undefined && systemText !== "" ? lead : 0;
  let keptExchanges = current.exchanges;
  for (let j = kept - 1; j >= 0; j--) {
    const turn = history[j] as PreparedTurn;
    view.push(...turn.messages);
    historyTokens += turn.tokens;
    keptMessages += turn.inputMessages;
    keptExchanges += turn.exchanges;
  }
  view.push(...current.messages);
  keptMessages += current.inputMessages;

  let exchangesRead = current.exchanges + counts.unfinishedExchanges;
  for (const turn of history) exchangesRead += turn.exchanges;
  const unread = Math.max(0, oldestRead - lead);
  const summaryTokens = summaryIncluded ? headTokens : 0;
  const hasCurrent = currentStart < n ? 1 : 0;
  const report: ContextReport = {
    limit,
    budget,
    tokens: {
      system: systemTokens,
      memories: memoryTokens,
      tools: toolTokens,
      summary: summaryTokens,
      history: historyTokens - summaryTokens,
      current: current.tokens,
      total: fixed + historyTokens + current.tokens,
    },
    messages: { in: n, kept: keptMessages, dropped: n - keptMessages, unread },
    exchanges: { read: exchangesRead, kept: keptExchanges, dropped: exchangesRead - keptExchanges },
    turns: { read: history.length + hasCurrent, kept: kept + hasCurrent, dropped: history.length - kept },
    allHistoryRead: unread === 0,
    orphanResults: counts.orphanResults,
    unfinishedCalls: counts.unfinishedCalls,
    misplacedSystemMessages: counts.misplacedSystem,
    excerpted: older.excerpted,
    imagesReplaced: older.imagesReplaced,
    memories: { in: (input.memories ?? []).length, kept: memories.kept },
    summary: summaryGiven ? (summaryIncluded ? { given: true, included: true } : { given: true, included: false, reason: "does-not-fit" }) : { given: false, included: false },
    droppedTurnExcerpts: excerptCount,
    toolResults: { cleared: clearedResults, compacted: compactedResults },
    labelsInserted: labels,
    cut: kept > 0 ? (starts[kept - 1] as number) : currentStart,
    elapsedMs: performance.now() - started,
  };
  return { messages: view, report };
}

function systemPromptText(systemPrompt: BuildContextInput["systemPrompt"], source: readonly MessageInput[], lead: number): string {
  if (systemPrompt !== undefined) {
    if (typeof systemPrompt === "string") return systemPrompt;
    if (systemPrompt !== null && typeof systemPrompt === "object" && "content" in systemPrompt) return textOf(systemPrompt.content);
    throw new ContextViewError("INVALID_OPTION", `Expected \`systemPrompt\` to be a string or a SystemMessage, got ${describeValue(systemPrompt)}`, { field: "systemPrompt" });
  }
  const parts: string[] = [];
  for (let i = 0; i < lead; i++) parts.push(textOf(toBaseMessage(source[i] as MessageInput, i).content));
  return parts.filter((part) => part !== "").join("\n\n");
}

function selectMemoriesInOrder(memories: readonly string[], budgetTokens: number, estimator: Estimator): { block: string; kept: number } {
  if (!Array.isArray(memories)) throw new ContextViewError("INVALID_OPTION", `Expected \`memories\` to be an array of strings, got ${describeValue(memories)}`, { field: "memories" });
  memories.forEach((memory, index) => {
    if (typeof memory !== "string") throw new ContextViewError("INVALID_OPTION", `Expected \`memories[${index}]\` to be a string, got ${describeValue(memory)}`, { field: `memories[${index}]` });
  });
  let used = memoryBlockCost.header(estimator);
  const kept: string[] = [];
  for (const memory of memories) {
    const tokens = memoryBlockCost.line(estimator, memory);
    if (used + tokens > budgetTokens) break;
    used += tokens;
    kept.push(memory);
  }
  return { block: renderMemoryBlock(kept), kept: kept.length };
}

function checkSummary(summary: unknown): BaseMessage {
  if (summary === null || typeof summary !== "object" || !("content" in summary) || typeof (summary as BaseMessage).type !== "string") {
    throw new ContextViewError("INVALID_OPTION", `Expected \`summaryMessage\` to be a chat message (an AIMessage), got ${describeValue(summary)}`, { field: "summaryMessage" });
  }
  return summary as BaseMessage;
}
