import { trimMessages, type BaseMessage } from "@langchain/core/messages";
import { ClearToolUsesEdit, contextEditingMiddleware, createMiddleware, summarizationMiddleware } from "langchain";
import { ExtractiveSummarizerModel } from "../summarizer.js";
import type { Strategy } from "../types.js";
import { runAgent } from "./agent-harness.js";

/** Messages kept by the "keep the last N messages" baseline. */
export const LAST_N = 20;
/** Share of the prompt limit summarizationMiddleware keeps after a summary (contextview keeps 15–40%). */
export const SUMMARY_KEEP_SHARE = 0.3;

/** A wrapModelCall middleware that hands the model a replaced message list; request and state stay as they are. */
function viewMiddleware(name: string, select: (messages: BaseMessage[]) => Promise<BaseMessage[]> | BaseMessage[]) {
  return createMiddleware({
    name,
    wrapModelCall: async (request, handler) => handler({ ...request, messages: await select(request.messages) }),
  });
}

/** `trimMessages` (strategy last, startOn human) in front of the model, as a createAgent middleware. */
export const trimMessagesStrategy: Strategy = {
  name: "trimMessages",
  harness: "createAgent + wrapModelCall middleware, MemorySaver",
  settings: () => `strategy "last", startOn "human", maxTokens = limit − system − tools, same counter`,
  run: (fixture, loaded, context) =>
    runAgent(fixture, loaded, context, (timer) => [
      timer.wrap(viewMiddleware("TrimMessages", (messages) => trimMessages(messages, { maxTokens: context.limit - context.fixedTokens, strategy: "last", startOn: "human", tokenCounter: (m: BaseMessage[]) => context.count(m) }))),
    ]),
};

/** Keep the last N messages, whatever they are. */
export const lastNStrategy: Strategy = {
  name: `last ${LAST_N} messages`,
  harness: "createAgent + wrapModelCall middleware, MemorySaver",
  settings: () => `messages.slice(-${LAST_N}); not budget-aware by design`,
  run: (fixture, loaded, context) => runAgent(fixture, loaded, context, (timer) => [timer.wrap(viewMiddleware("LastN", (messages) => messages.slice(-LAST_N)))]),
};

/** langchain v1 `summarizationMiddleware` with the shared fake summarizer and counter. */
export const summarizationStrategy: Strategy = {
  name: "summarizationMiddleware",
  harness: "createAgent + middleware, MemorySaver",
  settings: (_fixture, limit) => `trigger tokens = limit − system − tools, keep ${Math.round(SUMMARY_KEEP_SHARE * 100)}% of the limit (${Math.floor(SUMMARY_KEEP_SHARE * limit)} tokens), same counter and fake summarizer, default trimTokensToSummarize (4000)`,
  run: (fixture, loaded, context) => {
    const summarizer = new ExtractiveSummarizerModel({});
    const counter = {
      get calls() {
        return summarizer.calls;
      },
      get tokens() {
        return summarizer.tokens;
      },
    };
    return runAgent(
      fixture,
      loaded,
      context,
      (timer) => [
        // langchain's middleware option types do not compile under exactOptionalPropertyTypes; the values are right.
        timer.wrap(summarizationMiddleware({ model: summarizer, trigger: { tokens: context.limit - context.fixedTokens }, keep: { tokens: Math.floor(SUMMARY_KEEP_SHARE * context.limit) }, tokenCounter: (m: BaseMessage[]) => context.count(m) } as never)),
      ],
      counter,
    );
  },
};

/** langchain v1 `contextEditingMiddleware` with `ClearToolUsesEdit`, counting with the shared counter. */
export const contextEditingStrategy: Strategy = {
  name: "contextEditingMiddleware",
  harness: "createAgent + middleware, MemorySaver",
  settings: () => `ClearToolUsesEdit trigger tokens = limit − tools (its count includes the system prompt), keep 3 tool results, tokenCountMethod "model" (the shared counter); never drops messages by design`,
  run: (fixture, loaded, context) =>
    runAgent(fixture, loaded, context, (timer) => [
      timer.wrap(contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: context.limit - context.toolTokens }, keep: { messages: 3 } } as never)], tokenCountMethod: "model" } as never)),
    ]),
};
