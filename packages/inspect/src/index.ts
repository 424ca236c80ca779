// @contextview/inspect: what the model saw on every past call of a LangGraph thread.
// The `contextview` bin parses its own arguments; its plumbing is not exported.

export { InspectError, type InspectErrorCode } from "./errors.js";
export {
  inspectThread,
  type CheckpointReader,
  type InspectThreadOptions,
  type InspectedCall,
  type InspectedThread,
  type MissingCall,
  type ReportedUsage,
} from "./inspect-thread.js";
export { renderThreadPage } from "./page/render-thread.js";
export { renderIndexPage, type ThreadSummary } from "./page/render-index.js";
export { openSqliteSources, openPostgresSources, type InspectSources } from "./sources.js";
export { serveInspector, type InspectorServer } from "./serve.js";
