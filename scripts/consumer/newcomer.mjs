// The first hour of a new user (issues 28 and 49), run by scripts/consumer-test.mjs in the fresh
// ES-module project that installed the packed tarballs, after the README's quick starts ran there
// as written. Plain JavaScript on purpose: nothing catches a mistyped option before run time. Each
// mistake must fail (or warn) with a message that names the field, what was expected and where the
// value came from (a factory option, the request's `context`, the model's profile). Then what a
// newcomer reaches for first: no ids at all, LangChain v1's runtime context, a chat model as the
// summarizer, and an editor's hover on every option (read from the installed .d.ts).
import { unlinkSync, writeFileSync } from "node:fs";
import { ContextBudgetError, ContextViewError, InMemoryContextStore } from "@contextview/core";
import { contextConfigSchema, ContextIntegrationError, createContextNode } from "@contextview/langgraph";
import { contextMiddleware } from "@contextview/langgraph/middleware";
import { RecordingChatModel } from "@contextview/langgraph/testing";
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { createAgent } from "langchain";
import ts from "typescript";
import { z } from "zod";

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

// 3. The 0.x name `keepRecent` is refused with its 1.0 name, never read or ignored.
const renamed = thrownBy(() => agentWith({ keepRecent: 2 }));
check("`keepRecent` is INVALID_OPTION on field `keepRecent`", ContextIntegrationError.isInstance(renamed) && renamed.code === "INVALID_OPTION" && renamed.field === "keepRecent", renamed);
includesAll("the `keepRecent` error", renamed.message, ["Unknown option `keepRecent`: renamed `keepRecentToolResults` in 1.0"]);

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
//    that leaves no room says where each number came from. RecordingChatModel takes the profile.
const smallModel = () => new RecordingChatModel({ profile: { maxInputTokens: 3000 } });
check("RecordingChatModel({ profile }) has that profile", smallModel().profile?.maxInputTokens === 3000, JSON.stringify(smallModel().profile));
const reports = [];
await agentWith({ onReport: (report) => reports.push(report) }, smallModel()).invoke(ask("hi"), config("t-small"));
const small = reports[0];
check("a maxInputTokens 3000 profile gives a view below 3000, its window from the profile", small !== undefined && small.limit > 0 && small.limit < 3000 && small.budgetSources.contextWindow === "profile", JSON.stringify(small && { limit: small.limit, sources: small.budgetSources }));
const noRoom = await rejectionOf(() =>
  agentWith({ budget: { responseReserve: 2000, safetyReserve: 1200 } }, smallModel()).invoke(ask("hi"), config("t-no-room")),
);
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

// A conversation longer than a 3,000-token budget, ending with the request.
const longConversation = (turns) => [
  ...Array.from({ length: turns }, (_, i) => [
    new HumanMessage(`Question ${i}: what did I spend on groceries in week ${i}? ${"Some detail about the week and its shops. ".repeat(8)}`),
    new AIMessage(`Answer ${i}: groceries were ${100 + i} and rent 900. ${"More detail on the categories and the payees. ".repeat(12)}`),
  ]).flat(),
  new HumanMessage("And what should I keep under 900?"),
];
const conversation = longConversation(20);

// 7. Neither id is required (issue 49): no config at all is a stateless view; a thread without a
//    user is scoped to that thread; a checkpointer without a thread id is our typed error, before LangGraph's.
const scopes = [];
const noteScope = (report) => scopes.push(report.scope);
const statelessMiddleware = contextMiddleware({ budget: { promptBudget: 3000 }, onReport: noteScope });
const stateless = await createAgent({ model: new RecordingChatModel(), tools: [], middleware: [statelessMiddleware] }).invoke({ messages: conversation });
check("createAgent without a checkpointer, invoked without config, answers", stateless.messages.length === conversation.length + 1, stateless.messages.length);
check("its report.scope is `stateless`", scopes.at(-1) === "stateless", scopes.at(-1));
await agentWith({ onReport: noteScope }).invoke(ask("hi"), { configurable: { thread_id: "t-no-user" } });
check("a thread_id without a user id answers, report.scope `thread`", scopes.at(-1) === "thread", scopes.at(-1));
const noThread = await rejectionOf(() => agentWith({}).invoke(ask("hi")));
const noThreadCause = noThread.cause ?? noThread;
check(
  "a checkpointer without thread_id is ContextIntegrationError MISSING_CONVERSATION_KEY on `config.configurable.thread_id`",
  ContextIntegrationError.isInstance(noThread) && noThreadCause.code === "MISSING_CONVERSATION_KEY" && noThreadCause.field === "config.configurable.thread_id",
  noThread,
);
includesAll("the missing thread_id error", noThread.message, ["checkpointer"]);

// 8. LangChain v1's runtime context: the user and this request's settings, typed by a contextSchema;
//    a setting straight in `configurable` is refused with where it belongs.
const contextReports = [];
const contextAgent = createAgent({
  model: new RecordingChatModel(),
  tools: [],
  checkpointer: new MemorySaver(),
  contextSchema: z.object({ userId: z.string(), ...contextConfigSchema.shape }),
  middleware: [contextMiddleware({ store: new InMemoryContextStore(), onReport: (report) => contextReports.push(report) })],
});
const runtimeContext = { userId: "u-context", budget: { promptBudget: 3000 } };
await contextAgent.invoke({ messages: conversation }, { configurable: { thread_id: "t-context" }, context: runtimeContext });
const fromContext = contextReports.at(-1);
check(
  "`context: { userId, budget: { promptBudget: 3000 } }` gives a view within 3000 from the request, scope `user`",
  fromContext?.limit <= 3000 && fromContext?.budgetSources.promptBudget === "request" && fromContext?.scope === "user",
  JSON.stringify(fromContext && { limit: fromContext.limit, sources: fromContext.budgetSources, scope: fromContext.scope }),
);
const misplacedConfig = { configurable: { thread_id: "t-misplaced", budget: { promptBudget: 3000 } }, context: { userId: "u" } };
const misplaced = await rejectionOf(() => contextAgent.invoke(ask("hi"), misplacedConfig));
const misplacedCause = misplaced.cause ?? {};
check(
  "`configurable.budget` is INVALID_REQUEST_CONFIG on field `configurable.budget`",
  misplacedCause.code === "INVALID_REQUEST_CONFIG" && misplacedCause.field === "configurable.budget",
  misplaced,
);
includesAll("the misplaced setting error", misplaced.message, ["put per-request settings in `context`"]);

// 9. A chat model as the summarizer, as LangChain's summarizationMiddleware({ model }) takes it.
const SUMMARY = "Goal: keep rent under 900. Decisions: move savings.";
const summaryModel = new RecordingChatModel({ answer: () => SUMMARY });
const agentModel = new RecordingChatModel();
const summaryReports = [];
const summarizing = createAgent({
  model: agentModel,
  tools: [],
  checkpointer: new MemorySaver(),
  middleware: [
    contextMiddleware({ store: new InMemoryContextStore(), summarizer: summaryModel, budget: { promptBudget: 3000 }, onReport: (r) => summaryReports.push(r) }),
  ],
});
await summarizing.invoke({ messages: conversation }, config("t-summary"));
check("`summarizer: chatModel` is called", summaryModel.calls.length > 0, summaryModel.calls.length);
check("the view reports a summary", summaryReports[0]?.compaction.kind === "summary", summaryReports[0]?.compaction.kind);
check("the agent's model saw the summary", JSON.stringify(agentModel.calls[0]?.map((message) => message.content)).includes("keep rent under 900. Decisions"));
const notModel = thrownBy(() => contextMiddleware({ summarizer: "gpt-4.1-mini" }));
check("a model name as `summarizer` is INVALID_OPTION on field `summarizer`", notModel.code === "INVALID_OPTION" && notModel.field === "summarizer", notModel);
includesAll("the summarizer error", notModel.message, ["Expected `summarizer` to be a chat model"]);

// 10. Did you mean: LangChain's `trigger` says what does its job here; inside `budget` the closest name comes first.
const trigger = thrownBy(() => contextMiddleware({ trigger: { tokens: 4000 } }));
check("LangChain's `trigger` is INVALID_OPTION on field `trigger`", trigger.code === "INVALID_OPTION" && trigger.field === "trigger", trigger);
includesAll("the `trigger` error", trigger.message, ["Unknown option `trigger`: LangChain's `trigger`", "`budget: { promptBudget }`"]);
const inBudget = thrownBy(() => contextMiddleware({ budget: { contextWindw: 8000 } }));
includesAll("the `budget.contextWindw` error", inBudget.message, ["Unknown option `budget.contextWindw`; did you mean `budget.contextWindow`?"]);
// A view setting given at the top level, as 0.x took it: refused with where it goes.
const ungrouped = thrownBy(() => contextMiddleware({ cacheBreakpoints: true }));
check("a top-level `cacheBreakpoints` is INVALID_OPTION on field `cacheBreakpoints`", ungrouped.code === "INVALID_OPTION" && ungrouped.field === "cacheBreakpoints", ungrouped);
includesAll("the `cacheBreakpoints` error", ungrouped.message, ["it goes in `view.cacheBreakpoints` (`view: { cacheBreakpoints }`)"]);

// 11. An editor's hover: every option of every factory, read from the installed .d.ts, has
//     documentation and a @default (options inherited from LangChain's own types aside).
const probe = "hover-probe.ts";
writeFileSync(
  probe,
  `import { createContextNode, createRecallTool, withContext } from "@contextview/langgraph";
import { contextMiddleware, recallMiddleware } from "@contextview/langgraph/middleware";
import { RecordingChatModel } from "@contextview/langgraph/testing";
export { contextMiddleware, createContextNode, withContext, createRecallTool, recallMiddleware, RecordingChatModel };
`,
);
try {
  const program = ts.createProgram([probe], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ["node"],
  });
  const checker = program.getTypeChecker();
  const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(probe)));
  const undocumented = [];
  let options = 0;
  const ours = (symbol) => (symbol.declarations ?? []).some((declaration) => /node_modules\/@contextview\//.test(declaration.getSourceFile().fileName));
  const visit = (factory, type, prefix) => {
    for (const property of checker.getPropertiesOfType(checker.getNonNullableType(type))) {
      if (!ours(property)) continue;
      options++;
      const documented = ts.displayPartsToString(property.getDocumentationComment(checker)).trim() !== "";
      const hasDefault = property.getJsDocTags(checker).some((tag) => tag.name === "default");
      if (!documented || !hasDefault) undocumented.push(`${factory}: ${prefix}${property.name}${documented ? " (no @default)" : ""}`);
      if (prefix === "" && ["budget", "view", "summaries", "advanced"].includes(property.name)) visit(factory, checker.getTypeOfSymbol(property), `${property.name}.`);
    }
  };
  for (const symbol of exported) {
    const type = checker.getTypeOfSymbol(checker.getAliasedSymbol(symbol));
    const signature = type.getCallSignatures()[0] ?? type.getConstructSignatures()[0];
    const parameter = signature?.parameters[symbol.name === "withContext" ? 1 : 0];
    if (parameter === undefined) throw new Error(`newcomer: ${symbol.name} takes no options parameter`);
    visit(symbol.name, checker.getTypeOfSymbol(parameter), "");
  }
  const everyOption = exported.length === 6 && options > 60 && undocumented.length === 0;
  check(`${exported.length} factories' ${options} options show documentation with @default on hover`, everyOption, undocumented.join(", "));
} finally {
  unlinkSync(probe);
}

console.log(`newcomer: all ${checks} checks passed`);
