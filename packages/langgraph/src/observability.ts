import type { ManagedReport } from "@contextview/core";
import { dispatchCustomEvent } from "@langchain/core/callbacks/dispatch/web";
import type { RunnableConfig } from "@langchain/core/runnables";
import { budgetRecords, type ContextBudgetRecord, type ContextSource, type PromptBudgetRecord } from "./budget-records.js";

export type { ContextBudgetRecord, ContextSource, PromptBudgetRecord } from "./budget-records.js";

/** Name of the LangChain custom event that carries each view's report. */
export const CONTEXT_REPORT_EVENT = "contextview_report";

/**
 * Where the records go: anything with `info` and `warn` taking an object first,
 * such as `console` or a pino logger. Records never hold message content.
 */
export interface ContextLogger {
  info(record: ContextLogRecord, message?: string): void;
  warn(record: ContextLogRecord, message?: string): void;
}

/** A failed evidence update; `error` is the error's name and code, never content. */
export interface EvidenceErrorRecord {
  event: "context_evidence_error";
  source: ContextSource;
  conversationId: string;
  /** `inline` (this request went on without evidence) or `background`. */
  mode: "inline" | "background";
  error: string;
  code: string | null;
}

/**
 * A failed read of saved memories from the LangGraph store: this call went on without them.
 *
 * @example
 * ```ts
 * const logger = { info: () => {}, warn: (record: ContextLogRecord) => { if (record.event === "context_memories_error") console.warn("memories unavailable", record.code); } };
 * ```
 */
export interface MemoriesErrorRecord {
  event: "context_memories_error";
  source: ContextSource;
  conversationId: string;
  error: string;
  code: string | null;
}

/** A view record the store could not keep; the model call went on. `error` is the error's name and code, never content. */
export interface ViewRecordErrorRecord {
  event: "context_view_record_error";
  source: ContextSource;
  conversationId: string;
  error: string;
  code: string | null;
}

/** Any record passed to a {@link ContextLogger}. */
export type ContextLogRecord = ContextBudgetRecord | PromptBudgetRecord | EvidenceErrorRecord | MemoriesErrorRecord | ViewRecordErrorRecord;

/** Payload of the {@link CONTEXT_REPORT_EVENT} custom event. */
export interface ContextReportEvent {
  context_budget: ContextBudgetRecord;
  prompt_budget: PromptBudgetRecord;
  /** The full report of the view: counts and estimates only. */
  report: ManagedReport;
}

/**
 * Log both records and dispatch the custom event. Observability never fails a
 * model call: a throwing logger or callback handler is ignored.
 */
export async function publishReport(
  report: ManagedReport,
  meta: { source: ContextSource; conversationId: string; overflowRecovery: boolean },
  logger: ContextLogger | undefined,
  config: RunnableConfig | undefined,
): Promise<void> {
  const records = budgetRecords(report, meta);
  if (logger) {
    try {
      logger.info(records.context_budget, "context_budget");
      logger.info(records.prompt_budget, "prompt_budget");
    } catch {
      // A logger must never fail the model call.
    }
  }
  if (config === undefined) return;
  try {
    const payload: ContextReportEvent = { ...records, report };
    await dispatchCustomEvent(CONTEXT_REPORT_EVENT, payload, config);
  } catch {
    // Same for callback handlers of the custom event.
  }
}

/** Log a failed evidence update without its message (which could quote content). */
export function logEvidenceError(logger: ContextLogger | undefined, error: unknown, meta: { source: ContextSource; conversationId: string; mode: "inline" | "background" }): void {
  if (!logger) return;
  const code = (error as { code?: unknown } | null)?.code;
  try {
    logger.warn(
      { event: "context_evidence_error", ...meta, error: error instanceof Error ? error.name : typeof error, code: typeof code === "string" ? code : null },
      "context_evidence_error",
    );
  } catch {
    // A logger must never fail the model call.
  }
}

/** Logs a failed memory search; never throws. */
export function logMemoriesError(logger: ContextLogger | undefined, error: unknown, meta: { source: ContextSource; conversationId: string }): void {
  if (!logger) return;
  const code = (error as { code?: unknown } | null)?.code;
  try {
    logger.warn(
      { event: "context_memories_error", ...meta, error: error instanceof Error ? error.name : typeof error, code: typeof code === "string" ? code : null },
      "context_memories_error",
    );
  } catch {
    // A logger must never fail the model call.
  }
}
