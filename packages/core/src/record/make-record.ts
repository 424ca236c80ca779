import { ContextViewError } from "../errors.js";
import { safeJson, toolSchemaOf } from "../estimators/tool-schema.js";
import type { ContextRequest, ManagedView } from "../manager/types.js";
import type { BaseMessage } from "@langchain/core/messages";
import { setAsideShown } from "../evidence/set-aside.js";
import { checkpointCut } from "../manager/shown-evidence.js";
import { textOf, type MessageInput } from "../messages.js";
import { quotedIn } from "../view/history-evidence.js";
import { leadRead, pinnedReadIndices, readMessagesHash, sha256Hex, warmMessageDigests } from "./hash.js";
import { VIEW_RECORD_VERSION, type ViewInputHashes, type ViewRecordEntry } from "./types.js";

/** Where a view record comes from, beside the request and its view. */
export interface ViewRecordContext {
  /** Which integration built the view. */
  source: string;
  /**
   * LangGraph's checkpoint id of the call, when known.
   * @default null
   */
  checkpointId?: string | null;
  /**
   * True for the smaller view built after a provider overflow.
   * @default false
   */
  overflowRecovery?: boolean;
  /**
   * Clock for `recordedAt`.
   * @default Date.now()
   */
  now?: number;
}

/**
 * The record of one model call's view: its report and the options and input
 * hashes it was built from (never message content), plus the input texts that
 * are not in the checkpoint (system prompt, tool schemas, memories, summary,
 * evidence) keyed by their hashes, for `ContextStore.recordView`.
 *
 * @example
 * ```ts
 * const view = await manager.build(request);
 * await store.recordView?.(request.key, viewRecordOf(request, view, { source: "node" }));
 * ```
 */
export function viewRecordOf(request: ContextRequest, view: ManagedView, context: ViewRecordContext): ViewRecordEntry {
  const built = view.built;
  if (built === undefined) {
    throw new ContextViewError("INVALID_OPTION", "Expected `view` to come from a context manager (it has no `built` inputs)", { field: "view" });
  }
  const inputs: Record<string, string> = {};
  const keep = (text: string | null): string | null => {
    if (text === null) return null;
    const hash = sha256Hex(text);
    inputs[hash] = text;
    return hash;
  };
  const system = request.systemPrompt;
  const tools = request.tools ?? [];
  const memories = request.memories ?? [];
  const evidence = built.evidence !== undefined ? built.evidence : (request.evidence ?? null);
  const hashes: ViewInputHashes = {
    systemPrompt: keep(system === undefined ? null : typeof system === "string" ? system : textOf(system.content)),
    tools: keep(tools.length === 0 ? null : safeJson(tools.map(toolSchemaOf))),
    memories: keep(memories.length === 0 ? null : JSON.stringify(memories)),
    summary: keep(built.summaryText),
    ...evidenceHashes(evidence, view, request.messages, keep),
    ...(built.turnSummary === undefined ? {} : { turnSummary: keep(JSON.stringify({ steps: built.turnSummary.steps, text: built.turnSummary.text })) }),
  };
  const messages = request.messages;
  const { sliced, readFrom, pinned } = readSpan(request, view);
  const { elapsedMs: _elapsed, ...report } = view.report;
  return {
    record: {
      version: VIEW_RECORD_VERSION,
      recordedAt: context.now ?? Date.now(),
      source: context.source,
      checkpointId: context.checkpointId ?? null,
      overflowRecovery: context.overflowRecovery ?? false,
      messages: {
        count: messages.length,
        offset: sliced ? built.offset : 0,
        readFrom,
        hash: readMessagesHash(messages, built.lead, readFrom, messages.length, pinned),
        ...(built.predicatePins === undefined ? {} : { pins: [...built.predicatePins] }),
        ...(built.messageDates === undefined ? {} : { dates: built.messageDates.map(([index, date]): [number, string | number | null] => [index, date]) }),
      },
      options: {
        budget: view.report.budget,
        view: { ...built.options },
        estimator: built.customEstimator ? "custom" : "default",
        ...(built.summarizes === true ? { summarizes: true as const } : {}),
      },
      inputs: hashes,
      report,
    },
    inputs,
  };
}

/**
 * The evidence a record keeps: its hash, and its text unless the excerpts of messages the
 * view shows can be made again from the checkpoint (see {@link setAsideShown}): then the
 * text of the rest is kept instead (`evidenceBeside`, with where those excerpts go back),
 * so a record never holds a second copy of text the checkpoint holds.
 */
function evidenceHashes(evidence: BaseMessage | null, view: ManagedView, messages: readonly MessageInput[], keep: (text: string | null) => string | null) {
  if (evidence === null) return { evidence: null };
  const json = (message: BaseMessage, more: object = {}) =>
    JSON.stringify({ content: message.content, ...(message.id === undefined ? {} : { id: message.id }), ...more });
  const built = view.built as NonNullable<ManagedView["built"]>;
  const ids = new Set<string>();
  for (const message of view.messages) if (message.id !== undefined) ids.add(message.id);
  const split = setAsideShown(evidence, quotedIn(ids, checkpointCut(view.report.cut, built.offset, built.lead)), messages);
  if (split === undefined) return { evidence: keep(json(evidence)) };
  return { evidence: sha256Hex(json(evidence)), evidenceBeside: keep(json(split.kept, { aside: split.aside })) };
}

/** What a record of `view` hashes of the request's messages: `[0, lead)`, the pinned ones it read, and `[readFrom, n)`. */
function readSpan(request: ContextRequest, view: ManagedView): { sliced: boolean; readFrom: number; pinned: number[] } {
  const built = view.built as NonNullable<ManagedView["built"]>;
  const sliced = built.offset > built.lead;
  const readFrom = (sliced ? built.offset : built.lead) + view.report.messages.unread;
  return { sliced, readFrom, pinned: pinnedReadIndices(request.messages, built.lead, readFrom, built.options.pinOpeningRequest, built.predicatePins, built.options.trustPinField) };
}

/**
 * Hash ahead, in slices that yield to the event loop, the large messages a record of
 * `view` will hash, so that {@link viewRecordOf} right after it does not block on
 * them. Nothing to do for a view without `built` inputs.
 *
 * @example
 * ```ts
 * await prepareViewRecord(request, view);
 * await store.recordView?.(request.key, viewRecordOf(request, view, { source: "node" }));
 * ```
 */
export async function prepareViewRecord(request: ContextRequest, view: ManagedView, signal?: AbortSignal): Promise<void> {
  const built = view.built;
  if (built === undefined) return;
  const { readFrom, pinned } = readSpan(request, view);
  const n = request.messages.length;
  const indices = function* () {
    yield* leadRead(request.messages, Math.min(built.lead, n));
    yield* pinned;
    for (let i = Math.max(readFrom, built.lead); i < n; i++) yield i;
  };
  await warmMessageDigests(request.messages, indices(), signal);
}
