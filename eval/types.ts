import type { Budget } from "@contextview/core";
import type { BaseMessage } from "@langchain/core/messages";

/** A string that must reach the model's view whole for the context to count as kept. */
export interface RequiredFact {
  /** The exact text looked for (an id, a total like "1234.56", a date, a constraint phrase). */
  text: string;
  kind: "id" | "total" | "date" | "constraint" | "reference";
  /** Why it matters, for the report. */
  note: string;
}

/**
 * One evaluation input: a full recorded agent conversation (user turns, the
 * assistant's tool calls and answers, tool results) replayed identically through
 * every system, with the budget it must fit and the facts that must survive.
 */
export interface Fixture {
  name: string;
  description: string;
  systemPrompt: string;
  /** Tool schemas bound to every model call, charged to the budget. */
  tools: readonly unknown[];
  /** Budget overrides for this fixture; the rest is contextview's default. */
  budget: Partial<Budget>;
  /** Records (or builds) the conversation and derives its facts from it. Deterministic. */
  load(): Promise<LoadedFixture>;
}

/** A fixture's conversation and its required facts. */
export interface LoadedFixture {
  /**
   * The conversation: every turn starts with a HumanMessage and ends with an AI
   * message without tool calls; every tool call has its result right after it.
   * Every message has an id.
   */
  messages: readonly BaseMessage[];
  /** Facts that must be in the view of the last model call. */
  facts: readonly RequiredFact[];
}

/** What one model call received, as observed at the model. */
export interface ObservedCall {
  /** The messages the model was called with (the system message included). */
  view: BaseMessage[];
  /** Transcript messages before this call: what the checkpoint held. */
  historyLength: number;
}

/** What a system produced over one fixture. */
export interface StrategyRun {
  calls: ObservedCall[];
  /** Milliseconds spent in the context step (trimming, summarizing, selecting), per call. */
  contextMs: number[];
  /**
   * Whether the thread's checkpoint, read back after the run, differs from the
   * messages the agent produced; `null` for a pure function with no checkpoint.
   */
  checkpointRewritten: boolean | null;
  /** Calls to the shared fake summarizer. */
  summarizerCalls: number;
  /** Estimated tokens the summarizer was sent and answered (priced as uncached input and output). */
  summarizerTokens?: { input: number; output: number };
  /** Set when the system failed on a call (a typed error, say); the calls before it are kept. */
  error?: string;
}

/** One system compared on every fixture. */
export interface Strategy {
  name: string;
  /** How it runs: a pure function over the transcript, or a real graph with a checkpointer. */
  harness: string;
  /** Settings, for the report. */
  settings: (fixture: Fixture, limit: number) => string;
  run(fixture: Fixture, loaded: LoadedFixture, context: RunContext): Promise<StrategyRun>;
}

/** Shared inputs of a run: the same limit, counter and fixed overhead for every system. */
export interface RunContext {
  /** The prompt limit every view must fit, in estimated tokens. */
  limit: number;
  /** Estimated tokens of the system prompt and tool schemas, charged before any message. */
  fixedTokens: number;
  /** Estimated tokens of the tool schemas alone. */
  toolTokens: number;
  /** Estimated tokens of a list of messages (contextview's default estimator). */
  count: (messages: readonly BaseMessage[]) => number;
  /** A fresh temporary directory for checkpoint files, removed after the run. */
  tempDir: string;
}
