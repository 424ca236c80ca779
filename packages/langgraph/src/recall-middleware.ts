import { createMiddleware, type AgentMiddleware } from "langchain";
import { createRecallTool, type RecallToolOptions } from "./recall-tool.js";

/** The name the recall middleware registers under. */
export const RECALL_MIDDLEWARE_NAME = "ContextViewRecall";

/**
 * createAgent middleware that gives the agent the recall tool of
 * {@link createRecallTool}: the model can read back what its view left out (search,
 * a message, rows of a tool result), from the thread's own messages. Off unless
 * added; use it beside `contextMiddleware`.
 *
 * @example
 * ```ts
 * const agent = createAgent({ model, tools, checkpointer, middleware: [contextMiddleware({ store }), recallMiddleware()] });
 * ```
 */
export function recallMiddleware(options: RecallToolOptions = {}): AgentMiddleware {
  return createMiddleware({ name: RECALL_MIDDLEWARE_NAME, tools: [createRecallTool(options)] }) as unknown as AgentMiddleware;
}
