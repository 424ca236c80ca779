// size: the view's public types — its input options, the report and each of its parts — one documented interface each, kept together so the report reads as one
import type { BaseMessage } from "@langchain/core/messages";
import type { Budget, ResolvedBudget } from "../budget.js";
import type { Estimator } from "../estimate.js";
import type { MessageInput, MessageKind } from "../messages.js";

/** Options of the selection and compaction stages. Every field has a default. */
export interface ViewOptions {
  /**
   * How far the head of the view may move at once when older turns must go, so it
   * stays the same for several calls (provider prompt caches): the kept older turns
   * fill at least `1 − 3 × dropStep` of their room, and the oldest kept one is the
   * strongest anchor in that range; so do the turns kept with their tool results
   * cleared before the ones shown whole. `0` drops exactly what is needed.
   * @default 0.25
   */
  dropStep?: number;
  /**
   * Longest text, in estimated tokens, an older (not current) message keeps
   * before it becomes an excerpt with the omitted character count.
   * @default 1000
   */
  maxOlderMessageTokens?: number;
  /**
   * Longest prose, in estimated tokens, of an older AI message that also calls tools.
   * @default 200
   */
  maxToolCallProseTokens?: number;
  /**
   * Most estimated tokens for the excerpts of dropped turns shown when no summary
   * message is given and recall takes no reserve (`recallBudget` 0, or a brief after an
   * agent's tool turns): with a reserve, the recalled block takes this room too and
   * brings back the dropped messages that match the request. The older turns keep what
   * the excerpts leave of it: a short turn that fits there is shown whole, not excerpted.
   * `0` turns excerpts off.
   * The excerpt of a long current turn's oldest exchanges takes this too, or, with the
   * cache steps (`dropStep` above 0), up to 30% of the turn's room when that is more: it
   * holds from one anchor to the next.
   * @default 600
   */
  excerptBudget?: number;
  /**
   * Tool results kept as they are by micro-compaction; older ones are cleared to a
   * marker when the history is over budget.
   * @default 3 (a context manager with a summarizer: every result — older results
   * wait for their summary and are cleared only when none comes)
   */
  keepRecentToolResults?: number;
  /**
   * Largest tool result, in estimated tokens, kept whole when the history is over
   * budget; larger ones are compacted.
   * @default 2000
   */
  maxToolResultTokens?: number;
  /**
   * Whether the model takes image input. `false` (a model profile with
   * `imageInputs: false`) replaces every image block with a placeholder, in the
   * current turn and tool results too; older turns always get placeholders.
   * @default true
   */
  imageInputs?: boolean;
  /**
   * Older tool results are cleared in steps of about this many, so the view's prefix
   * stays the same between steps (provider prompt caches): past the newest
   * `keepRecentToolResults`, results stay whole up to a stable anchor result (one
   * in `clearStep` on average), and at most `4 × (clearStep − 1)` extra results stay. `1` clears every result past
   * `keepRecentToolResults` at once, as each new one arrives.
   * @default 32
   */
  clearStep?: number;
  /**
   * Mark Anthropic prompt-cache breakpoints: `cache_control: { type: "ephemeral" }`
   * on the last content block of the head (the system prompt, or the summary,
   * evidence or excerpts after it) and of the last kept older turn — the two parts
   * of the view that change only in steps — and of the band of older turns kept with
   * their results cleared, when there is one (a head under 1,024 tokens then gives its
   * breakpoint to a turn inside the band). At most Anthropic's 4 breakpoints:
   * breakpoints already on the messages count, and one is left for a request-level
   * breakpoint (langchain's `anthropicPromptCachingMiddleware`). Other providers
   * ignore the marker, but it turns string content into a text block.
   * @default false
   */
  cacheBreakpoints?: boolean;
  /**
   * Keep the request that started the conversation (its first user message) in
   * every view, labelled, right after the system message. `false` turns it off.
   * @default true
   */
  pinOpeningRequest?: boolean;
  /**
   * Longest opening request, in estimated tokens, kept verbatim; a longer one
   * becomes a marked excerpt of its beginning and end.
   * @default 1500
   */
  maxOpeningRequestTokens?: number;
  /**
   * Estimated tokens shared by the messages the application pinned (see
   * {@link pinMessage} and `pin`); beyond it the oldest pins are excerpted first,
   * then left out, and both are counted in `report.pinned`. `0` turns user pins off.
   * @default 3000
   */
  pinnedBudget?: number;
  /**
   * Let the pin field (`additional_kwargs.contextview_pinned`, which {@link pinMessage}
   * writes) pin a message. The field travels with the message, so whoever writes
   * messages into the conversation can set it — a client whose input reaches the
   * graph as well as your own code. `false` ignores it: only the `pin` predicate pins.
   * A context manager and the LangGraph integrations take it on the factory only,
   * never per request.
   * @default true
   * @example
   * ```ts
   * const ownPins = new Set(["requirements-1"]); // ids your code chose, kept server-side
   * buildContext({ messages, trustPinField: false, pin: (message) => ownPins.has(message.id ?? "") });
   * ```
   */
  trustPinField?: boolean;
  /**
   * Keep the images of pinned copies (the opening request, the application's pins),
   * which are sent on every call; by default each becomes a placeholder, as in
   * older turns, counted in `report.imagesReplaced`.
   * @default false
   * @example
   * ```ts
   * buildContext({ messages, pinnedImages: true }); // the opening request's photo stays in every view
   * ```
   */
  pinnedImages?: boolean;
  /**
   * Tokens older turns leave, when some must go, to the messages outside the view
   * that best match the current request (BM25 over the whole conversation), brought
   * back in one labelled block right before the current turn; they also take the
   * room the older turns' stable anchors leave unused. At most half the room for
   * history, and the room of the excerpts of dropped turns, which it replaces
   * (`excerptBudget`). On a turn's first call, the room the matches leave (all of it
   * when none match) goes to the newest messages left out (`report.recall.recent`). A
   * request without a search term ("ok", "please do") takes no reserve: nothing could match.
   * Only when none of the 3 turns before the request called a tool: after
   * an agent's tool loop the block would cost the prompt cache the turn that follows
   * it, so there older turns leave nothing and the first call of the turn gets a
   * brief of at most 250 tokens (a quarter of a smaller budget), from the room left: lines for the words of the
   * request that no message in the view holds (see docs/concepts.md, "Relevance").
   * `0` turns recall off.
   * @default 4000
   * @example
   * ```ts
   * buildContext({ messages, recallBudget: 1000 }); // more room for the newest turns
   * ```
   */
  recallBudget?: number;
  /**
   * The largest share of the prompt limit that durable evidence in the history slot
   * (`EvidenceState.asMessage()`, alone or riding along with a context manager's
   * summary) takes in the view. Past it, the oldest excerpts of its largest bucket leave
   * first — the order the evidence state keeps its own bound by — each counted in the
   * envelope's `omitted` and in `report.history.evidenceOmitted`; the room goes to the
   * older turns and the recalled block, which bring back what the request asks for
   * rather than what keywords filed. Depends on the evidence and the limit only, so the
   * head of the view stays byte-identical while the evidence does. A summary's own text
   * is never cut by it. `1`: as much of the evidence as fits the history's room.
   * @default 0.1
   * @example
   * ```ts
   * buildContext({ messages, historyMessage: state.asMessage(), evidenceShare: 0.25 }); // up to a quarter of the limit for evidence
   * ```
   */
  evidenceShare?: number;
  /**
   * Tools whose results are never cleared to a marker, as LangChain's `ClearToolUsesEdit`
   * takes them: past `keepRecentToolResults` and the clear steps, an older turn keeps
   * them (compacted when over `maxToolResultTokens`, whole when they cannot be compacted),
   * so a turn that holds one fits only as it is or not at all. A result's tool is its
   * `name`, or the name of the call it answers. The oldest exchanges of a long current
   * turn still clear theirs when nothing else lets the newest exchange fit. Set once, on
   * the factory or `buildContext`: a request cannot change it.
   * @default [] (every tool's results may be cleared)
   * @example
   * ```ts
   * buildContext({ messages, excludeTools: ["read_file"] }); // a file read stays readable in every older turn shown
   * ```
   */
  excludeTools?: readonly string[];
}

/**
 * Decides whether a message is pinned, besides the field {@link pinMessage} sets.
 * Called for every message of the conversation after the leading system messages
 * (`index` counts from the start of the whole conversation), so keep it cheap.
 *
 * @example
 * ```ts
 * const pin: PinPredicate = (message) => message.name === "requirements";
 * ```
 */
export type PinPredicate = (message: BaseMessage, index: number) => boolean;

/**
 * The date of a message, for the lines the recall stage brings back: LangChain
 * messages carry no date of their own, so an application that keeps one (in
 * `additional_kwargs`, `response_metadata`, or beside the checkpoint) says where.
 * Called only for the few messages recalled into a view, with the message's index
 * in the whole conversation. A string is shown as it is (whitespace collapsed, at
 * most 40 characters); a `Date` or an epoch time as UTC ISO 8601 to the minute
 * (`2023-05-08T13:56Z`) — a number is epoch milliseconds, or epoch seconds when below
 * 100,000,000,000 (before March 1973 in milliseconds: what `created` fields and Unix
 * clocks give); `undefined` shows no date. Anything else is refused with
 * `INVALID_OPTION` naming `messageDate`.
 *
 * @example
 * ```ts
 * const messageDate: MessageDate = (message) => message.additional_kwargs.sent_at as string | undefined;
 * ```
 */
export type MessageDate = (message: BaseMessage, index: number) => string | Date | number | undefined;

/** Input of {@link buildContext}. Only `messages` is required. */
export interface BuildContextInput extends ViewOptions {
  /** The full checkpoint messages, oldest first. Never mutated. */
  messages: readonly MessageInput[];
  /**
   * System instructions. When absent, leading system messages of `messages` are used.
   * @default undefined
   */
  systemPrompt?: string | BaseMessage;
  /**
   * Tool schemas bound to this model call (StructuredTools or JSON schemas); charged, not rendered.
   * @default []
   */
  tools?: readonly unknown[];
  /**
   * Saved memories, most relevant first; kept whole in order within `memoryBudget`.
   * @default []
   */
  memories?: readonly string[];
  /**
   * The history slot: durable evidence or a summary of older turns (an AIMessage),
   * shown under the history label after the system prompt. Optional: left out, and
   * reported (`report.summary`), when it would keep the current request from fitting.
   * @default undefined
   * @example
   * ```ts
   * buildContext({ messages, historyMessage: evidence.asMessage() });
   * ```
   */
  historyMessage?: BaseMessage | null;
  /**
   * Budget overrides (see {@link resolveBudget}), or an already resolved budget.
   * @default DEFAULT_BUDGET (and the environment)
   */
  budget?: Partial<Budget> | ResolvedBudget;
  /**
   * How tokens are estimated.
   * @default createEstimator()
   */
  estimator?: Estimator;
  /**
   * Pins messages besides those marked with {@link pinMessage}.
   * @default undefined
   * @example
   * ```ts
   * buildContext({ messages, pin: (message) => message.name === "requirements" });
   * ```
   */
  pin?: PinPredicate;
  /**
   * The date of a message (see {@link MessageDate}), shown in the block the recall
   * stage brings back: each run of lines of one date opens with a `[date …]` line
   * (`[date 2023-05-08T13:56Z]`, then `[#12 · user · id m12] …`), so the model can place a
   * recalled message in time. No other part of the view reads it.
   * @default undefined (recalled lines carry no date)
   * @example
   * ```ts
   * buildContext({ messages, messageDate: (message) => message.additional_kwargs.sent_at as string | undefined });
   * ```
   */
  messageDate?: MessageDate;
  /**
   * Messages of the conversation that precede `messages` but are no longer in it
   * (the prefix a summary stands for), oldest first. Read only for the opening
   * request and pinned messages; the context manager passes them.
   * @default []
   */
  priorMessages?: readonly MessageInput[];
  /**
   * A summary of the first `steps` exchanges of the current turn (the context
   * manager makes it with its summarizer when a long turn's oldest exchanges are
   * excerpted, and passes it only for the turn it was made from). When the turn does
   * not fit whole, those exchanges are shown as this summary, in one marked
   * assistant-role message with any excerpt of the exchanges after them; a summary
   * larger than half the room the turn leaves is not used.
   * @default undefined (the oldest exchanges that do not fit are excerpted)
   * @example
   * ```ts
   * buildContext({ messages, budget, turnSummary: { steps: 12, text: "- found flights HAT12 and HAT44 …" } });
   * ```
   */
  turnSummary?: TurnSummary;
}

/**
 * A summary of the first `steps` exchanges (assistant messages with their results)
 * of the current turn; the context manager keeps one per conversation.
 *
 * @example
 * ```ts
 * const turnSummary: TurnSummary = { steps: 8, text: "- searched flights to Lisbon; cheapest HAT12 at 120 EUR" };
 * ```
 */
export interface TurnSummary {
  readonly steps: number;
  readonly text: string;
}

/** Estimated tokens per part of the view. */
export interface TokenReport {
  system: number;
  memories: number;
  tools: number;
  /** The pinned opening request, the application's pins, and their labels. */
  pinned: number;
  summary: number;
  /** Messages of older turns, excerpts and labels. */
  history: number;
  /** The current request and the rest of its turn. */
  current: number;
  /** The block of messages brought back for the request, with its label (see `report.recall`). */
  recall: number;
  total: number;
}

/**
 * The forms of the current turn a view chooses among (see {@link CurrentTurnReport.form}).
 *
 * @example
 * ```ts
 * const form: CurrentTurnForm = view.report.currentTurn.form; // "shared", say
 * ```
 */
export type CurrentTurnForm = "whole" | "shared" | "besideHistory" | "olderForm" | "long";

/**
 * How the current turn's exchanges (tool calls with all their results, and
 * assistant text, after the request) entered the view. Each is counted once:
 * `kept` + `compacted` + `cleared` + `excerpted` = `exchanges`.
 *
 * @example
 * ```ts
 * const { exchanges, excerpted } = view.report.currentTurn;
 * if (excerpted > 0) log.info(`${excerpted} of ${exchanges} steps of this turn shown as excerpt lines`);
 * ```
 */
export interface CurrentTurnReport {
  /**
   * The form the turn was shown in, chosen among its candidates: `"whole"` (as given, older
   * results aside), `"shared"` (its results share the room by size, the newest weighing most),
   * `"besideHistory"` (its results fitted beside the history the next call shows), `"olderForm"`
   * (its results as they stay once the turn ends, when that keeps more older turns), `"long"`
   * (older exchanges degraded in steps; `compacted`, `cleared`, `excerpted` and `summarized`
   * count them). See docs/concepts.md, "Sources, forms and the allocation".
   */
  form: CurrentTurnForm;
  exchanges: number;
  /** Shown in the form the turn fits whole (results compacted to fit only as a one-exchange turn is); the newest always. */
  kept: number;
  /** Older exchanges of a long turn shown with their results compacted (ids and totals kept). */
  compacted: number;
  /** Older exchanges shown with their results cleared to markers that keep ids and pairing (also those whose results were too large for the compacted forms and cleared there: counted here, not in `compacted`, as `toolResults.cleared` counts their results). */
  cleared: number;
  /** The oldest exchanges of a long turn replaced by lines of one marked excerpt (left out with it when not even the excerpt has room). */
  excerpted: number;
  /** The oldest exchanges of a long turn shown as the summary the manager made of them (`turnSummary`), before any excerpted ones. */
  summarized: number;
}

/**
 * The messages of one view, each counted once. Every message given is `summarized`,
 * `providerCompacted`, `read` or `unread` (`inCheckpoint` = `summarized` + `providerCompacted`
 * + `read` + `unread`); a message read
 * is kept in the view or `dropped`. Pinned messages shown from the unread part count
 * in `kept` too (those from the summarized prefix stay in `summarized`). The names are those of
 * docs/observability.md and of the `context_budget` record (`messagesRead`, …).
 *
 * @example
 * ```ts
 * const { inCheckpoint, summarized, kept, dropped, unread } = view.report.messages;
 * log.info(`${kept} of ${inCheckpoint} shown: ${summarized} summarized, ${dropped} dropped, ${unread} never read`);
 * ```
 */
export interface MessageCounts {
  /** Every message of the conversation this call was given (the checkpoint's), the summarized prefix (`priorMessages`) included. */
  inCheckpoint: number;
  /** The oldest messages, which the summary shown stands for (`priorMessages`); not read again. 0 without a summary. */
  summarized: number;
  /**
   * Messages before the latest provider compaction (an Anthropic `compaction` block or an
   * OpenAI `compaction` item): the provider's compaction stands for them, so they are
   * never read, sent or charged. 0 without one.
   */
  providerCompacted: number;
  /** Messages the walk read, from the newest back to where the budget was spent (leading system messages included). */
  read: number;
  /** Messages older than the walk reached, not summarized: never read, shown only when pinned. */
  unread: number;
  /** Messages shown in the view, pinned ones from the unread part included (not those of the summarized prefix). */
  kept: number;
  /** Messages the walk read and left out of the view (never the unread ones); they remain in the checkpoint. */
  dropped: number;
}

/**
 * The history slot of one view (after the system prompt and the pinned block).
 *
 * @example
 * ```ts
 * const { included, summary, evidence } = view.report.history;
 * if (included && !summary && evidence) log.info("older turns are represented by durable evidence only");
 * ```
 */
export interface HistoryReport {
  /** A history message was given (`historyMessage`). */
  given: boolean;
  /**
   * It is shown; false when it would keep the current request from fitting (`reason`
   * `"does-not-fit"`), or when it held durable evidence alone and not one excerpt fits
   * `evidenceShare` of the limit (`"evidence-share"`, the excerpts counted in `evidenceOmitted`),
   * or when it held durable evidence alone and the view shows every message it quotes
   * (`"shown"`, the excerpts counted in `evidenceShown`).
   */
  included: boolean;
  reason?: "does-not-fit" | "evidence-share" | "shown";
  /** The message shown holds a summary of older turns (one `summaryMessage` wrote). */
  summary: boolean;
  /** The message shown holds durable evidence (`EvidenceState.asMessage()`, alone or inside a summary message). */
  evidence: boolean;
  /**
   * Evidence excerpts left out of this view to keep the evidence within `evidenceShare`
   * of the limit (also counted in the envelope's `omitted`); 0 when it fit.
   */
  evidenceOmitted: number;
  /**
   * Evidence excerpts left out of this view because it shows the message they quote
   * (kept in its turn, or pinned): an excerpt is never shown beside its message. 0 when none.
   */
  evidenceShown: number;
}

/** What a view kept, dropped and changed. Counts and estimates only, never message content. */
export interface ContextReport {
  /** The prompt limit the view fits. */
  limit: number;
  budget: ResolvedBudget;
  tokens: TokenReport;
  /** The conversation's messages, counted once each (see {@link MessageCounts}). */
  messages: MessageCounts;
  /** Exchanges (user messages, AI replies, AI tool calls with all their results) the walk read: kept in the view or dropped from it. */
  exchanges: { read: number; kept: number; dropped: number };
  /**
   * User turns the walk read, the current one included: kept in the view or dropped
   * from it. The turns of `messages.unread` are not counted: they were never read.
   */
  turns: { read: number; kept: number; dropped: number };
  /** True when the walk read the whole conversation (nothing `unread`). */
  allHistoryRead: boolean;
  /** The current turn's exchanges: kept, compacted, cleared or excerpted to fit (see {@link CurrentTurnReport}). */
  currentTurn: CurrentTurnReport;
  /**
   * The relevance stage: whether a block was brought back and, when not, why
   * (`outcome`: `"recalled"`, `"off"`, `"nothing-left-out"`, `"no-query"`,
   * `"all-in-view"`, `"later-call"`, `"no-room"` or `"no-match"`), whether it is a brief, distinct search terms of the query,
   * messages outside the view that matched it, how many were brought back, and
   * their block's tokens.
   */
  recall: RecallReport;
  /** Tool results whose call is not in the preceding AI message. */
  orphanResults: number;
  /** Tool calls without a result (cancelled runs); their whole exchange is left out. */
  unfinishedCalls: number;
  /** System messages found after the start of the conversation, left out. */
  misplacedSystemMessages: number;
  /**
   * Messages the view shows with their text cut to a bound (an excerpt marker): older
   * messages over `maxOlderMessageTokens`, prose of tool-calling messages over
   * `maxToolCallProseTokens`, the current turn's newest assistant message bounded to fit.
   * Counted over the turns the view shows, not those it read and left out.
   */
  excerpted: number;
  /**
   * Images the view shows as placeholders: in the older turns it keeps, in pinned copies
   * shown (unless `pinnedImages`; an image an excerpted pinned copy leaves out counts too),
   * and everywhere when `imageInputs` is `false`. Not the images of turns left out.
   */
  imagesReplaced: number;
  /** Memories given and kept within `memoryBudget`. */
  memories: { in: number; kept: number };
  /** The history slot after the system prompt: durable evidence, a summary, or both (see {@link HistoryReport}). */
  history: HistoryReport;
  /** Excerpts of dropped turns included because no summary was given. */
  droppedTurnExcerpts: number;
  /**
   * Tool results shown cleared to a marker (older turns, older exchanges of a long
   * current turn), shown compacted, and results of the current turn too large even
   * for identifiers, `narrowed` to their totals with a notice to narrow the query
   * (never cleared). Each result shown is counted once, in the form it is shown in
   * (a result compacted and then cleared is cleared); the results of turns the view
   * left out are not counted.
   */
  toolResults: { cleared: number; compacted: number; narrowed: number };
  /**
   * User-role labels in the view so that it obeys provider ordering rules (the conversation
   * continues; the recalled block follows), counted over what the view shows.
   */
  labelsInserted: number;
  /**
   * Reasoning cleared from the older turns the view read: Anthropic `thinking` and
   * `redacted_thinking` blocks, OpenAI `reasoning` blocks and output items (LangChain v1
   * forms too). Neither sent nor charged; the current turn's reasoning is kept unmodified.
   */
  reasoningCleared: number;
  /** The opening request and the application's pins (ids and estimates, never content). */
  pinned: PinnedReport;
  /** Index in the input of the oldest message kept from history (the head of the view). */
  cut: number;
  elapsedMs: number;
}

/**
 * One pinned message of the report.
 *
 * @example
 * ```ts
 * for (const { id, tokens } of view.report.pinned.messages) log.info({ id, tokens });
 * ```
 */
export interface PinnedMessageReport {
  /** The message id, or null when it has none. */
  id: string | null;
  role: MessageKind;
  /** Estimated tokens of its copy in the pinned block. */
  tokens: number;
  /** True when its text became a marked excerpt to fit the bound. */
  excerpted: boolean;
}

/**
 * What pinning did for one view.
 *
 * @example
 * ```ts
 * if (view.report.pinned.openingRequest?.placement === "no-room") log.warn("the current request left no room for the goal");
 * ```
 */
export interface PinnedReport {
  /**
   * The opening request: `pinned` when shown in the pinned block, `in-view` when its
   * turn is in the view anyway, `no-room` when the current request left no room
   * for it; null when pinning it is off or the conversation has no user message.
   */
  openingRequest: (PinnedMessageReport & { placement: "pinned" | "in-view" | "no-room" }) | null;
  /** Messages the application pinned that are shown in the pinned block, oldest first (a tool call brings all its results). */
  messages: PinnedMessageReport[];
  /** Pinned messages that are in the view anyway, unchanged (their turn is kept). */
  inView: number;
  /** Pinned messages whose text became an excerpt to fit `pinnedBudget`. */
  excerpted: number;
  /** Pinned messages left out: no room within `pinnedBudget`, or none beside the current request. */
  dropped: number;
  /** Pins that cannot be shown: system messages, orphan results, calls whose results are missing. */
  unpinnable: number;
}

/** A bounded view: messages for the model and the report of how they were chosen. */
export interface ContextView {
  messages: BaseMessage[];
  report: ContextReport;
}

/**
 * Why a view has, or has no, recalled messages: `"recalled"` (it has some), `"off"`
 * (`recallBudget` 0), `"nothing-left-out"` (the view shows the whole conversation),
 * `"no-query"` (no request, or no search term in it), `"all-in-view"` (a brief, after
 * an agent's tool turns: every query term is in a message the view shows),
 * `"later-call"` (a brief goes to the first call of a turn only), `"no-room"` (the
 * block's frame does not fit), `"no-match"` (no message outside the view matched, or
 * none fit), `"recent"` (nothing matched, or the request has no search term — "ok",
 * "thanks!" — and the block holds the newest messages left out, see
 * {@link RecallReport.recent}).
 */
export type RecallOutcome = "recalled" | "recent" | "off" | "nothing-left-out" | "no-query" | "all-in-view" | "later-call" | "no-room" | "no-match";

/**
 * What the recall stage brought back, for the report (`report.recall`): counts and
 * estimates only, never content.
 *
 * @example
 * ```ts
 * const { report } = buildContext({ messages, budget: { promptBudget: 4000 } });
 * if (report.recall.outcome !== "recalled") console.log("no recall:", report.recall.outcome);
 * ```
 */
export interface RecallReport {
  /** Whether messages were brought back and, when not, why (see {@link RecallOutcome}). */
  outcome: RecallOutcome;
  /**
   * True for a brief: after an agent's tool turns, on the first call of a turn, lines
   * for the request's words the view does not hold, in the room left (no reserve).
   */
  brief: boolean;
  /** Distinct search terms of the query. */
  queryTerms: number;
  /** Messages outside the view that matched the query. */
  candidates: number;
  /** Messages brought back. */
  recalled: number;
  /**
   * Of {@link recalled}, the newest messages left out, newest first while they fit, in
   * the room the matches leave (all of it when none match): the block is never left
   * empty while older turns are dropped. 0 in a brief.
   */
  recent: number;
  /** Estimated tokens of the block and its label (0 when none). */
  tokens: number;
}
