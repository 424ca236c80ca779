// @contextview/core/routing: tool routing (the tools a model call sees, chosen per request)
// and saved memories (the ones a request needs, within a budget), with the request text
// both match against.

export {
  createToolRouter,
  bindSelection,
  routingRecord,
  DISCOVER_TOOL_NAME,
  type ToolGroup,
  type ToolRouter,
  type ToolRouterOptions,
  type ToolSelection,
} from "./routing/index.js";
export { selectMemories, MEMORY_BLOCK_HEADER, type SavedMemory, type SelectMemoriesOptions } from "./memories/index.js";
export { requestText } from "./lexical/index.js";
