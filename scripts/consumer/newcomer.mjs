// The first hour of a new user (issue 28), run by scripts/consumer-test.mjs in the fresh ES-module
// project that installed the packed tarballs, after the README's quick starts ran there as written.
// Plain JavaScript on purpose: nothing catches a mistyped option before run time. Each mistake
// must fail (or warn) with a message that names the field, what was expected and where the
// value came from (a factory option, the request's `context`, the model's profile).
import { ContextBudgetError, ContextViewError, InMemoryContextStore } from "@contextview/core";
import { ContextIntegrationError, createContextNode } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { RecordingChatModel } from "@contextview/langgraph/testing";
import { ContextOverflowError } from "@langchain/core/errors";
import { HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";

let checks = 0;
function check(what, ok, detail) {
  if (!ok) throw new Error(`newcomer: ${what}${detail === undefined ? "" : `\n  got: ${detail}`}`);
  checks++;
  console.log(`ok ${what}`);
}
function includesAll(what, text, parts) {
  for (const part of parts) check(`${what} says ${JSON.stringify(part)}`, typeof text === "string" && text.includes(part), text);
}
function thrownBy(run) {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("newcomer: expected a throw");
}
async function rejectionOf(run) {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("newcomer: expected a rejection");
}

const config = (thread, context) => ({ configurable: { thread_id: thread, user_id: "u1", ...(context === undefined ? {} : { context }) } });
const ask = (text) => ({ messages: [new HumanMessage(text)] });
const agentWith = (options, model = new RecordingChatModel()) =>
  createAgent({ model, tools: [], checkpointer: new MemorySaver(), middleware: [contextMiddleware({ store: new InMemoryContextStore(), ...options })] });

// 1. A mistyped option: refused when the factory is called, the closest option first, then the everyday ones.
const mistyped = thrownBy(() => contextMiddleware({ budgt: { promptBudget: 8000 } }));
check("`budgt` is a ContextIntegrationError INVALID_OPTION on field `budgt`", ContextIntegrationError.isInstance(mistyped) && mistyped.code === "INVALID_OPTION" && mistyped.field === "budgt", mistyped);
includesAll("the `budgt` error", mistyped.message, ["Unknown option `budgt`; did you mean `budget`? Everyday options: ", "`store`", "`keepRecentToolResults`"]);
// … and in a request's settings, where the field says it came from `context`.
const inRequest = await rejectionOf(() => agentWith({}).invoke(ask("hi"), config("t-request", { budgt: {} })));
check("a request's `context.budgt` passes ContextIntegrationError.isInstance through createAgent", ContextIntegrationError.isInstance(inRequest), inRequest);
check("its cause is INVALID_REQUEST_CONFIG on field `context.budgt`", inRequest.cause?.code === "INVALID_REQUEST_CONFIG" && inRequest.cause?.field === "context.budgt", inRequest.cause);
includesAll("the request error", inRequest.message, ["Unknown setting `context.budgt`; did you mean `context.budget`? Expected one of ", "`budget`"]);

// 2. A budget field beside `budget` instead of inside it.
const flat = thrownBy(() => contextMiddleware({ budget: { contextWindow: 32000 }, promptBudget: 8000 }));
check("a flat `promptBudget` is INVALID_OPTION on field `promptBudget`", ContextIntegrationError.isInstance(flat) && flat.code === "INVALID_OPTION" && flat.field === "promptBudget", flat);
includesAll("the flat `promptBudget` error", flat.message, ["Unknown option `promptBudget`", "budget fields go inside `budget`: `budget: { promptBudget: … }`"]);

// 3. The former name `keepRecent` still works, with one DeprecationWarning per process.
const warnings = [];
process.on("warning", (warning) => {
  if (warning.code === "CONTEXTVIEW_DEPRECATED_OPTION") warnings.push(warning);
});
for (const thread of ["t-old-1", "t-old-2"]) {
  const state = await agentWith({ keepRecent: 2 }).invoke(ask("hi"), config(thread));
  check(`an agent with \`keepRecent\` answers (${thread})`, state.messages.length === 2, state.messages.length);
}
await new Promise((resolve) => setImmediate(resolve));
check("`keepRecent` warned once for two factories", warnings.length === 1, warnings.length);
includesAll("the warning", warnings[0]?.message, ["`keepRecent` is deprecated; use `keepRecentToolResults`"]);

// 4. A StateGraph without ContextViewAnnotation: the context node says what to add, the model is never called.
const unused = new RecordingChatModel();
const bare = new StateGraph(MessagesAnnotation)
  .addNode("context", createContextNode({ evidence: "off" }))
  .addNode("model", async (state) => ({ messages: [await unused.invoke(state.llmInputMessages)] }))
  .addEdge(START, "context")
  .addEdge("context", "model")
  .addEdge("model", END)
  .compile();
const noChannel = await rejectionOf(() => bare.invoke(ask("hi"), config("t-bare")));
check("no ContextViewAnnotation is INVALID_STATE on field `state.llmInputMessages`", ContextIntegrationError.isInstance(noChannel) && noChannel.code === "INVALID_STATE" && noChannel.field === "state.llmInputMessages", noChannel);
includesAll("the INVALID_STATE error", noChannel.message, ["no `llmInputMessages` channel", "Add `ContextViewAnnotation` to the state", "...ContextViewAnnotation.spec"]);
check("the model was never called", unused.calls.length === 0, unused.calls.length);

// 5. A small model: a 3,000-token window from the profile works unconfigured, and a reserve
//    that leaves no room says where each number came from.
class SmallModel extends RecordingChatModel {
  get profile() {
    return { maxInputTokens: 3000 };
  }
}
const reports = [];
await agentWith({ onReport: (report) => reports.push(report) }, new SmallModel()).invoke(ask("hi"), config("t-small"));
const small = reports[0];
check("a maxInputTokens 3000 profile gives a view below 3000, its window from the profile", small !== undefined && small.limit > 0 && small.limit < 3000 && small.budgetSources.contextWindow === "profile", JSON.stringify(small && { limit: small.limit, sources: small.budgetSources }));
const noRoom = await rejectionOf(() => agentWith({ budget: { responseReserve: 2000, safetyReserve: 1200 } }, new SmallModel()).invoke(ask("hi"), config("t-no-room")));
check("reserves over the window fail as INVALID_OPTION, recognised through createAgent", ContextViewError.isInstance(noRoom) && noRoom.cause?.code === "INVALID_OPTION", noRoom);
includesAll("the reserve error", noRoom.message, [
  "Expected `responseReserve` + `safetyReserve` (2000 from the `budget.responseReserve` option + 1200 from the `budget.safetyReserve` option)",
  "to be less than `contextWindow` (3000 from the model's profile `maxInputTokens`)",
]);

// 6. A budget error on the createAgent path, caught the documented ways.
const tooLong = ask("a request far longer than this budget allows ".repeat(40));
const overBudget = await rejectionOf(() => agentWith({ budget: { promptBudget: 20 } }).invoke(tooLong, config("t-over")));
check("ContextBudgetError.isInstance(err) through createAgent", ContextBudgetError.isInstance(overBudget), overBudget);
check("ContextBudgetError.isBudgetError(err) and ContextViewError.isInstance(err)", ContextBudgetError.isBudgetError(overBudget) && ContextViewError.isInstance(overBudget));
check("err.name is ContextBudgetError", overBudget.name === "ContextBudgetError", overBudget.name);
check("err.cause has code CONTEXT_BUDGET_EXCEEDED and the figures", overBudget.cause?.code === "CONTEXT_BUDGET_EXCEEDED" && overBudget.cause?.limit === 20 && overBudget.cause?.required > 20, overBudget.cause);
check("err.cause is a ContextOverflowError of this project's @langchain/core", overBudget.cause instanceof ContextOverflowError && ContextOverflowError.isInstance(overBudget.cause));
check("err itself is langchain's MiddlewareError, as docs/langgraph.md says (not instanceof ContextOverflowError)", !(overBudget instanceof ContextOverflowError), overBudget.constructor?.name);
includesAll("the budget error", overBudget.message, ["estimated tokens but the prompt limit is 20", "Raise `promptBudget`/`contextWindow`"]);
const providerOverflow = new ContextOverflowError("prompt is too long");
check("a provider's overflow is no ContextBudgetError", !ContextBudgetError.isInstance(providerOverflow) && ContextOverflowError.isInstance(providerOverflow));

console.log(`newcomer: all ${checks} checks passed`);
