// The systems `pnpm eval recall` compares, each behind the same signature: prepared
// once per conversation and budget, then asked for the view of each question.
import { buildContext, chatModelSummarizer, createContextManager, createEstimator, InMemoryContextStore, resolveBudget, type Budget } from "@contextview/core";
import { trimMessages, type BaseMessage } from "@langchain/core/messages";
import { ExtractiveSummarizerModel } from "../summarizer.js";
import { Bm25Index, bm25View } from "./bm25.js";
import { messageText } from "./measure.js";
import type { RecallConversation } from "./types.js";

export const estimator = createEstimator();

/** The budget of a run: contextWindow 32768 and the given promptBudget, the rest contextview's defaults. */
export const recallBudget = (promptBudget: number): Partial<Budget> => ({ contextWindow: 32768, promptBudget });
export const limitOf = (promptBudget: number) => resolveBudget(recallBudget(promptBudget)).promptLimit;

/** Views of one conversation at one budget. */
export type ViewFor = (question: BaseMessage) => Promise<BaseMessage[]>;

export interface RecallSystem {
  name: string;
  settings: string;
  prepare(conversation: RecallConversation, history: readonly BaseMessage[], promptBudget: number): ViewFor;
}

// The same counter for every system: contextview's default estimator. Each message's
// estimate is memoized (a list's estimate is the sum of its messages'), so trimMessages'
// repeated prefix counts stay linear.
const memo = new WeakMap<BaseMessage, number>();
export function count(messages: readonly BaseMessage[]): number {
  let total = 0;
  for (const m of messages) {
    let n = memo.get(m);
    if (n === undefined) memo.set(m, (n = estimator.estimateMessage(m)));
    total += n;
  }
  return total;
}

export const buildContextSystem: RecallSystem = {
  name: "contextview buildContext",
  settings: "buildContext defaults (recall on: recallBudget 4000), no system prompt, no summary or evidence",
  prepare: (_c, history, promptBudget) => async (question) => buildContext({ messages: [...history, question], budget: recallBudget(promptBudget) }).messages,
};

/** buildContext with the recall stage switched off (`recallBudget: 0`; on by default): what recency alone keeps. */
export const buildContextNoRecallSystem: RecallSystem = {
  name: "contextview buildContext, recall off",
  settings: "buildContext defaults with recallBudget 0",
  prepare: (_c, history, promptBudget) => async (question) => buildContext({ messages: [...history, question], budget: recallBudget(promptBudget), recallBudget: 0 }).messages,
};

/**
 * buildContext with the application's dates (`messageDate`: the session date the
 * conversation's messages carry in `additional_kwargs.session_date`), shown in each
 * recalled line: what the "with its date" column is about.
 */
export const buildContextDatedSystem: RecallSystem = {
  name: "contextview buildContext + messageDate",
  settings: "buildContext defaults, messageDate = additional_kwargs.session_date",
  prepare: (_c, history, promptBudget) => async (question) =>
    buildContext({ messages: [...history, question], budget: recallBudget(promptBudget), messageDate: (message) => message.additional_kwargs["session_date"] as string | undefined }).messages,
};

/**
 * What the pre-model node does with evidence "update" and no summarizer: the
 * extractive evidence store updated with the checkpoint messages (InMemoryContextStore,
 * the contract SQLite and PostgreSQL implement), its message shown by the context manager.
 */
export const nodeStoreSystem: RecallSystem = {
  name: "contextview node + evidence store",
  settings: "createContextManager defaults + InMemoryContextStore, evidence via store.update (onPrefixChange rebuild), no summarizer",
  prepare: (conversation, history, promptBudget) => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ store, budget: recallBudget(promptBudget), estimator });
    const key = { userId: "recall", conversationId: conversation.id };
    return async (question) => {
      const messages = [...history, question];
      const state = await store.update(key.userId, key.conversationId, messages, { onPrefixChange: "rebuild" });
      return (await manager.build({ messages, key, evidence: state.asMessage() })).messages;
    };
  },
};

/**
 * The node with its evidence store and a summarizer (the third contextview row):
 * the shared fake summarizer of `pnpm eval` (it keeps the first line of each user
 * message, at most 3,000 characters), so the view holds a summary head beside the
 * evidence and the recall reserve is what the summary leaves.
 */
export const nodeSummarizerSystem: RecallSystem = {
  name: "contextview node + store + summarizer",
  settings: "createContextManager defaults + InMemoryContextStore, evidence via store.update, chatModelSummarizer(the eval's extractive fake)",
  prepare: (conversation, history, promptBudget) => {
    const store = new InMemoryContextStore();
    const manager = createContextManager({ store, budget: recallBudget(promptBudget), estimator, summarizer: chatModelSummarizer(new ExtractiveSummarizerModel({})) });
    const key = { userId: "recall", conversationId: conversation.id };
    return async (question) => {
      const messages = [...history, question];
      const state = await store.update(key.userId, key.conversationId, messages, { onPrefixChange: "rebuild" });
      return (await manager.build({ messages, key, evidence: state.asMessage() })).messages;
    };
  },
};

export const trimMessagesSystem: RecallSystem = {
  name: "trimMessages",
  settings: 'strategy "last", startOn "human", maxTokens = the prompt limit, the same counter',
  prepare: (_c, history, promptBudget) => {
    const maxTokens = limitOf(promptBudget);
    return async (question) => trimMessages([...history, question], { maxTokens, strategy: "last", startOn: "human", tokenCounter: (m: BaseMessage[]) => count(m) });
  },
};

export const bm25System: RecallSystem = {
  name: "BM25 reference",
  settings: "BM25 (k1 1.2, b 0.75) over the turns, query = question, best first while they fit, shown in conversation order",
  prepare: (_c, history, promptBudget) => {
    const index = new Bm25Index(history.map(messageText));
    const limit = limitOf(promptBudget);
    return async (question) => bm25View(index, history, question, limit, count);
  },
};

export const RECALL_SYSTEMS: readonly RecallSystem[] = [buildContextSystem, buildContextDatedSystem, buildContextNoRecallSystem, nodeStoreSystem, nodeSummarizerSystem, trimMessagesSystem, bm25System];
