export { createToolRouter, routingRecord, DEFAULT_ROUTER_OPTIONS } from "./create-tool-router.js";
export { bindSelection, type BindSelectionOptions, type SelectedModel } from "./bind-selection.js";
export { guardTool, type DeniedToolArtifact } from "./guard.js";
export { DISCOVER_TOOL_NAME, TOOL_GROUPS_ARTIFACT, isToolGroupsArtifact, readGrants, type ToolGroupsArtifact } from "./discovery.js";
export type {
  AuthorizeTools,
  RouteReason,
  SelectToolsInput,
  ToolGroup,
  ToolRouter,
  ToolRouterOptions,
  ToolRoutingRecord,
  ToolSelection,
} from "./types.js";
