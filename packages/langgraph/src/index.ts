// @contextview/langgraph: the bounded model view inside LangGraph.js and LangChain.js agents.
//
// The root holds the graph node, the model wrapper and what configures them. Extras live in
// subpaths, so the root loads none of their dependencies: `@contextview/langgraph/middleware`
// (createAgent middleware; needs `langchain`) and `@contextview/langgraph/measure` (stream
// measurements; Prometheus metrics need `prom-client`).

export { ContextIntegrationError, type ContextIntegrationErrorCode } from "./errors.js";
export { contextConfigSchema, type ContextConfig } from "./request-config.js";
export type { ContextOptions, IntegrationManagerOptions, IntegrationOptions, ReportListener, ToolsForCall } from "./options.js";
export type { SummarizerModel, SummarizerOption } from "./model-summarizer.js";
export { NO_USER_ID, type ConversationScope } from "./conversation-key.js";
export type { MemoriesFromStore } from "./memories-from-store.js";
export {
  CONTEXT_REPORT_EVENT,
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
export { deleteConversation, type ThreadDeleter } from "./delete-conversation.js";
export { createRecallTool, type RecallToolOptions } from "./recall-tool.js";
