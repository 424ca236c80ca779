import type { ContextStore, ManagedReport, MessageInput } from "@contextview/core";
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { z } from "zod";
import type { ContextLogger, ContextSource } from "./observability.js";
import { MEMORIES_EXPECTED, memoriesOptionSchema } from "./memories-from-store.js";

const isFunction = (value: unknown): boolean => typeof value === "function";
const hasMethods =
  (...names: string[]) =>
  (value: unknown): boolean =>
    typeof value === "object" && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === "function");

/** What each integration option accepts, for error messages. */
export const EXPECTED: Readonly<Record<string, string>> = {
  store: "a ContextStore (update, load, getCompaction, putCompaction, deleteCompaction, deleteConversation)",
  evidence: '"update", "background" or "off"',
  strictEvidence: "a boolean",
  resolveUserId: "a function (config) => string | undefined",
  systemPrompt: "a string or a SystemMessage",
  tools: "an array of tools or tool schemas, or a function ({ messages, config }) => tools",
  logger: "an object with info(record) and warn(record)",
  onReport: "a function (report, meta) => void",
  memories: MEMORIES_EXPECTED,
  model: "a chat model (its `profile` gives the default context window, response reserve and image input)",
  recordViews: "a boolean",
  largeResultWorker: "a boolean",
};

/**
 * The options `@contextview/langgraph` adds to the core context manager's
 * (`ContextManagerOptions`). Declared here, not inferred from
 * {@link integrationOptionsSchema}, so that editors show each option's documentation:
 * the `.d.ts` emitted for an inferred type keeps no comments. The check below the schema
 * keeps the two the same.
 */
export interface IntegrationOptions {
  /**
   * Where evidence and compaction state live. Use `SqliteContextStore.nextTo(checkpointer)`
   * so they sit beside the checkpoints.
   * @default new InMemoryContextStore()
   */
  store?: ContextStore | undefined;
  /**
   * `update`: update the durable evidence with the full messages before each view.
   * `background`: load the stored evidence for this view and update it in a tracked
   * background task (one request of lag; failures are logged; `drain()` on shutdown).
   * `off`: no evidence.
   * @default "update"
   */
  evidence?: "update" | "background" | "off" | undefined;
  /**
   * Throw when the evidence update fails (a changed checkpoint prefix, a store error)
   * instead of logging it and building this view without evidence.
   * @default false
   */
  strictEvidence?: boolean | undefined;
  /**
   * The authenticated user of a request, from its config (`config.context` holds the
   * runtime context). `undefined` means no user: the thread alone is then the scope of
   * the request's state, as it is of LangGraph's checkpoint (see `NO_USER_ID`); throw to
   * refuse the request instead. Without this option, the user is
   * `config.configurable.user_id`, or the runtime context's `userId` (or `user_id`).
   * @default (config) => config.configurable?.user_id ?? config.context?.userId ?? config.context?.user_id
   * @example
   * ```ts
   * createContextNode({ store, resolveUserId: (config) => (config.configurable?.["langgraph_auth_user"] as { identity?: string } | undefined)?.identity });
   * ```
   */
  resolveUserId?: ((config: RunnableConfig) => string | undefined) | undefined;
  /**
   * System instructions charged first and placed at the head of the view
   * (node and wrapper; the middleware uses the agent's own).
   * @default undefined (leading system messages of the state are kept)
   */
  systemPrompt?: string | BaseMessage | undefined;
  /**
   * Tool schemas charged to the budget (node). The node also takes a function of
   * the call (`({ messages, config }) => tools`, e.g. a tool router's selection).
   * The wrapper reads the tools bound with `bindTools` when this is not given; the
   * middleware uses the request's tools.
   * @default []
   */
  tools?: readonly unknown[] | ToolsForCall | undefined;
  /**
   * Receives the `context_budget` and `prompt_budget` records of every view and
   * `context_evidence_error` warnings. Records never contain message content.
   * @default undefined
   */
  logger?: ContextLogger | undefined;
  /**
   * Receives the report of every view (`view.report`: estimates, counts and what was
   * left out, never message content) with where it came from — the simplest way to
   * see what the model was given, without a logger or a callback handler. A throw is
   * ignored: observing never fails a model call.
   * @default undefined
   * @example
   * ```ts
   * createContextNode({ store, onReport: (report) => console.log(report.tokens.total, "/", report.limit, "dropped", report.turns.dropped) });
   * ```
   */
  onReport?: ReportListener | undefined;
  /**
   * Saved memories from LangGraph's long-term store (`BaseStore`): each call
   * searches the user's namespace (default `["memories", userId]`) with the request
   * text and puts the most relevant memories within `memoryBudget` in the system
   * message. `true` reads the graph's own store with every default.
   * @default undefined (no memories)
   * @example
   * ```ts
   * createContextNode({ store, memories: { namespace: ({ userId }) => ["tenant-a", "memories", userId] } });
   * ```
   */
  memories?: z.infer<typeof memoriesOptionSchema> | undefined;
  /**
   * The chat model the view goes to (node only; the wrapper and the middleware
   * know theirs). Its LangChain `profile`, read per call, gives the default
   * `contextWindow` (`maxInputTokens`), caps the default `responseReserve`
   * (`maxOutputTokens`) and, with `imageInputs: false`, turns every image into a
   * placeholder. Budget options, request settings and the environment win; an
   * explicit `profile` option replaces it.
   * @default undefined (no profile: the defaults apply)
   * @example
   * ```ts
   * createContextNode({ store, model }); // a 128k-window model: contextWindow 128000 unless set
   * ```
   */
  model?: object | undefined;
  /**
   * Keep, per model call, the view's report, options and input hashes in the store
   * (`store.recordView`, when the store has it) for `contextview inspect`. A record
   * that cannot be kept is logged and never fails the call.
   * @default true
   */
  recordViews?: boolean | undefined;
  /**
   * Compact large JSON tool results (1 MiB of content or more) in a worker thread
   * before each view is built, so the graph's event loop never parses and projects
   * megabytes at once (see docs/compaction.md, "Large results"). With `false`, or
   * with an estimator that has its own tokenizer, the view compacts them itself.
   * A `largeResults` function of your own replaces the worker.
   * @default true
   * @example
   * ```ts
   * createContextNode({ store, largeResultWorker: false }); // compact on the calling thread
   * ```
   */
  largeResultWorker?: boolean | undefined;
}

/** Validates {@link IntegrationOptions} (documented there) once, when a factory is called. */
export const integrationOptionsSchema = z.object({
  store: z.custom<ContextStore>(hasMethods("update", "load", "getCompaction", "putCompaction", "deleteCompaction", "deleteConversation")).optional(),
  evidence: z.enum(["update", "background", "off"]).optional(),
  strictEvidence: z.boolean().optional(),
  resolveUserId: z.custom<(config: RunnableConfig) => string | undefined>(isFunction).optional(),
  systemPrompt: z
    .custom<string | BaseMessage>((value) => typeof value === "string" || (typeof value === "object" && value !== null && "content" in value))
    .optional(),
  tools: z.custom<readonly unknown[] | ToolsForCall>((value) => Array.isArray(value) || typeof value === "function").optional(),
  logger: z.custom<ContextLogger>(hasMethods("info", "warn")).optional(),
  onReport: z.custom<ReportListener>(isFunction).optional(),
  memories: memoriesOptionSchema.optional(),
  model: z.custom<object>((value) => typeof value === "object" && value !== null).optional(),
  recordViews: z.boolean().optional(),
  largeResultWorker: z.boolean().optional(),
});

// Fails to compile when the schema and the documented interface disagree on an option or its type.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type ParsedOptions = z.infer<typeof integrationOptionsSchema>;
const schemaMatchesOptions: [Same<keyof ParsedOptions, keyof IntegrationOptions>, Same<ParsedOptions, IntegrationOptions>] = [true, true];
void schemaMatchesOptions;

/**
 * Tools chosen per call from the checkpoint messages and the request config, such
 * as `(input) => router.select(input).tools` of a tool router: the node charges the
 * set this returns, so the model node must bind the same set (compute it the same way).
 */
export type ToolsForCall = (input: { messages: readonly MessageInput[]; config: RunnableConfig }) => readonly unknown[];

/** Receives each view's report; see the `onReport` option. */
export type ReportListener = (report: ManagedReport, meta: { source: ContextSource; conversationId: string; overflowRecovery: boolean }) => void;

