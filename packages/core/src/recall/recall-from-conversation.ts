import { invalidOption } from "../errors.js";
import { checkEstimator, createEstimator, type Estimator } from "../estimate.js";
import { checkMessageArray, type MessageInput } from "../messages.js";
import { checkMessageDate } from "../view/recall-date.js";
import type { MessageDate } from "../view/types.js";
import { readMessage, type ReadRequest } from "./read-message.js";
import { readRows, type RowsRequest } from "./read-rows.js";
import { fits, recallError, selectMessage, type RecallAnswer, type RecallContext, type RecalledMessage } from "./recalled-text.js";
import { searchMessages, type SearchRequest } from "./search-messages.js";

/**
 * One recall request, as the tool's arguments carry it: `search` ranks messages by
 * their words, `read` returns one message's text (a character range of it), `rows`
 * returns rows of a tool result by the identifiers or row numbers its compaction note printed.
 *
 * @example
 * ```ts
 * const request: RecallRequest = { action: "rows", message: "call_7", ids: ["t13", "t14"] };
 * ```
 */
export type RecallRequest =
  | ({ action: "search" } & SearchRequest)
  | ({ action: "read" } & ReadRequest)
  | ({ action: "rows" } & RowsRequest);

/**
 * Options of {@link recallFromConversation}.
 *
 * @example
 * ```ts
 * recallFromConversation(messages, request, { toolName: "history", maxToolResultTokens: 1500 });
 * ```
 */
export interface RecallOptions {
  /**
   * The tool's name, written in the "next" calls an answer prints.
   * @default "recall"
   */
  toolName?: string;
  /**
   * Largest answer, in estimated tokens of its text (at least 200): a longer read
   * stops short and says the exact call that reads on.
   * @default 2000
   */
  maxToolResultTokens?: number;
  /**
   * How tokens are estimated.
   * @default createEstimator()
   */
  estimator?: Estimator;
  /**
   * The date of a message (see `MessageDate`), given in the label of every message an
   * answer shows, as in the view's recalled block.
   * @default undefined (labels carry no date)
   * @example
   * ```ts
   * createRecallTool({ messageDate: (message) => message.additional_kwargs.sent_at as string | undefined });
   * ```
   */
  messageDate?: MessageDate;
  /**
   * Let `rows` read a tool result's whole artifact beside its `model_context`. Off,
   * the recall tool reads only what compaction could have shown the model: the
   * artifact's `model_context` (the tool's projection) when it has one, else the
   * artifact, else the JSON content. Turn it on only when everything in your tools'
   * artifacts may reach the model.
   * @default false
   * @example
   * ```ts
   * createRecallTool({ wholeArtifacts: true });
   * ```
   */
  wholeArtifacts?: boolean;
}

/**
 * The longest text a request may carry in one field (`query`, `message`, `collection`, an id),
 * and the most entries of `ids` or `rows`: past them the answer would echo more than it reads.
 */
export const RECALL_REQUEST_LIMITS = { textChars: 2000, entries: 1000 } as const;

/** The answer's bound may be no smaller: its label and "next" line alone take about 100 tokens. */
export const MIN_RECALL_TOKENS = 200;
export const DEFAULT_RECALL_TOOL_NAME = "recall";

/** Options checked once: what each request then uses. */
export function resolveRecallOptions(options: RecallOptions = {}): RecallContext {
  const toolName = options.toolName ?? DEFAULT_RECALL_TOOL_NAME;
  if (typeof toolName !== "string" || !/^[A-Za-z0-9_-]{1,64}$/.test(toolName)) throw invalidOption("toolName", "a tool name of 1 to 64 letters, digits, `_` or `-`", toolName);
  const maxTokens = options.maxToolResultTokens ?? 2000;
  if (!Number.isSafeInteger(maxTokens) || maxTokens < MIN_RECALL_TOKENS) throw invalidOption("maxToolResultTokens", `an integer of at least ${MIN_RECALL_TOKENS}`, maxTokens);
  const messageDate = checkMessageDate(options.messageDate, "messageDate");
  const wholeArtifacts = options.wholeArtifacts ?? false;
  if (typeof wholeArtifacts !== "boolean") throw invalidOption("wholeArtifacts", "a boolean", wholeArtifacts);
  const estimator = checkEstimator(options.estimator, "estimator") ?? createEstimator();
  return { toolName, maxTokens, estimator, wholeArtifacts, ...(messageDate === undefined ? {} : { messageDate }) };
}

/**
 * Read back what a view left out, from the conversation's own messages (the
 * checkpoint's): never a tool call, a model call or the network. The answer is
 * plain text, labelled as untrusted historical content with each message's role,
 * within `maxToolResultTokens`; a reference that does not exist gives an answer
 * with `error: true` that says what exists.
 *
 * @example
 * ```ts
 * const { text } = recallFromConversation(state.messages, { action: "rows", message: "call_7", ids: ["t13", "t14", "t15"] });
 * ```
 */
export function recallFromConversation(messages: readonly MessageInput[], request: RecallRequest, options: RecallOptions | RecallContext = {}): RecallAnswer {
  checkMessageArray(messages);
  const context = isContext(options) ? options : resolveRecallOptions(options);
  const tooLong = overLimits(request);
  if (tooLong !== undefined) return recallError(tooLong);
  if (request?.action === "search") return withinBound(context, searchMessages(messages, request, context));
  if (request?.action !== "read" && request?.action !== "rows") return recallError('`action` must be "search", "read" or "rows".');
  const selected = selectMessage(messages, request.message);
  return "error" in selected ? selected : recallFromMessage(selected, request, context);
}

/**
 * A `read` or `rows` request answered on the message it names, already selected from
 * the conversation (`selectMessage`): what the recall tool runs in its worker thread
 * for a large tool result, with the message alone.
 *
 * @example
 * ```ts
 * recallFromMessage({ index: 2, kind: "tool", message }, { action: "rows", message: "call_7", rows: ["13-20"] }, resolveRecallOptions());
 * ```
 */
export function recallFromMessage(
  selected: RecalledMessage,
  request: Extract<RecallRequest, { action: "read" | "rows" }>,
  context: RecallContext,
): RecallAnswer {
  const tooLong = overLimits(request);
  if (tooLong !== undefined) return recallError(tooLong);
  return withinBound(context, request.action === "read" ? readMessage(selected, request, context) : readRows(selected, request, context));
}

/** Every answer within its bound: one that is not (a case this code did not foresee) says so instead of being sent. */
function withinBound(context: RecallContext, answer: RecallAnswer): RecallAnswer {
  return fits(context, [answer.text]) ? answer : recallError(`the answer does not fit \`maxToolResultTokens\` (${context.maxTokens}); ask for less.`);
}

/** What of a request is past {@link RECALL_REQUEST_LIMITS}, named without echoing it; undefined when nothing is. */
function overLimits(request: RecallRequest): string | undefined {
  const { textChars, entries } = RECALL_REQUEST_LIMITS;
  const fields = request as { query?: unknown; message?: unknown; collection?: unknown; ids?: unknown; rows?: unknown };
  for (const field of ["query", "message", "collection"] as const) {
    const value = fields[field];
    if (typeof value === "string" && value.length > textChars) return `\`${field}\` is longer than ${textChars} characters (${value.length}).`;
  }
  for (const field of ["ids", "rows"] as const) {
    const value = fields[field];
    if (!Array.isArray(value)) continue;
    if (value.length > entries) return `\`${field}\` has more than ${entries} entries (${value.length}); ask for fewer at a time.`;
    if (value.some((entry) => typeof entry === "string" && entry.length > textChars)) return `an entry of \`${field}\` is longer than ${textChars} characters.`;
  }
  return undefined;
}

function isContext(options: RecallOptions | RecallContext): options is RecallContext {
  return typeof (options as RecallContext).maxTokens === "number" && typeof (options as RecallContext).toolName === "string" && typeof (options as RecallContext).estimator === "object";
}
