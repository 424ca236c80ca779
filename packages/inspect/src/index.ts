// @contextview/inspect: what the model saw on every past call of a LangGraph thread.

export { InspectError, type InspectErrorCode } from "./errors.js";
export {
  inspectThread,
  type CheckpointReader,
  type InspectThreadOptions,
  type InspectedCall,
  type InspectedThread,
  type ReportedUsage,
} from "./inspect-thread.js";
export { renderThreadPage } from "./page/render-thread.js";
export { renderIndexPage, type ThreadSummary } from "./page/render-index.js";
export { escapeHtml } from "./page/html.js";
export { openSqliteSources, openPostgresSources, type InspectSources } from "./sources.js";
export { serveInspector, type InspectorServer } from "./serve.js";
export { parseInspectArguments, DEFAULT_PORT, type InspectArguments } from "./args.js";
export { runInspectCli, type CliOutput } from "./run-cli.js";
