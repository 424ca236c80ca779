// @contextview/langgraph/middleware: createAgent middleware for `langchain` v1 users. A
// subpath of its own so that the root never loads `langchain`: only code that imports this
// needs it installed.

export { contextMiddleware, CONTEXT_MIDDLEWARE_NAME, type ContextMiddleware } from "./context-middleware.js";
export { recallMiddleware, RECALL_MIDDLEWARE_NAME } from "./recall-middleware.js";
