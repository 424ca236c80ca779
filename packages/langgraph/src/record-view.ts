import { prepareViewRecord, viewRecordOf } from "@contextview/core/internal";
import type { ContextRequest, ContextStore, ManagedView } from "@contextview/core";
import type { ConversationKey } from "@contextview/core/store";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ContextLogger, ContextSource } from "./observability.js";

/** What {@link recordCall} reads of a prepared request (the pipeline's `PreparedRequest`). */
interface RecordedRequest {
  key: ConversationKey;
  request: ContextRequest;
  config: RunnableConfig | undefined;
}

/**
 * Keep the record of one model call's view in the store, when the store keeps view
 * records (`recordView` is optional in the store contract). Never throws: a record
 * that cannot be kept is logged as `context_view_record_error` and the call goes on.
 */
export async function recordCall(
  store: ContextStore,
  prepared: RecordedRequest,
  view: ManagedView,
  meta: { source: ContextSource; overflowRecovery: boolean },
  logger: ContextLogger | undefined,
): Promise<void> {
  if (typeof store.recordView !== "function") return;
  try {
    // Inside a graph, LangGraph gives each task the checkpoint its step starts from, per namespace
    // ("" is the root graph): the checkpoint whose messages this view was built from.
    const configurable = prepared.config?.configurable as Record<string, unknown> | undefined;
    const map = configurable?.["checkpoint_map"] as Record<string, unknown> | undefined;
    const checkpointId = map?.[""] ?? configurable?.["checkpoint_id"];
    // A large message read anew from the checkpoint is hashed in slices first, not in one block.
    await prepareViewRecord(prepared.request, view, prepared.request.signal);
    const entry = viewRecordOf(prepared.request, view, {
      source: meta.source,
      overflowRecovery: meta.overflowRecovery,
      checkpointId: typeof checkpointId === "string" ? checkpointId : null,
    });
    await store.recordView(prepared.key, entry);
  } catch (error) {
    if (!logger) return;
    const code = (error as { code?: unknown } | null)?.code;
    try {
      logger.warn(
        {
          event: "context_view_record_error",
          source: meta.source,
          conversationId: prepared.key.conversationId,
          error: error instanceof Error ? error.name : typeof error,
          code: typeof code === "string" ? code : null,
        },
        "context_view_record_error",
      );
    } catch {
      // A logger must never fail the model call.
    }
  }
}
