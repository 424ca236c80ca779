import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { microCompact } from "../compact/index.js";
import { ContextBudgetError, ContextViewError, describe } from "../errors.js";
import { createEstimator, type Estimator } from "../estimate.js";
import { copyMessage, kindOf, textOf, toBaseMessage, type MessageInput, type MessageKind } from "../messages.js";
import { addCounts, groupExchanges, type GroupedSegment } from "./exchanges.js";
import { asHistoryMessage, dropTurnExcerpts, HISTORY_LABEL, labelMessage } from "./head.js";
import { boundOlderMessage, type OlderCounts } from "./older.js";
import { budgetOf, resolveViewOptions } from "./options.js";
import { orderTurn } from "./order.js";
import { chooseCut } from "./select.js";
import type { BuildContextInput, ContextReport, ContextView } from "./types.js";

const defaultEstimator = createEstimator();

/** A turn ready for the view: its messages (copies), their estimate, its exchanges. */
interface PreparedTurn {
  messages: BaseMessage[];
  /** Length of each exchange in `messages`, labels included in the first. */
  exchanges: number;
  /** Input messages represented. */
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
 * Synchronous and deterministic; the input messages are never mutated. Throws a
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
    throw new ContextViewError("INVALID_MESSAGES", `Expected the input of buildContext to be an object with \`messages\`, got ${describe(input)}`);
  }
  const source = input.messages;
  if (!Array.isArray(source)) {
    throw new ContextViewError("INVALID_MESSAGES", `Expected \`messages\` to be an array of chat messages, got ${describe(source)}`, { field: "messages" });
  }
  const budget = budgetOf(input.budget);
  const options = resolveViewOptions(input);
  const estimator = input.estimator ?? defaultEstimator;
  const limit = budget.promptLimit;

  // One cheap pass over everything: roles (validating each element) and turn starts.
  const n = source.length;
  const kinds: MessageKind[] = new Array(n);
  let lead = 0;
  let exchangesIn = 0;
  const humans: number[] = [];
  for (let i = 0; i < n; i++) {
    const kind = kindOf(source[i], i);
    kinds[i] = kind;
    if (kind === "system" && lead === i) lead++;
    else if (kind === "human") humans.push(i);
    if (kind === "human" || kind === "ai") exchangesIn++;
  }
  const currentStart = humans.length > 0 ? (humans[humans.length - 1] as number) : lead;
  const turnStarts: number[] = [];
  if (lead < currentStart && (humans.length === 0 || (humans[0] as number) > lead)) turnStarts.push(lead);
  for (const h of humans) if (h < currentStart) turnStarts.push(h);
  const turnEnd = (turn: number): number => (turn + 1 < turnStarts.length ? (turnStarts[turn + 1] as number) : currentStart);

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

  const counts: GroupedSegment = { exchanges: [], orphanResults: 0, unfinishedCalls: 0, unfinishedExchanges: 0, misplacedSystem: 0 };
  const older: OlderCounts = { excerpted: 0, imagesReplaced: 0 };
  let labels = 0;

  const prepare = (from: number, to: number, isCurrent: boolean): PreparedTurn => {
    const grouped = groupExchanges(source, kinds, from, to);
    addCounts(counts, grouped);
    const messages: BaseMessage[] = [];
    let toolResults = 0;
    for (const exchange of grouped.exchanges) {
      for (const message of exchange.messages) {
        const kind = message.type as MessageKind;
        if (kind === "tool") toolResults++;
        messages.push(
          isCurrent
            ? copyMessage(message, kind)
            : boundOlderMessage(message, kind, { maxTextTokens: options.maxOlderMessageTokens, maxProseTokens: options.maxToolCallProseTokens }, estimator, older),
        );
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

  const current = prepare(currentStart, n, true);
  const history: PreparedTurn[] = new Array(turnStarts.length);
  const historyTokensFrom = (avail: number, compacted: boolean): number => {
    // Prepare older turns newest first until they no longer fit; returns the first fitting turn.
    let used = 0;
    for (let t = turnStarts.length - 1; t >= 0; t--) {
      let turn = history[t];
      if (turn === undefined) {
        turn = prepare(turnStarts[t] as number, turnEnd(t), false);
        history[t] = turn;
      }
      if (compacted) turn = compactTurn(t);
      if (used + turn.tokens > avail) return t + 1;
      used += turn.tokens;
    }
    return 0;
  };

  // Micro-compaction keeps the newest tool results whole and clears older ones;
  // applied turn by turn, newest first, only once the history is over budget.
  let keepLeft = options.keepRecentToolResults;
  let clearedResults = 0;
  let compactedResults = 0;
  const compactedTurns = new Set<number>();
  const compactMessages = (turn: PreparedTurn): PreparedTurn => {
    const result = microCompact(turn.messages, { keepRecent: keepLeft, maxResultTokens: options.maxToolResultTokens, estimator });
    keepLeft = Math.max(0, keepLeft - turn.toolResults);
    clearedResults += result.cleared;
    compactedResults += result.compacted;
    if (result.cleared === 0 && result.compacted === 0) return turn;
    return { ...turn, messages: result.messages, tokens: estimator.estimateMessages(result.messages) };
  };
  const compactTurn = (t: number): PreparedTurn => {
    const turn = history[t] as PreparedTurn;
    if (compactedTurns.has(t)) return turn;
    compactedTurns.add(t);
    const next = compactMessages(turn);
    history[t] = next;
    return next;
  };

  const summaryGiven = input.summaryMessage !== undefined && input.summaryMessage !== null;
  let head: BaseMessage[] = [];
  const headTokensOf = (messages: BaseMessage[]): number => estimator.estimateMessages(messages);
  let summaryIncluded = false;
  if (summaryGiven) {
    head = [labelMessage(HISTORY_LABEL), asHistoryMessage(checkSummary(input.summaryMessage))];
  }
  let headTokens = headTokensOf(head);

  let currentTurn = current;
  let first = historyTokensFrom(limit - fixed - currentTurn.tokens - headTokens, false);
  let compacted = false;
  if (first > 0 || fixed + currentTurn.tokens + headTokens > limit) {
    compacted = true;
    currentTurn = compactMessages(currentTurn);
  }
  if (fixed + currentTurn.tokens > limit) {
    throw new ContextBudgetError({
      limit,
      required: fixed + currentTurn.tokens,
      parts: { system: systemTokens, memories: memoryTokens, tools: toolTokens, current: currentTurn.tokens },
    });
  }
  if (summaryGiven) {
    if (fixed + currentTurn.tokens + headTokens <= limit) summaryIncluded = true;
    else {
      head = [];
      headTokens = 0;
    }
  }
  let avail = limit - fixed - currentTurn.tokens - headTokens;
  if (compacted) first = historyTokensFrom(avail, true);

  let cut = 0;
  let excerptCount = 0;
  if (first > 0) {
    // Older turns must go. Without a summary, reserve room for excerpts of them.
    const reserve = summaryIncluded || options.excerptBudget === 0 ? 0 : Math.min(options.excerptBudget + headTokensOf([labelMessage(HISTORY_LABEL)]), avail);
    const fitFrom = reserve > 0 ? historyTokensFrom(avail - reserve, compacted) : first;
    cut = chooseCut(history, fitFrom, avail - reserve, options.dropStep);
    if (reserve > 0) {
      const excerpts = dropTurnExcerpts(source, kinds, turnStarts, turnEnd, cut, reserve - headTokensOf([labelMessage(HISTORY_LABEL)]), estimator);
      if (excerpts.message) {
        head = [labelMessage(HISTORY_LABEL), excerpts.message];
        headTokens = headTokensOf(head);
        excerptCount = excerpts.count;
      }
    }
    avail = limit - fixed - currentTurn.tokens - headTokens;
  }

  const kept = history.slice(cut);
  const view: BaseMessage[] = [];
  if (systemMessage) view.push(systemMessage);
  view.push(...head);
  let historyTokens = headTokens;
  let keptMessages = lead > 0 && systemText !== "" && input.systemPrompt === undefined ? lead : 0;
  let keptExchanges = currentTurn.exchanges;
  for (const turn of kept) {
    view.push(...turn.messages);
    historyTokens += turn.tokens;
    keptMessages += turn.inputMessages;
    keptExchanges += turn.exchanges;
  }
  view.push(...currentTurn.messages);
  keptMessages += currentTurn.inputMessages;

  const summaryTokens = summaryIncluded ? headTokens : 0;
  const total = fixed + historyTokens + currentTurn.tokens;
  const turnsIn = turnStarts.length + (currentStart < n ? 1 : 0);
  const report: ContextReport = {
    limit,
    budget,
    tokens: {
      system: systemTokens,
      memories: memoryTokens,
      tools: toolTokens,
      summary: summaryTokens,
      history: historyTokens - summaryTokens,
      current: currentTurn.tokens,
      total,
    },
    messages: { in: n, kept: keptMessages, dropped: n - keptMessages },
    exchanges: { in: exchangesIn, kept: keptExchanges, dropped: exchangesIn - keptExchanges },
    turns: { in: turnsIn, kept: kept.length + (currentStart < n ? 1 : 0), dropped: cut },
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
    cut: cut < turnStarts.length ? (turnStarts[cut] as number) : currentStart,
    elapsedMs: performance.now() - started,
  };
  return { messages: view, report };
}

function systemPromptText(systemPrompt: BuildContextInput["systemPrompt"], source: readonly MessageInput[], lead: number): string {
  if (systemPrompt !== undefined) {
    if (typeof systemPrompt === "string") return systemPrompt;
    if (systemPrompt !== null && typeof systemPrompt === "object" && "content" in systemPrompt) return textOf(systemPrompt.content);
    throw new ContextViewError("INVALID_OPTION", `Expected \`systemPrompt\` to be a string or a SystemMessage, got ${describe(systemPrompt)}`, { field: "systemPrompt" });
  }
  const parts: string[] = [];
  for (let i = 0; i < lead; i++) parts.push(textOf(toBaseMessage(source[i] as MessageInput, i).content));
  return parts.filter((part) => part !== "").join("\n\n");
}

function selectMemoriesInOrder(memories: readonly string[], budgetTokens: number, estimator: Estimator): { block: string; kept: number } {
  if (!Array.isArray(memories)) throw new ContextViewError("INVALID_OPTION", `Expected \`memories\` to be an array of strings, got ${describe(memories)}`, { field: "memories" });
  const header = "Saved memories about the user (facts they asked you to remember):";
  let used = estimator.estimateText(header);
  const lines: string[] = [];
  memories.forEach((memory, index) => {
    if (typeof memory !== "string") throw new ContextViewError("INVALID_OPTION", `Expected \`memories[${index}]\` to be a string, got ${describe(memory)}`, { field: `memories[${index}]` });
  });
  for (const memory of memories) {
    const line = `- ${memory.replace(/\s+/g, " ").trim()}`;
    const tokens = estimator.estimateText(`\n${line}`);
    if (used + tokens > budgetTokens) break;
    used += tokens;
    lines.push(line);
  }
  return lines.length === 0 ? { block: "", kept: 0 } : { block: [header, ...lines].join("\n"), kept: lines.length };
}

function checkSummary(summary: unknown): BaseMessage {
  if (summary === null || typeof summary !== "object" || !("content" in summary) || typeof (summary as BaseMessage).type !== "string") {
    throw new ContextViewError("INVALID_OPTION", `Expected \`summaryMessage\` to be a chat message (an AIMessage), got ${describe(summary)}`, { field: "summaryMessage" });
  }
  return summary as BaseMessage;
}
