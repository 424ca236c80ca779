import { kindOf, recordedMessagesMatch, rebuildView, type RebuiltView } from "@contextview/core/internal";
import type { ContextStore, Estimator, MessageInput } from "@contextview/core";
import type { StoredView, ViewRecord } from "@contextview/core/store";
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import { InspectError } from "./errors.js";

/** The part of a LangGraph checkpointer the inspector uses: its own `list` and `getTuple`. */
export type CheckpointReader = Pick<BaseCheckpointSaver, "list" | "getTuple">;

/** Options of {@link inspectThread}. */
export interface InspectThreadOptions {
  /** The thread's checkpointer (`SqliteSaver`, `PostgresSaver`, …). */
  checkpointer: CheckpointReader;
  /** The context store that recorded the calls (it must have `listViews`). */
  store: Pick<ContextStore, "listViews">;
  /** LangGraph `thread_id`. */
  threadId: string;
  /** The user the conversation belongs to (the store's `userId`). */
  userId: string;
  /**
   * The estimator of calls recorded with a custom one; they are otherwise shown as unverifiable.
   * @default undefined
   */
  estimator?: Estimator;
  /**
   * Only the newest calls.
   * @default every recorded call
   */
  limit?: number;
}

/** Usage the provider reported in the answer to a call (`usage_metadata`). */
export interface ReportedUsage {
  inputTokens: number;
  outputTokens: number | null;
}

/** One model call of a thread: its record, the rebuilt view and what the model reported. */
export interface InspectedCall {
  record: ViewRecord;
  rebuilt: RebuiltView;
  /** The checkpoint whose messages the view was rebuilt from, or null when none was found. */
  checkpointId: string | null;
  usage: ReportedUsage | null;
  /** The summary text differs from the previous call's (a new summary was made or dropped). */
  summaryChanged: boolean;
  /** The evidence differs from the previous call's. */
  evidenceChanged: boolean;
}

/**
 * A model call the thread shows but the store kept no record of: an AI message in the
 * newest checkpoint, after the oldest kept record, that no record's messages end before.
 * A record the store failed to write (logged as `context_view_record_error`) shows up
 * here; so does an AI message the graph wrote without a model call.
 *
 * @example
 * ```ts
 * for (const gap of thread.missing) console.log(`record missing: the answer at message ${gap.messageIndex}, after call ${gap.after}`);
 * ```
 */
export interface MissingCall {
  /** Index of the model's answer in the newest checkpoint: the call saw the messages before it. */
  messageIndex: number;
  /** Sequence of the recorded call before it. */
  after: number;
}

/** Every recorded call of a thread, oldest first. */
export interface InspectedThread {
  threadId: string;
  userId: string;
  /** Checkpoints of the thread read (every one when some call named none). */
  checkpoints: number;
  /** Messages in the newest checkpoint. */
  messages: number;
  calls: InspectedCall[];
  /** Model calls with no record, in order (see {@link MissingCall}). */
  missing: MissingCall[];
}

function messagesOf(tuple: CheckpointTuple): readonly MessageInput[] | null {
  const messages = (tuple.checkpoint.channel_values as Record<string, unknown> | undefined)?.["messages"];
  return Array.isArray(messages) ? (messages as MessageInput[]) : null;
}

/** Let the event loop run (other requests of `--serve`) between the pieces of a long build. */
const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The AI messages of `messages` after the oldest kept record that no record ends before
 * (a record's `messages.count` is the index of the answer its call got).
 */
function missingCalls(stored: readonly StoredView[], messages: readonly MessageInput[] | null): MissingCall[] {
  if (messages === null || stored.length === 0) return [];
  const answered = new Set(stored.map((view) => view.record.messages.count));
  const byCount = [...stored].sort((x, y) => x.record.messages.count - y.record.messages.count || x.record.sequence - y.record.sequence);
  const missing: MissingCall[] = [];
  let previous = 0;
  for (let i = (byCount[0] as StoredView).record.messages.count; i < messages.length; i++) {
    while (previous + 1 < byCount.length && (byCount[previous + 1] as StoredView).record.messages.count < i) previous++;
    if (answered.has(i)) continue;
    let kind: string;
    try {
      kind = kindOf(messages[i], i);
    } catch {
      continue;
    }
    if (kind === "ai") missing.push({ messageIndex: i, after: (byCount[previous] as StoredView).record.sequence });
  }
  return missing;
}

function usageOf(message: unknown): ReportedUsage | null {
  const usage = (message as { usage_metadata?: { input_tokens?: unknown; output_tokens?: unknown } } | undefined)?.usage_metadata;
  if (typeof usage?.input_tokens !== "number") return null;
  return { inputTokens: usage.input_tokens, outputTokens: typeof usage.output_tokens === "number" ? usage.output_tokens : null };
}

/**
 * Read a thread's view records from the store and, with the checkpointer's own
 * `getTuple` (the checkpoint each call names) or `list` (for calls that name none),
 * the checkpoint messages of each call's step; rebuild each recorded view from them
 * and check it against the record. A call whose rebuilt report
 * differs, or whose checkpoint or inputs are gone, says so (`rebuilt.status`); a
 * model answer in the checkpoint with no record is listed in `missing`. The work
 * yields to the event loop between checkpoints and rebuilds.
 *
 * @example
 * ```ts
 * const saver = SqliteSaver.fromConnString("data/checkpoints.sqlite");
 * const thread = await inspectThread({ checkpointer: saver, store: SqliteContextStore.nextTo(saver), threadId: "t-1", userId: "u-1" });
 * writeFileSync("report.html", renderThreadPage(thread));
 * ```
 */
// size: one pass over the checkpoints and recorded views, pairing them in order
export async function inspectThread(options: InspectThreadOptions): Promise<InspectedThread> {
  const { checkpointer, store, threadId, userId } = options;
  if (typeof store?.listViews !== "function") {
    throw new InspectError("INVALID_ARGUMENT", "Expected `store` to keep view records (a ContextStore with listViews)", { field: "store" });
  }
  for (const [field, value] of [["threadId", threadId], ["userId", userId]] as const) {
    if (typeof value !== "string" || value === "") throw new InspectError("INVALID_ARGUMENT", `Expected \`${field}\` to be a non-empty string, got ${JSON.stringify(value)}`, { field });
  }
  const stored = await store.listViews({ userId, conversationId: threadId }, options.limit === undefined ? {} : { limit: options.limit });

  const results = new Map<StoredView, { rebuilt: RebuiltView; checkpointId: string | null }>();
  const rebuildOptions = options.estimator === undefined ? {} : { estimator: options.estimator };
  const configOf = (id?: string) => ({ configurable: { thread_id: threadId, checkpoint_ns: "", ...(id === undefined ? {} : { checkpoint_id: id }) } });
  // Messages of the checkpoints read, by length, to find the answer (and its usage) that followed each call.
  const seen = new Map<number, readonly MessageInput[]>();
  const remember = (messages: readonly MessageInput[]) => {
    if (!seen.has(messages.length)) seen.set(messages.length, messages);
  };

  // 1. Calls recorded inside a graph name the checkpoint their step started from: read just those.
  const byId = new Map<string, readonly MessageInput[] | null>();
  let checkpoints = 0;
  for (const view of stored) {
    const id = view.record.checkpointId;
    if (id === null) continue;
    if (!byId.has(id)) {
      const tuple = await checkpointer.getTuple(configOf(id));
      await yieldToEventLoop();
      const messages = tuple ? messagesOf(tuple) : null;
      byId.set(id, messages);
      if (messages) remember(messages);
    }
    const messages = byId.get(id);
    if (messages && recordedMessagesMatch(view.record, messages)) {
      results.set(view, { rebuilt: rebuildView(view, messages, rebuildOptions), checkpointId: id });
      await yieldToEventLoop();
    }
  }

  // 2. The others (no checkpoint id, or not that checkpoint's messages): walk the thread's checkpoints, newest first.
  const pending = stored.filter((view) => !results.has(view));
  const byCount = new Map<number, StoredView[]>();
  for (const view of pending) byCount.set(view.record.messages.count, [...(byCount.get(view.record.messages.count) ?? []), view]);
  // A call whose named checkpoint holds other messages is rebuilt from it, to show the mismatch.
  const fallback = new Map<StoredView, string>();
  for (const view of pending) if (view.record.checkpointId !== null && byId.get(view.record.checkpointId)) fallback.set(view, view.record.checkpointId);
  let newest: readonly MessageInput[] | null = null;
  if (pending.length > 0) {
    for await (const tuple of checkpointer.list(configOf())) {
      await yieldToEventLoop();
      checkpoints++;
      const messages = messagesOf(tuple);
      if (messages === null) continue;
      newest ??= messages;
      const id = tuple.config.configurable?.["checkpoint_id"] as string | undefined;
      if (byCount.has(messages.length - 1)) remember(messages);
      for (const view of byCount.get(messages.length) ?? []) {
        if (results.has(view)) continue;
        if (recordedMessagesMatch(view.record, messages)) {
          results.set(view, { rebuilt: rebuildView(view, messages, rebuildOptions), checkpointId: id ?? null });
          await yieldToEventLoop();
        } else if (id !== undefined && !fallback.has(view)) fallback.set(view, id);
      }
    }
  } else {
    const tuple = await checkpointer.getTuple(configOf());
    newest = tuple ? messagesOf(tuple) : null;
  }
  if (newest) remember(newest);
  if (newest === null && stored.length === 0) throw new InspectError("NOT_FOUND", `No checkpoints and no view records for thread ${JSON.stringify(threadId)}`, { field: "thread" });
  checkpoints = Math.max(checkpoints, byId.size + (newest ? 1 : 0));
  const lengths = [...seen.keys()].sort((x, y) => x - y);
  const usageAfter = (count: number): ReportedUsage | null => {
    const length = lengths.find((n) => n > count);
    return length === undefined ? null : usageOf((seen.get(length) as readonly MessageInput[])[count]);
  };

  const calls: InspectedCall[] = [];
  let previous: InspectedCall | undefined;
  for (const view of stored) {
    let result = results.get(view);
    if (result === undefined) {
      // No checkpoint holds the messages it was built from: rebuild from the closest one and show the mismatch.
      const id = fallback.get(view);
      const tuple = id === undefined ? undefined : await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: id } });
      const messages = tuple ? messagesOf(tuple) : null;
      result = { rebuilt: rebuildView(view, messages, rebuildOptions), checkpointId: messages ? (id ?? null) : null };
      await yieldToEventLoop();
    }
    const call: InspectedCall = {
      record: view.record,
      rebuilt: result.rebuilt,
      checkpointId: result.checkpointId,
      usage: usageAfter(view.record.messages.count),
      summaryChanged: view.record.inputs.summary !== (previous?.record.inputs.summary ?? null),
      evidenceChanged: view.record.inputs.evidence !== (previous?.record.inputs.evidence ?? null),
    };
    calls.push(call);
    previous = call;
  }
  return { threadId, userId, checkpoints, messages: newest?.length ?? 0, calls, missing: missingCalls(stored, newest) };
}
