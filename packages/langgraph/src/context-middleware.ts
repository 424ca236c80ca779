import { countCacheBreakpoints, markCacheBreakpoints } from "@contextview/core/internal";
import type { BaseMessage, SystemMessage } from "@langchain/core/messages";
import { ensureConfig } from "@langchain/core/runnables";
import { createMiddleware, type AgentMiddleware } from "langchain";
import { createContextPipeline } from "./context-pipeline.js";
import { modelLimitsOf } from "./model-profile.js";
import type { ContextOptions } from "./options.js";
import type { RequestConfig } from "./runtime-context.js";

/** The name the middleware registers under in createAgent. */
export const CONTEXT_MIDDLEWARE_NAME = "ContextViewMiddleware";

/** An agent middleware with a `drain()` for its background evidence updates. */
export type ContextMiddleware = AgentMiddleware & {
  /** Wait for background evidence updates (`evidence: "background"`); call on shutdown. */
  drain(): Promise<void>;
};

/**
 * createAgent middleware (`langchain` v1): the same pipeline as the node, in
 * `wrapModelCall`. The model is called with a request whose `messages` are the
 * view; `request.messages` and the agent state are never mutated, so the
 * checkpoint keeps every message as it was (LangChain's own `contextEditingMiddleware`
 * edits them in place and the cleared content reaches the checkpoint). The agent's
 * system message and tools are charged to the budget; one context overflow is
 * recovered; `usage_metadata` feeds calibration.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { contextMiddleware } from "@contextview/langgraph/middleware";
 * const checkpointer = SqliteSaver.fromConnString("/data/checkpoints.sqlite");
 * const agent = createAgent({
 *   model,
 *   tools,
 *   checkpointer,
 *   middleware: [contextMiddleware({ store: SqliteContextStore.nextTo(checkpointer) })],
 * });
 * await agent.invoke(
 *   { messages: [{ role: "user", content: "hi" }] },
 *   { configurable: { thread_id: "t-1" }, context: { userId: "u-1", budget: { promptBudget: 8000 } } },
 * );
 * ```
 *
 * The user and per-request settings come from the runtime `context` (`request.runtime.context`)
 * or `configurable`; neither id is required (see `report.scope`).
 */
export function contextMiddleware(options: ContextOptions = {}): ContextMiddleware {
  const pipeline = createContextPipeline(options, "middleware");
  const middleware: AgentMiddleware = createMiddleware({
    name: CONTEXT_MIDDLEWARE_NAME,
    wrapModelCall: async (request, handler) => {
      // The agent node's config (callbacks for the custom event) comes from async local storage.
      const ambient = ensureConfig();
      const config: RequestConfig = { ...ambient, configurable: request.runtime.configurable ?? ambient.configurable ?? {}, context: request.runtime.context };
      if (request.runtime.signal !== undefined) config.signal = request.runtime.signal;
      const prepared = await pipeline.prepare({
        config,
        messages: request.messages,
        systemPrompt: request.systemMessage,
        tools: request.tools,
        runtimeStore: (request.runtime as { store?: unknown }).store,
        profile: modelLimitsOf(request.model),
      });
      const withMemories = (prepared.request.memories?.length ?? 0) > 0;
      const { result, view } = await pipeline.run(prepared, async (messages: BaseMessage[]) => {
        const system = messages[0]?.type === "system" ? (messages[0] as SystemMessage) : undefined;
        const rest = system ? messages.slice(1) : messages;
        // The handler puts the agent's own system message back in front. Saved memories ride in
        // the view's system message; otherwise a cache breakpoint the view put on its system
        // message goes on the agent's.
        if (withMemories && system) return handler({ ...request, systemMessage: system, messages: rest });
        if (system && request.systemMessage && countCacheBreakpoints([system]) > countCacheBreakpoints([request.systemMessage])) {
          return handler({ ...request, messages: rest, systemMessage: markCacheBreakpoints([request.systemMessage], [0])[0] as SystemMessage });
        }
        return handler({ ...request, messages: rest });
      });
      await pipeline.recordUsage(prepared, view, result);
      return result;
    },
  });
  return Object.defineProperty(middleware, "drain", { value: () => pipeline.drain(), enumerable: false }) as ContextMiddleware;
}
