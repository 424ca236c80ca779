import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { createEstimator, type Estimator } from "../estimate.js";
import type { MessageInput } from "../messages.js";
import { conversationStart } from "../view/provider-head.js";
import { summaryMessage } from "../summarize/summary-message.js";
import { checkedView } from "../view/build-context.js";
import { historyBeside, historyWithin, quotedIn } from "../view/history-evidence.js";
import type { BuildContextInput, ContextReport, ContextView, TurnSummary } from "../view/types.js";
import { restoreSetAside, type SetAside } from "../evidence/set-aside.js";
import { pinnedReadIndices, readMessagesHash, sha256Hex } from "./hash.js";
import type { StoredView, ViewInputHashes, ViewRecord } from "./types.js";

/** Options of {@link rebuildView}. */
export interface RebuildViewOptions {
  /**
   * The estimator of a call recorded with `estimator: "custom"`; without it such a
   * call is reported `unverifiable`.
   * @default undefined
   */
  estimator?: Estimator;
}

/**
 * A view rebuilt from its record and checkpoint. `match`: the rebuilt report equals
 * the recorded one, so `view.messages` are what the model got. `mismatch`: it does
 * not (options changed in code, a checkpoint edited); `problems` says where.
 * `unverifiable`: something needed is missing (a checkpoint, an input text, a
 * custom estimator); `problems` says what.
 */
export interface RebuiltView {
  status: "match" | "mismatch" | "unverifiable";
  problems: string[];
  /** The rebuilt view, when it could be built. */
  view: ContextView | null;
  /** The summary text in effect, when stored. */
  summaryText: string | null;
  /** The evidence text in effect, when stored. */
  evidenceText: string | null;
  /**
   * The summary or evidence message the view was rebuilt with, made from the
   * record's stored inputs (never read from the checkpoint), as the view showed it
   * (its evidence within `evidenceShare`): what tells the library's history message
   * apart from a conversation message that looks like one.
   */
  historyMessage: BaseMessage | null;
}

const INPUT_NAMES: Readonly<Record<keyof ViewInputHashes, string>> = {
  systemPrompt: "system prompt",
  tools: "tool schemas",
  memories: "memories",
  summary: "summary text",
  evidence: "evidence",
  evidenceBeside: "evidence",
  turnSummary: "turn summary",
};

/**
 * Every path where two plain JSON values differ, as "path: recorded x, rebuilt y".
 *
 * @example
 * ```ts
 * reportDifferences({ tokens: { total: 10 } }, { tokens: { total: 12 } }); // ["tokens.total: recorded 10, rebuilt 12"]
 * ```
 */
export function reportDifferences(recorded: unknown, rebuilt: unknown, path = ""): string[] {
  if (Object.is(recorded, rebuilt)) return [];
  const bothObjects = typeof recorded === "object" && recorded !== null && typeof rebuilt === "object" && rebuilt !== null;
  if (!bothObjects || Array.isArray(recorded) !== Array.isArray(rebuilt)) {
    return [`${path || "report"}: recorded ${JSON.stringify(recorded)}, rebuilt ${JSON.stringify(rebuilt)}`];
  }
  const a = recorded as Record<string, unknown>;
  const b = rebuilt as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.flatMap((key) => reportDifferences(a[key], b[key], path === "" ? key : `${path}.${key}`));
}

/**
 * The rebuilt report in the terms of the record it is compared with. Records made before
 * 1.0 also held `messages.in` (the messages given: read + unread) and `summary` (the
 * history slot's `given`, `included` and `reason`); those made before issue 28 had no
 * `messages.inCheckpoint`, `summarized`, `read` nor `history`, and their `messages.dropped`
 * counted every message given and not shown. Records made before evidence had a share
 * (`evidenceShare`) kept no `history.evidenceOmitted`, nor those made before a view left out
 * the evidence excerpts of messages it shows `history.evidenceShown`, nor those made before a
 * provider's compaction was counted `messages.providerCompacted`. A newer record is compared as is.
 */
function inRecordedTerms<T extends Omit<ContextReport, "elapsedMs">>(rebuilt: T, recorded: RecordedTerms): T | Record<string, unknown> {
  const { history, messages, ...rest } = rebuilt;
  const given = messages.read + messages.unread;
  const summary = { given: history.given, included: history.included, ...(history.reason === undefined ? {} : { reason: history.reason }) };
  if (recorded.messages.read === undefined) {
    return { ...rest, summary, messages: { in: given, kept: messages.kept, dropped: given - messages.kept, unread: messages.unread } };
  }
  // Records made before a provider's compaction was counted kept no `messages.providerCompacted`.
  const counted: Record<string, unknown> = { ...messages };
  if (recorded.messages.providerCompacted === undefined && messages.providerCompacted === 0) delete counted["providerCompacted"];
  const legacy = {
    messages: counted,
    ...(recorded.summary === undefined ? {} : { summary }),
    ...(recorded.messages.in === undefined ? {} : { messages: { ...counted, in: given } }),
  };
  if (recorded.history === undefined) return { ...rebuilt, ...legacy };
  const shown: Record<string, unknown> = { ...history };
  for (const field of ["evidenceOmitted", "evidenceShown"] as const) {
    if (recorded.history[field] === undefined && history[field] === 0) delete shown[field];
  }
  return { ...rebuilt, history: shown, ...legacy };
}

/** What {@link inRecordedTerms} reads of a record: the fields whose presence tells its version. */
interface RecordedTerms {
  messages: Partial<ContextReport["messages"]> & { in?: number };
  history?: Partial<ContextReport["history"]>;
  summary?: unknown;
}

/**
 * The history message as the view showed it: its evidence within `evidenceShare`, without
 * the excerpts of messages the view shows itself, as buildContext bounds it (see allocateView).
 * `lead` counts the checkpoint's leading system messages; `offset` is the first message after the summarized prefix.
 */
function historyAsShown(
  history: BaseMessage,
  view: ContextView,
  evidenceShare: number,
  { lead, offset }: { lead: number; offset: number },
  estimator: Estimator,
): BaseMessage | null {
  const bound = Math.floor(evidenceShare * view.report.limit);
  const within = historyWithin(history, bound, estimator).message;
  if (within === null) return null;
  const ids = new Set<string>();
  for (const message of view.messages) if (message.id !== undefined) ids.add(message.id);
  const cut = view.report.cut;
  // Evidence quotes by position in the checkpoint: the summarized prefix comes before the view's messages.
  const beside = historyBeside(history, within, quotedIn(ids, offset > lead && cut >= lead ? cut + offset - lead : cut), bound, estimator);
  return beside === undefined ? within : beside.message;
}

/**
 * The evidence JSON of a record that kept only the evidence beside the messages its view
 * shows (`besideJson`, see `setAsideShown`): the excerpts left out made again from the
 * checkpoint and put back, checked against the hash of the evidence given. When that cannot
 * be done (no checkpoint, or a quoted message was edited), the part kept; a failure on the
 * messages the view was built from is added to `problems`.
 */
function evidenceMadeAgain(
  record: ViewRecord,
  besideJson: string | null | undefined,
  checkpoint: readonly MessageInput[] | null,
  problems: string[],
): string | null | undefined {
  if (typeof besideJson !== "string") return besideJson;
  const { aside, ...kept } = JSON.parse(besideJson) as { content: AIMessage["content"]; id?: string; aside: SetAside[] };
  const keptJson = JSON.stringify(kept);
  if (checkpoint === null) return keptJson;
  const restored = Array.isArray(aside) ? restoreSetAside(new AIMessage(kept), aside, checkpoint.slice(0, record.messages.count)) : undefined;
  const json = restored === undefined ? null : JSON.stringify({ content: restored.content, ...(kept.id === undefined ? {} : { id: kept.id }) });
  if (json !== null && sha256Hex(json) === record.inputs.evidence) return json;
  // An edited checkpoint is reported as such (see rebuildView); on the messages recorded this is the record's own fault.
  if (recordedMessagesMatch(record, checkpoint)) problems.push("the evidence of this call could not be made again from the checkpoint");
  return keptJson;
}

/** Where the turns start, as the manager found it: after the leading system messages and any provider head. */
function leadOf(messages: readonly MessageInput[]): number {
  return conversationStart(messages).floor;
}

/**
 * True when `messages` are the checkpoint messages the recorded view was built
 * from: the same count, and the same messages where the view read them.
 *
 * @example
 * ```ts
 * if (recordedMessagesMatch(stored.record, checkpointMessages)) rebuildView(stored, checkpointMessages);
 * ```
 */
export function recordedMessagesMatch(record: ViewRecord, messages: readonly MessageInput[]): boolean {
  const { count, readFrom, hash, pins } = record.messages;
  if (messages.length !== count) return false;
  const lead = leadOf(messages);
  // Records made before `trustPinField` existed trusted the pin field.
  const trustPinField = (record.options.view as Partial<typeof record.options.view>).trustPinField ?? true;
  const pinned = pinnedReadIndices(messages, lead, readFrom, record.options.view.pinOpeningRequest, pins, trustPinField);
  return readMessagesHash(messages, lead, readFrom, count, pinned) === hash;
}

/**
 * Rebuild the view of a recorded model call from the checkpoint messages of that
 * step and the record's options and inputs, and check it against the record.
 * Never guesses: any difference or missing piece is reported, not smoothed over.
 *
 * @example
 * ```ts
 * for (const stored of await store.listViews!(key)) {
 *   const rebuilt = rebuildView(stored, messagesAtStep(stored.record));
 *   if (rebuilt.status !== "match") console.log(stored.record.sequence, rebuilt.problems);
 * }
 * ```
 */
export function rebuildView(stored: StoredView, checkpointMessages: readonly MessageInput[] | null, options: RebuildViewOptions = {}): RebuiltView {
  const { record, inputs } = stored;
  const problems: string[] = [];
  const text = (field: keyof ViewInputHashes): string | null | undefined => {
    const hash = record.inputs[field];
    if (hash === null || hash === undefined) return null;
    const value = inputs[hash];
    if (value === undefined) problems.push(`the ${INPUT_NAMES[field]} of this call is no longer stored`);
    return value;
  };
  const systemPrompt = text("systemPrompt");
  const tools = text("tools");
  const memories = text("memories");
  const summaryText = text("summary");
  const evidenceJson = record.inputs.evidenceBeside ? evidenceMadeAgain(record, text("evidenceBeside"), checkpointMessages, problems) : text("evidence");
  const turnSummaryJson = text("turnSummary");
  const evidence = typeof evidenceJson === "string" ? (JSON.parse(evidenceJson) as { content: AIMessage["content"]; id?: string }) : null;
  const evidenceText = evidence === null ? null : typeof evidence.content === "string" ? evidence.content : JSON.stringify(evidence.content);
  const unverifiable = (reason?: string): RebuiltView => {
    if (reason) problems.push(reason);
    return { status: "unverifiable", problems, view: null, summaryText: summaryText ?? null, evidenceText, historyMessage: null };
  };
  if (checkpointMessages === null) return unverifiable("the checkpoint of this call was not found");
  if (record.options.estimator === "custom" && options.estimator === undefined) return unverifiable("the call used a custom estimator; pass the same estimator to rebuild it");
  if (problems.length > 0) return unverifiable();

  const { count, offset, pins, dates } = record.messages;
  if (checkpointMessages.length !== count) problems.push(`the checkpoint holds ${checkpointMessages.length} messages, the call was built from ${count}`);
  const messages = checkpointMessages.slice(0, count);
  const lead = leadOf(messages);
  if (messages.length === count && !recordedMessagesMatch(record, messages)) {
    problems.push("the checkpoint messages differ from those the view was built from (the checkpoint was edited)");
  }

  const evidenceMessage: BaseMessage | null = evidence === null ? null : new AIMessage({ content: evidence.content, ...(evidence.id === undefined ? {} : { id: evidence.id }) });
  // The manager's `pin` predicate, as the indices it chose (the function cannot be recorded).
  const pinned = pins === undefined ? null : new Set(pins);
  // The manager's `messageDate`, as the dates it gave.
  const dated = dates === undefined ? null : new Map(dates);
  const historyMessage = typeof summaryText === "string" ? summaryMessage(summaryText, offset > lead ? offset : lead, evidenceMessage) : evidenceMessage;
  const input: BuildContextInput = {
    ...record.options.view,
    // Recorded before the option existed, when pinned copies kept their images.
    pinnedImages: (record.options.view as Partial<typeof record.options.view>).pinnedImages ?? true,
    // Records made before recall had none.
    recallBudget: (record.options.view as Partial<typeof record.options.view>).recallBudget ?? 0,
    // Records made before evidence had a share showed all of it that fit.
    evidenceShare: (record.options.view as Partial<typeof record.options.view>).evidenceShare ?? 1,
    messages: offset > lead ? [...messages.slice(0, lead), ...messages.slice(offset)] : messages,
    // The summarized prefix, read for the opening request and pins, as the manager passed it.
    ...(offset > lead ? { priorMessages: messages.slice(lead, offset) } : {}),
    ...(pinned === null ? {} : { pin: (_message: BaseMessage, index: number) => pinned.has(index) }),
    ...(dated === null ? {} : { messageDate: (_message: BaseMessage, index: number) => dated.get(index) ?? undefined }),
    budget: record.options.budget,
    historyMessage,
    ...(typeof turnSummaryJson === "string" ? { turnSummary: JSON.parse(turnSummaryJson) as TurnSummary } : {}),
    ...(options.estimator === undefined ? {} : { estimator: options.estimator }),
    ...(typeof systemPrompt === "string" ? { systemPrompt } : {}),
    ...(typeof tools === "string" ? { tools: JSON.parse(tools) as unknown[] } : {}),
    ...(typeof memories === "string" ? { memories: JSON.parse(memories) as string[] } : {}),
  };
  let view: ContextView;
  try {
    view = checkedView(input, record.options.summarizes === true);
  } catch (error) {
    problems.push(`rebuilding failed: ${(error as Error).message}`);
    return { status: "mismatch", problems, view: null, summaryText: summaryText ?? null, evidenceText, historyMessage };
  }
  // Fields the manager and the integration add around buildContext's report: not part of the view.
  const { compaction: _compaction, budgetSources: _sources, evidence: _evidence, scope: _scope, ...recorded } = record.report;
  const { elapsedMs: _elapsed, ...rebuilt } = view.report;
  problems.push(...reportDifferences(recorded, inRecordedTerms(rebuilt, recorded)));
  const estimator = options.estimator ?? createEstimator();
  const shownHistory = historyMessage === null ? null : historyAsShown(historyMessage, view, input.evidenceShare ?? 1, { lead, offset }, estimator);
  return { status: problems.length === 0 ? "match" : "mismatch", problems, view, summaryText: summaryText ?? null, evidenceText, historyMessage: shownHistory };
}
