import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { buildContext, createContextManager, createEstimator } from "@contextview/core";

// FUZZ_SEED=854602578: a user message and an AI message sharing one id made the opening request
// look out of the view, so it was pinned a second time beside itself, past the limit.
describe("messages that share an id", () => {
  const estimator = createEstimator();
  const messages = [new HumanMessage({ id: "k", content: "x".repeat(5000) }), new AIMessage({ id: "k", content: "" })];

  it("never pin the current request a second time, and the view stays within the limit", async () => {
    for (const view of [buildContext({ messages, budget: { promptBudget: 3000 } }), await createContextManager({ budget: { promptBudget: 3000 } }).build({ messages, key: { userId: "u", conversationId: "shared-ids" } })]) {
      expect(estimator.estimateMessages(view.messages)).toBeLessThanOrEqual(view.report.limit);
      expect(view.report.tokens.total).toBeLessThanOrEqual(view.report.limit);
      expect(view.messages.filter((m) => m.type === "human" && String(m.content).includes("xxxx"))).toHaveLength(1);
      expect(view.report.pinned.openingRequest?.placement).toBe("in-view");
    }
  });
});
