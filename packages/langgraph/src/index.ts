// @contextview/langgraph: the bounded model view inside LangGraph.js and LangChain.js agents.

export { ContextIntegrationError, type ContextIntegrationErrorCode } from "./errors.js";
export { contextConfigSchema, parseContextConfig, CONTEXT_SETTING_KEYS, type ContextConfig } from "./request-config.js";
export { integrationOptionsSchema, type ContextOptions, type IntegrationOptions, type ToolsForCall } from "./options.js";
export { conversationKeyOf } from "./conversation-key.js";
export { DEFAULT_MEMORY_SEARCH_LIMIT, type MemoriesFromStore } from "./memories-from-store.js";
export {
  CONTEXT_REPORT_EVENT,
  budgetRecords,
  type ContextBudgetRecord,
  type ContextLogger,
  type ContextLogRecord,
  type ContextReportEvent,
  type ContextSource,
  type EvidenceErrorRecord,
  type MemoriesErrorRecord,
  type PromptBudgetRecord,
} from "./observability.js";
export { LLM_INPUT_MESSAGES, ViewMessagesChannel, ContextViewAnnotation, contextViewFields, ContextViewStateSchema } from "./view-state.js";
export { createContextNode, type ContextNode, type ContextNodeInput, type ContextNodeUpdate, type ModelNode } from "./context-node.js";
export { withContext, ContextModel } from "./with-context.js";
export { contextMiddleware, CONTEXT_MIDDLEWARE_NAME, type ContextMiddleware } from "./context-middleware.js";
export { deleteConversation, type ThreadDeleter } from "./delete-conversation.js";
export {
  measureStreamRequest,
  StreamMeter,
  createStreamMetrics,
  streamedText,
  DEFAULT_STALL_TIMEOUT_MS,
  DEFAULT_DURATION_BUCKETS,
  type MeasureStreamOptions,
  type MeasuredRequest,
  type StreamMetricsOptions,
  type ModelCallRecord,
  type StreamLogger,
  type StreamMetrics,
  type StreamOutcome,
  type StreamPhase,
  type StreamRequestRecord,
} from "./measure/index.js";
