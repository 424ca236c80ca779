// The shared test support (`@contextview/test-support`): one fake chat model, one
// conversation builder and one law checker for unit tests, integration tests and eval.
export { RecordingChatModel, searchTool, toolsMarker, type RecordedCall, type RecordingChatModelOptions, type StreamedAnswer } from "./chat-model.js";
export { conversation, conversationArb, cursorOf, deepFreeze, nextTurn, searchConversation, storeHistory, textArb, TOOL_ONLY, turnArb, turnMessages, workerTurns, type TurnSpec } from "./conversation.js";
export { itHoldsOver, refusedCase, type LawCase } from "./law-cases.js";
export { callProblems, LAWS, problemsOf, readableText, snapshot, viewProblems, type LawName, type ViewLawInput, type ViewProblem } from "./laws.js";
export { thrownBy } from "./errors.js";
export { acceptedValues, refusedValues } from "./setting-edges.js";
export { viewRecordEntry } from "./view-records.js";
export { anthropicOrderProblems, geminiOrderProblems, openAIOrderProblems, PROVIDER_CHECKERS, providerOrderProblems, providersAccepting, type ProviderName } from "./providers.js";
export { printedRecallCall, readAnswerPart, type ReadAnswerPart } from "./recall-calls.js";
