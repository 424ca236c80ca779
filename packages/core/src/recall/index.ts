// Reading back what a view left out, from the conversation's own messages.

export {
  recallFromConversation,
  recallFromMessage,
  resolveRecallOptions,
  DEFAULT_RECALL_TOOL_NAME,
  MIN_RECALL_TOKENS,
  RECALL_REQUEST_LIMITS,
  type RecallOptions,
  type RecallRequest,
} from "./recall-from-conversation.js";
export { recallToolNameIn } from "./bound-tool.js";
export { RECALLED_LABEL, selectMessage, type RecallAnswer, type RecallContext, type RecalledMessage } from "./recalled-text.js";
export type { ReadRequest } from "./read-message.js";
export type { RowsRequest } from "./read-rows.js";
export type { SearchRequest } from "./search-messages.js";
